"""Generation metrics on hand-made samples with a scripted judge: definitions, skips, failures."""

from __future__ import annotations

import pytest

from ragjudge.errors import JudgeTaskError
from ragjudge.evaluate import judge_plans
from ragjudge.judges.base import Judge
from ragjudge.metrics import build_metric
from ragjudge.metrics.claims import is_question
from ragjudge.metrics.generation import (
    AnswerCorrectness,
    AnswerRelevance,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
)
from ragjudge.records import Pair, Sample, Status, Task, Verdict
from tests.conftest import ScriptedJudge


def by_word(word: str, score: float = 0.9) -> ScriptedJudge:
    """Supported/relevant when the claim (support) or the text (relevance) contains ``word``."""

    def answer(pair: Pair) -> Verdict:
        hit = word in pair.text
        if pair.task is Task.SUPPORT:
            return Verdict(score=score if hit else 0.1, label="supported" if hit else "unsupported")
        return Verdict(score=score if hit else 0.1, label="relevant" if hit else "irrelevant")

    return ScriptedJudge(answer)


SAMPLE = Sample(
    id="s",
    question="Where is the tower?",
    contexts=["The tower is in Paris.", "Bread is tasty.", "Paris is big."],
    answer="The tower is in Paris. It was painted green yesterday.",
    reference="The tower stands in Paris.",
)


def test_faithfulness_is_supported_claims_over_claims() -> None:
    outcome = judge_plans(Faithfulness(by_word("Paris")), [SAMPLE])[0]
    assert outcome.score == 0.5 and outcome.status is Status.OK


def test_faithfulness_score_mode_averages_claim_scores() -> None:
    outcome = judge_plans(Faithfulness(by_word("Paris"), claim_scoring="score"), [SAMPLE])[0]
    assert outcome.score == pytest.approx((0.9 + 0.1) / 2)


def test_faithfulness_min_mode_takes_the_weakest_claim() -> None:
    outcome = judge_plans(Faithfulness(by_word("Paris"), claim_scoring="min"), [SAMPLE, SAMPLE])
    assert [o.score for o in outcome] == [pytest.approx(0.1), pytest.approx(0.1)]


def test_answer_correctness_min_mode_takes_the_weakest_claim_per_side() -> None:
    sample = SAMPLE.model_copy(update={"reference": "Paris is the capital. Paris has many museums."})
    outcome = judge_plans(AnswerCorrectness(by_word("Paris"), claim_scoring="min"), [sample])[0]
    assert outcome.components["recall"] == pytest.approx(0.9)
    assert outcome.components["precision"] == pytest.approx(0.1)


def test_each_claim_is_judged_against_all_contexts_in_one_batch() -> None:
    judge = by_word("Paris")
    judge_plans(Faithfulness(judge), [SAMPLE, SAMPLE])
    assert len(judge.batches) == 1
    assert len(judge.batches[0]) == 2  # identical pairs of the two samples are judged once
    assert judge.batches[0][0].premises == tuple(SAMPLE.contexts)


def test_context_precision_is_rank_weighted_with_fraction_component() -> None:
    outcome = judge_plans(ContextPrecision(by_word("Paris"), use_reference=False), [SAMPLE])[0]
    # relevant at ranks 1 and 3: (1/1 + 2/3) / 2
    assert outcome.score == pytest.approx((1 + 2 / 3) / 2)
    assert outcome.components == {"fraction": pytest.approx(2 / 3)}


def test_context_precision_uses_reference_when_given() -> None:
    judge = by_word("Paris")
    judge_plans(ContextPrecision(judge), [SAMPLE])
    assert {p.query for p in judge.batches[0]} == {SAMPLE.reference}


def test_context_recall_and_answer_correctness() -> None:
    recall = judge_plans(ContextRecall(by_word("Paris")), [SAMPLE])[0]
    assert recall.score == 1.0
    correctness = judge_plans(AnswerCorrectness(by_word("Paris")), [SAMPLE])[0]
    # answer claims: 1 of 2 contain Paris; reference claims: 1 of 1
    assert correctness.components == {"precision": 0.5, "recall": 1.0}
    assert correctness.score == pytest.approx(2 * 0.5 * 1.0 / 1.5)


def test_answer_relevance_is_the_judge_score() -> None:
    assert judge_plans(AnswerRelevance(by_word("Paris", 0.8)), [SAMPLE])[0].score == 0.8


@pytest.mark.parametrize(
    ("metric", "sample", "reason"),
    [
        ("faithfulness", Sample(contexts=["c"], answer=""), "empty answer"),
        ("faithfulness", Sample(contexts=["  "], answer="An answer here."), "no contexts"),
        ("answer_relevance", Sample(question="", answer="a"), "empty question"),
        ("context_precision", Sample(question="q"), "no contexts"),
        ("context_recall", Sample(contexts=["c"]), "no reference"),
        ("answer_correctness", Sample(answer="An answer."), "no reference"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_missing_input_is_skipped_with_reason_never_zero(metric: str, sample: Sample, reason: str) -> None:
    judge = by_word("x")
    outcome = judge_plans(build_metric(metric, judge), [sample])[0]
    assert outcome.status is Status.SKIPPED and outcome.score is None and outcome.reason == reason
    assert judge.batches == []


def test_a_failed_claim_fails_the_sample_with_the_reason() -> None:
    def answer(pair: Pair) -> Verdict:
        if "green" in pair.text:
            return Verdict.failed("judge timed out")
        return Verdict(score=1.0, label="supported")

    outcome = judge_plans(Faithfulness(ScriptedJudge(answer)), [SAMPLE])[0]
    assert outcome.status is Status.FAILED and outcome.score is None
    assert outcome.reason == "1 of 2 claim judgements failed: judge timed out"


def test_metric_refuses_a_judge_without_its_task() -> None:
    class SupportOnly(Judge):
        name = "support-only"
        tasks = frozenset({Task.SUPPORT})

        def judge_batch(self, pairs):  # type: ignore[no-untyped-def]
            return [Verdict(score=1.0, label="supported") for _ in pairs]

    with pytest.raises(JudgeTaskError, match="answer_relevance.*relevance"):
        AnswerRelevance(SupportOnly())
    Faithfulness(SupportOnly())  # fine


def test_metric_options_are_validated() -> None:
    with pytest.raises(ValueError):
        build_metric("faithfulness", by_word("x"), {"claim_scoring": "median"})
    with pytest.raises(ValueError):
        build_metric("faithfulness", by_word("x"), {"unknown": 1})


@pytest.mark.parametrize(("sentence", "question"), [
    ("Is it in Paris?", True), ('He asked "why?"', True), ("(Or was it Rome?)  ", True), ("Warum？", True),
    ("It is in Paris.", False), ("What? It is in Paris.", False), ("", False),
])
def test_is_question_reads_the_final_mark(sentence: str, question: bool) -> None:
    assert is_question(sentence) is question


def test_dropped_questions_are_not_claims() -> None:
    sample = SAMPLE.model_copy(update={"answer": "The tower is in Paris. Would you like to know more?"})
    kept = judge_plans(build_metric("faithfulness", by_word("Paris")), [sample])[0]
    assert kept.score == 0.5  # the article's definition: the question is an unsupported claim
    judge = by_word("Paris")
    dropped = judge_plans(build_metric("faithfulness", judge, {"questions": "drop"}), [sample])[0]
    assert dropped.score == 1.0 and dropped.status is Status.OK
    assert [p.text for p in judge.batches[0]] == ["The tower is in Paris."]


def test_an_answer_of_questions_only_is_skipped_when_questions_are_dropped() -> None:
    samples = [SAMPLE.model_copy(update={"id": "q", "answer": 'Is it in Paris? Or was it "Rome?"'}), SAMPLE]
    outcomes = judge_plans(Faithfulness(by_word("Paris"), questions="drop"), samples)
    assert outcomes[0].status is Status.SKIPPED and outcomes[0].score is None
    assert outcomes[0].reason == "no claims in the answer (questions are dropped)"
    assert outcomes[1].score == 0.5


def test_dropped_questions_apply_to_both_sides_of_answer_correctness() -> None:
    sample = SAMPLE.model_copy(update={"reference": "The tower stands in Paris. Who painted it?"})
    outcome = judge_plans(AnswerCorrectness(by_word("Paris"), questions="drop"), [sample])[0]
    assert outcome.components["recall"] == 1.0  # the reference's question is not a claim to cover
    assert outcome.components["precision"] == 0.5
