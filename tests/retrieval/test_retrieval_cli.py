"""``ragjudge retrieval``: output that diffs cleanly against trec_eval's, JSON, and the comparison of two runs."""

from __future__ import annotations

import argparse
import json

import pytest
from retrieval_fixtures import trec_file

from ragjudge import cli
from ragjudge.cli import retrieval as retrieval_cli
from ragjudge.errors import DataError


def _run(argv: list[str]) -> int:
    """The subcommand through its own parser (the same ``register``/``run`` the main CLI uses)."""
    parser = argparse.ArgumentParser(prog="ragjudge")
    retrieval_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["retrieval", *argv])
    code: int = args.func(args)
    return code


def _files() -> list[str]:
    return [str(trec_file("qrels.test")), str(trec_file("results.test"))]


def test_output_diffs_cleanly_against_trec_eval(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's acceptance line: -q -m ndcg_cut_10 -m map -m P_5 against out.test.aq's lines."""
    assert _run([*_files(), "-q", "-m", "ndcg_cut_10", "-m", "map", "-m", "P_5"]) == 0
    names = {"ndcg_cut_10", "map", "P_5"}
    expected = [line for line in trec_file("out.test.aq").read_text().splitlines(keepends=True)
                if line.split("\t")[0].strip() in names]
    assert capsys.readouterr().out == "".join(expected)


def test_trec_eval_option_spellings(capsys: pytest.CaptureFixture[str]) -> None:
    """-c and -M, trec_eval's parameter syntax (ndcg_cut.10, P.5), against out.test.aqcM."""
    qrels, run = str(trec_file("qrels.test")), str(trec_file("results.trunc"))
    assert _run([qrels, run, "-q", "-c", "-M", "100", "-m", "ndcg_cut.10", "-m", "P.5,30", "-m", "num_q"]) == 0
    names = {"ndcg_cut_10", "P_5", "P_30", "num_q"}
    expected = [line for line in trec_file("out.test.aqcM").read_text().splitlines(keepends=True)
                if line.split("\t")[0].strip() in names]
    assert capsys.readouterr().out == "".join(expected)


def test_relevance_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([str(trec_file("qrels.rel_level")), str(trec_file("results.test")), "-l", "2", "-m", "map"]) == 0
    expected = [line for line in trec_file("out.test.aql").read_text().splitlines(keepends=True)
                if line.startswith("map ") and "\tall\t" in line]
    assert capsys.readouterr().out == "".join(expected)


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([*_files(), "-q", "-m", "map", "-m", "nDCG(gain=exponential)@10", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["run"] == "STANDARD" and out["num_q"] == 3
    assert f"{out['all']['map']:.4f}" == "0.1785"
    assert set(out["topics"]) == {"301", "302", "303"}
    assert "nDCG(gain=exponential)@10" in out["topics"]["301"]


def test_compare(capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, b = (str(trec_file(n)) for n in ("qrels.test", "results.test", "results.trunc"))
    assert _run(["compare", qrels, a, b, "-c", "-m", "map", "-m", "P.10", "--resamples", "500"]) == 0
    text = capsys.readouterr().out
    assert "map" in text and "P_10" in text and "topics in both: 3" in text
    assert _run(["compare", qrels, a, b, "-c", "-m", "map", "--format", "json", "--resamples", "500"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["measure"] == "map" and rows[0]["n"] == 3 and 0 < rows[0]["p_t"] <= 1


def test_errors(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    assert _run([*_files(), "-m", "bpref"]) == 2
    assert "unsupported measure 'bpref'" in capsys.readouterr().err
    assert _run([_files()[0]]) == 2
    assert "expected QRELS RUN" in capsys.readouterr().err
    with pytest.raises(DataError):
        _run([_files()[0], _files()[0]])  # qrels lines are not run lines


def test_registered_in_the_main_cli(capsys: pytest.CaptureFixture[str]) -> None:
    if "retrieval" not in cli._COMMANDS:
        pytest.skip("ragjudge.cli._COMMANDS does not list 'retrieval' yet (the lead wires subcommands)")
    assert cli.main(["retrieval", *_files(), "-m", "map"]) == 0
    assert capsys.readouterr().out == "map                   \tall\t0.1785\n"


def test_report_helpers() -> None:
    from ragjudge.retrieval import evaluate
    from ragjudge.retrieval.report import select_trec, to_json

    selection = select_trec(["P.10,5", "P_5", "map", "nDCG@3", "runid"])
    assert [str(m) for m in selection.measures] == ["AP", "P@5", "P@10", "nDCG@3"]
    assert selection.runid and not selection.num_q
    result = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, selection.measures)
    assert to_json(result, per_query=False) == {"run": None, "num_q": 1,
                                                "all": {"map": 1.0, "P_5": 0.2, "P_10": 0.1, "ndcg_cut_3": 1.0}}
    with pytest.raises(ValueError, match="cutoffs"):
        select_trec(["P.0"])
    with pytest.raises(ValueError, match="take cutoffs"):
        select_trec(["map.5"])
