"""Random qrels and runs, evaluated by ragjudge and by pytrec_eval (trec_eval's own measure code): equal to 1e-9.

The data are built to hit trec_eval's corners: graded and negative judgements, score ties (broken by docno, with
ids of different lengths and cases), topics only in the run or only in the qrels, empty rankings, and all three
input paths (dicts, TREC files with untidy whitespace, DataFrames).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragjudge.retrieval import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10)
TREC_MEASURES = {"map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret",
                 "P." + ",".join(map(str, CUTOFFS)), "recall." + ",".join(map(str, CUTOFFS)),
                 "ndcg_cut." + ",".join(map(str, CUTOFFS)), "map_cut." + ",".join(map(str, CUTOFFS)),
                 "success." + ",".join(map(str, CUTOFFS))}
OURS = ["AP", "nDCG", "RR", "Rprec", "NumRet", "NumRel", "NumRelRet"] + [
    f"{name}@{k}" for name in ("P", "R", "nDCG", "AP", "Success") for k in CUTOFFS]
DOCS = ["a", "b", "B", "ab", "d1", "d10", "d2", "doc-3", "Z9", "zz", "x_1", "é"]
TOPICS = ["1", "2", "10", "q7", "Q7"]
SCORES = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, -1.5, 3.25]) | st.floats(-5, 5, allow_nan=False, width=32)

# A topic judged only negatively crashes trec_eval (form_res_rels sizes an array by the highest grade + 1), so each
# generated topic has a grade >= 0; ragjudge evaluates such a topic as one without relevant documents.
judgements = st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 3), min_size=1, max_size=8).filter(
    lambda docs: max(docs.values()) >= 0)
qrels_strategy = st.dictionaries(st.sampled_from(TOPICS), judgements, min_size=1, max_size=5)
run_strategy = st.dictionaries(
    st.sampled_from(TOPICS), st.dictionaries(st.sampled_from(DOCS), SCORES, max_size=12), min_size=1, max_size=5)


def _reference(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], level: int,
               judged_only: bool = False) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate({t: {d: float(s) for d, s in docs.items()} for t, docs in run.items()})


def _compare(result: Any, reference: dict[str, dict[str, float]], empty: set[str]) -> None:
    assert set(result.topics) == set(reference)
    for measure in result.measures:
        name = measure.trec_name
        for i, topic in enumerate(result.topics):
            if topic in empty and name == "num_rel":
                continue  # pytrec_eval reports 0 judged-relevant for an empty ranking; trec_eval -c does not
            ours, theirs = float(result[measure][i]), reference[topic][name]
            assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-9), (name, topic, ours, theirs)


def _write_trec(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(rows))
    return path


def _files(tmp: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> tuple[Path, Path]:
    """TREC files with mixed separators, a comment and a blank line; run rows in scrambled order."""
    qrel_rows = ["# judgements\n"] + [f"{t} 0\t{d}  {r}\n" for t, docs in qrels.items() for d, r in docs.items()]
    run_rows = [f"{t}\tQ0 {d} 0 {s!r} run\n" for t, docs in run.items() for d, s in docs.items()]
    run_rows = run_rows[1::2] + ["\n"] + run_rows[::2]
    return _write_trec(tmp / "qrels", qrel_rows), _write_trec(tmp / "run", run_rows)


settings.register_profile("retrieval", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(settings.get_profile("retrieval"))
@given(qrels=qrels_strategy, run=run_strategy, level=st.sampled_from([1, 1, 2, 3]), judged_only=st.booleans())
def test_dicts_agree_with_pytrec_eval(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
                                      level: int, judged_only: bool) -> None:
    reference = _reference(qrels, run, level, judged_only)
    result = evaluate(qrels, run, OURS, relevance_level=level, judged_only=judged_only)
    _compare(result, reference, {t for t, docs in run.items() if not docs})


@settings(settings.get_profile("retrieval"))
@given(qrels=qrels_strategy, run=run_strategy, level=st.sampled_from([1, 2]))
def test_files_agree_with_pytrec_eval(tmp_path: Path, qrels: dict[str, dict[str, int]],
                                      run: dict[str, dict[str, float]], level: int) -> None:
    run = {t: docs for t, docs in run.items() if docs}  # a TREC file cannot hold an empty ranking
    qrels_path, run_path = _files(tmp_path, qrels, run)
    reference = _reference(qrels, run, level) if run else {}
    result = evaluate(qrels_path, run_path, OURS, relevance_level=level)
    _compare(result, reference, set())


@settings(settings.get_profile("retrieval"))
@given(qrels=qrels_strategy, run=run_strategy, arrow=st.booleans())
def test_dataframes_agree_with_pytrec_eval(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
                                           arrow: bool) -> None:
    pd = pytest.importorskip("pandas")
    run = {t: docs for t, docs in run.items() if docs}
    kind = "str" if arrow else object
    qrels_frame = pd.DataFrame([(t, d, r) for t, docs in qrels.items() for d, r in docs.items()],
                               columns=["query_id", "doc_id", "relevance"]).astype({"doc_id": kind})
    run_frame = pd.DataFrame([(t, d, s) for t, docs in run.items() for d, s in docs.items()],
                             columns=["query_id", "doc_id", "score"]).astype({"doc_id": kind})
    reference = _reference(qrels, run, 1) if run else {}
    _compare(evaluate(qrels_frame, run_frame, OURS), reference, set())
