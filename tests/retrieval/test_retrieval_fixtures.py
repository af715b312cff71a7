"""Every value of trec_eval's own test outputs, for the measures ragjudge computes, to the printed 4 decimals.

The reference files were written by trec_eval itself (see ../shared/data/README.md); our numbers must print the
same, per topic and for ``all``, and ``format_trec`` must print the very same lines in the same order.
"""

from __future__ import annotations

import pytest
from retrieval_fixtures import reference_lines, trec_file

from ragjudge.retrieval import Evaluation, Measure, evaluate, parse_measure
from ragjudge.retrieval.report import format_trec, select_trec

# (reference output, qrels, run, options) -- the trec_eval command lines that made them are in the data README.
CASES = {
    "gen.binary.ragjudge_measures.q.txt": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "max_docs": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
}


def _ours(name: str) -> Measure | None:
    """Our measure for a trec_eval output name, if it is one we compute (gm_map, bpref... are not)."""
    try:
        measure = parse_measure(name)
    except ValueError:
        return None
    return measure if measure.trec_name == name else None


def _evaluated(case: str) -> tuple[list[tuple[str, str, str]], Evaluation]:
    qrels, run, options = CASES[case]
    rows = [(m, t, v) for m, t, v in reference_lines(case) if _ours(m) is not None]
    measures = [m for m in dict.fromkeys(_ours(name) for name, _, _ in rows) if m is not None]
    result = evaluate(trec_file(qrels), trec_file(run), measures, **options)
    return rows, result


@pytest.mark.parametrize("case", list(CASES))
def test_every_reference_value(case: str) -> None:
    rows, result = _evaluated(case)
    assert len(rows) >= 100  # the file holds what we think it holds
    wrong = []
    for name, topic, expected in rows:
        measure = parse_measure(name)
        value = result.mean(measure) if topic == "all" else float(result[measure][result.topics.index(topic)])
        printed = str(int(value)) if measure.is_count else f"{value:.4f}"
        if printed != expected:
            wrong.append(f"{name} {topic}: trec_eval {expected}, ours {printed}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("case", ["out.test.aq", "out.test.aqc", "out.test.aqcM", "out.test.aql"])
def test_trec_lines_identical(case: str) -> None:
    """``-m all_trec -q`` prints exactly trec_eval's lines for our measures (runid, num_q included), in order."""
    qrels, run, options = CASES[case]
    selection = select_trec(["all_trec"])
    result = evaluate(trec_file(qrels), trec_file(run), selection.measures, **options)
    ours = list(format_trec(result, selection, per_query=True))
    names = {m.trec_name for m in selection.measures} | {"runid", "num_q"}
    theirs = [line for line in trec_file(case).read_text().splitlines() if line.split("\t")[0].strip() in names]
    assert ours == theirs


def test_official_is_the_default_selection() -> None:
    """Without -m, the lines trec_eval prints by default for the measures we compute."""
    selection = select_trec(None)
    result = evaluate(trec_file("qrels.test"), trec_file("results.test"), selection.measures)
    names = {m.trec_name for m in selection.measures} | {"runid", "num_q"}
    theirs = [line for line in trec_file("out.test").read_text().splitlines() if line.split("\t")[0].strip() in names]
    assert list(format_trec(result, selection)) == theirs
    assert len(theirs) == 17
