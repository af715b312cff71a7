from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from ragjudge.records import Pair, Sample, Status, Task, Verdict, trusted


@pytest.mark.parametrize(
    "record",
    [
        {"user_input": "q", "retrieved_contexts": ["c"], "response": "a", "reference": "r"},
        {"question": "q", "contexts": ["c"], "answer": "a", "ground_truth": "r"},
        {"question": "q", "contexts": "c", "answer": "a", "reference": "r"},
    ],
    ids=["ragas", "ragas-legacy", "single-context-string"],
)
def test_sample_accepts_ragas_and_legacy_names(record: dict[str, object]) -> None:
    sample = Sample.model_validate(record)
    assert (sample.question, sample.contexts, sample.answer, sample.reference) == ("q", ["c"], "a", "r")


def test_sample_rejects_unknown_fields_and_bad_types() -> None:
    with pytest.raises(ValidationError):
        Sample.model_validate({"question": "q", "answr": "typo"})
    with pytest.raises(ValidationError):
        Sample.model_validate({"contexts": [1, {}]})


def test_graded_relevance_from_relevant_ids() -> None:
    assert Sample(relevant_ids=["a", "b"]).graded_relevance() == {"a": 1.0, "b": 1.0}
    assert Sample(relevance={"a": 2}).graded_relevance() == {"a": 2.0}
    assert Sample().graded_relevance() is None


@pytest.mark.parametrize("score", [math.nan, math.inf, -0.1, 1.5, None], ids=str)
def test_ok_verdict_needs_finite_score_in_unit_interval(score: float | None) -> None:
    with pytest.raises(ValidationError):
        Verdict(score=score, label="supported")


def test_failed_and_skipped_verdicts_carry_reason_not_score() -> None:
    assert Verdict.failed("timeout").status is Status.FAILED
    with pytest.raises(ValidationError):
        Verdict(status=Status.FAILED)
    with pytest.raises(ValidationError):
        Verdict(status=Status.SKIPPED, score=0.5, reason="x")


def test_pairs_are_hashable_and_equal_by_value() -> None:
    a = Pair.support("claim", ["p1", "p2"])
    b = Pair(task=Task.SUPPORT, text="claim", premises=("p1", "p2"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert Pair.relevance("q", "t") != Pair.support("t", ["q"])


def test_trusted_construction_equals_validated() -> None:
    fast = trusted(Verdict, score=0.5, label="supported", status=Status.OK, reason=None, rationale=None,
                   usage=None)
    assert fast == Verdict(score=0.5, label="supported")
    assert fast.model_dump() == Verdict(score=0.5, label="supported").model_dump()
