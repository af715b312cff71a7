"""The pipeline: batching, counts, determinism, failures kept, never NaN."""

from __future__ import annotations

import gc
import json
import math

import pytest

from ragjudge.errors import DataError
from ragjudge.evaluate import evaluate
from ragjudge.judges.overlap import OverlapJudge
from ragjudge.judges.tfidf import TfidfJudge
from ragjudge.metrics.generation import AnswerRelevance, Faithfulness
from ragjudge.records import Pair, Sample, Verdict
from ragjudge.stats import bootstrap_mean_ci
from tests.conftest import ScriptedJudge

SAMPLES = [
    Sample(question=f"what about item {i}?", contexts=[f"item {i} is red and round."],
           answer=f"Item {i} is red. It is {'round' if i % 3 else 'square'} and heavy.")
    for i in range(40)
] + [Sample(question="q", contexts=["c"], answer="")]


def run(batch_size: int = 7, seed: int = 0) -> dict:
    metrics = [Faithfulness(OverlapJudge()), AnswerRelevance(TfidfJudge())]
    return evaluate(SAMPLES, metrics, batch_size=batch_size, seed=seed, progress=False).to_dict()


def test_counts_add_up_and_ids_are_generated_in_order() -> None:
    result = run()
    summary = result["summary"]["faithfulness"]
    assert summary["n"] == 41 == summary["n_scored"] + summary["n_failed"] + summary["n_skipped"]
    assert summary["n_skipped"] == 1
    assert [s["id"] for s in result["samples"]] == [str(i) for i in range(1, 42)]
    assert result["samples"][-1]["metrics"]["faithfulness"] == {
        "score": None, "status": "skipped", "reason": "empty answer"}


def test_batch_size_does_not_change_anything() -> None:
    assert run(batch_size=1) == run(batch_size=1000)


def test_same_input_same_bytes_and_seed_matters() -> None:
    assert json.dumps(run()) == json.dumps(run())
    values = [i / 97 for i in range(97)]
    assert bootstrap_mean_ci(values, seed=1) != bootstrap_mean_ci(values, seed=0)
    assert bootstrap_mean_ci(values, seed=1) == bootstrap_mean_ci(values, seed=1)


def test_interval_brackets_the_mean() -> None:
    s = run()["summary"]["answer_relevance"]
    assert s["ci95"][0] <= s["mean"] <= s["ci95"][1]
    assert s["mean"] == pytest.approx(
        sum(x["metrics"]["answer_relevance"]["score"] or 0 for x in run()["samples"]) / s["n_scored"])
    assert s["ci95"][0] < s["ci95"][1]


def test_a_judge_that_raises_fails_items_and_the_run_goes_on() -> None:
    def answer(pair: Pair) -> Verdict:
        if "item 3 " in pair.text or "Item 3 " in pair.text:
            raise RuntimeError("model exploded")
        return Verdict(score=1.0, label="supported")

    result = evaluate(SAMPLES, [Faithfulness(ScriptedJudge(answer))], batch_size=5, progress=False)
    summary = result.summary["faithfulness"]
    assert summary.n_failed == 5  # the whole batch holding item 3 (ids 1-5), each with the error
    assert summary.n_scored == 35 and summary.mean == 1.0
    assert "RuntimeError: model exploded" in (result.outcomes["faithfulness"][3].reason or "")


@pytest.mark.parametrize("pause_gc", [False, True])
def test_the_collector_is_paused_only_where_allowed_and_always_restored(pause_gc: bool) -> None:
    seen: list[bool] = []

    def answer(pair: Pair) -> Verdict:
        seen.append(gc.isenabled())
        if "Item 3 " in pair.text:
            raise RuntimeError("boom")
        return Verdict(score=1.0, label="supported")

    judge = ScriptedJudge(answer)
    judge.pause_gc = pause_gc  # type: ignore[misc]
    assert gc.isenabled()
    evaluate(SAMPLES, [Faithfulness(judge)], batch_size=5, progress=False)
    assert gc.isenabled()
    assert seen and set(seen) == {not pause_gc}
    gc.disable()
    try:  # a caller who turned the collector off keeps it off
        evaluate(SAMPLES[:3], [Faithfulness(judge)], progress=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_scored_sample_gives_null_mean_not_nan() -> None:
    result = evaluate([Sample(answer="")], [Faithfulness(OverlapJudge())], progress=False).to_dict()
    summary = result["summary"]["faithfulness"]
    assert summary["mean"] is None and summary["ci95"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in summary.values())


def test_duplicate_ids_are_an_error() -> None:
    with pytest.raises(DataError, match="duplicate id 'a'"):
        evaluate([Sample(id="a"), Sample(id="a")], [Faithfulness(OverlapJudge())], progress=False)


def test_outputs_in_three_formats(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = evaluate(SAMPLES[:3], [Faithfulness(OverlapJudge())], progress=False)
    for suffix in ("json", "jsonl", "csv"):
        result.write(tmp_path / f"out.{suffix}")
    assert json.loads((tmp_path / "out.json").read_text())["schema_version"] == 1
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert rows[0] == {"id": "1", "faithfulness": 0.5, "faithfulness.status": "ok", "faithfulness.reason": None}
    header = (tmp_path / "out.csv").read_text().splitlines()[0]
    assert header == "id,faithfulness,faithfulness.status,faithfulness.reason"
