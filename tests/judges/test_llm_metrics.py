"""The llm judge inside the evaluation pipeline: failures are counted next to the mean, never averaged in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fault_server import OK, Action, FaultServer, status
from test_llm_faults import make_judge

from ragjudge.evaluate import evaluate
from ragjudge.judges.llm_claims import LLMClaimSplitter
from ragjudge.metrics.generation import Faithfulness
from ragjudge.records import Sample, Status


def _fail_marked(index: int, body: Any) -> Action:
    """HTTP 400 (not retried) for any request about a claim marked FAIL."""
    return status(400) if "FAIL" in body["messages"][1]["content"] else OK


def test_faithfulness_mean_is_over_scored_samples_with_counts(fault_server: FaultServer,
                                                              tmp_path: Path) -> None:
    samples = [Sample(id=str(i), answer=f"Claim {i} holds{' FAIL' if i % 5 == 0 else ''}"
                      f"{' NEGATIVE' if i % 2 else ''}.", contexts=[f"Context {i}."]) for i in range(20)]
    fault_server.chooser = _fail_marked
    # An explicit format: a 400 is then a failure of the item, never read as the server refusing a format.
    judge = make_judge(fault_server, tmp_path, max_concurrency=4, response_format="json_object")
    result = evaluate(samples, [Faithfulness(judge)], resamples=50)

    summary = result.summary["faithfulness"]
    outcomes = result.outcomes["faithfulness"]
    assert summary.n == 20 and summary.n_scored + summary.n_failed + summary.n_skipped == 20
    assert summary.n_failed == 4 and all(o.reason for o in outcomes if o.status is Status.FAILED)
    scored = [o.score for o in outcomes if o.status is Status.OK and o.score is not None]
    assert len(scored) == summary.n_scored == 16
    assert summary.mean is not None and abs(summary.mean - sum(scored) / len(scored)) < 1e-12
    assert summary.usage is not None and summary.usage.requests == fault_server.count


def test_llm_claim_splitter_plugs_into_a_metric(fault_server: FaultServer, tmp_path: Path) -> None:
    splitter = LLMClaimSplitter({"model": "m", "base_url": fault_server.base_url, "logprobs": False,
                                 "cache_path": str(tmp_path / "claims.db")})
    judge = make_judge(fault_server, tmp_path)
    samples = [Sample(id="a", answer="Paris is in France. Rome NEGATIVE is in Spain.", contexts=["Paris."])]
    result = evaluate(samples, [Faithfulness(judge, splitter=splitter)], resamples=10)
    assert result.outcomes["faithfulness"][0].score == 0.5  # two claims from the model, one supported
