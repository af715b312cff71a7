"""benchmarks/nli_aggregations.py: its ``judge`` rule is the nli judge and faithfulness metric unchanged."""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_nli import build_model, build_tokenizer  # noqa: E402

from ragjudge.evaluate import evaluate  # noqa: E402
from ragjudge.judges.nli import NLIJudge  # noqa: E402
from ragjudge.metrics.generation import Faithfulness  # noqa: E402
from ragjudge.records import Sample, Status  # noqa: E402

PREMISE = ("The cat sat on the mat. It was a sunny day in the town. The dog ran after a red ball. "
           "Later it rained and everyone went home.")
ROWS = [
    {"answer": "The cat sat on the mat.", "contexts": [PREMISE]},
    {"answer": "The dog ran after the ball. It rained later on. Everyone stayed home.", "contexts": [PREMISE]},
    {"answer": "A sunny day in the town. The cat ran.", "contexts": ["The cat slept all day.", PREMISE]},
    {"answer": "   ", "contexts": [PREMISE]},  # empty answer: skipped
    {"answer": "The cat sat on the mat.", "contexts": ["  "]},  # no contexts: skipped
]


@pytest.fixture
def aggregations(nli_aggregations_benchmark: ModuleType) -> ModuleType:
    return nli_aggregations_benchmark


def test_the_judge_rule_equals_the_metric_on_the_judge(aggregations: ModuleType) -> None:
    judge = NLIJudge({"window_sentences": 1, "window_overlap": 0, "evidence_sentences": 2, "max_length": 40},
                     pretrained=(build_model(None), build_tokenizer()))
    answers = aggregations.windows_of(judge, ROWS)
    assert [a is None for a in answers] == [False, False, False, True, True]
    assert [len(a) for a in answers[:3]] == [1, 3, 2]  # claims
    assert len(answers[2][0]) == 2  # premises of a claim
    samples = [Sample(id=str(i), answer=r["answer"], contexts=r["contexts"]) for i, r in enumerate(ROWS)]
    result = evaluate(samples, [Faithfulness(judge, claim_scoring="min")], resamples=10, progress=False)
    outcomes = result.outcomes["faithfulness"]
    expected = [o.score if o.status is Status.OK else 0.5 for o in outcomes]
    assert aggregations.apply(aggregations.judge, answers) == pytest.approx(expected, abs=1e-12)
    assert len(set(expected[:3])) == 3  # the model does tell the answers apart


def test_rules_by_hand(aggregations: ModuleType) -> None:
    one = [[np.array([0.2, 0.8])]]  # one claim, one premise with two windows
    two = [[np.array([0.2, 0.8])], [np.array([0.6]), np.array([0.3, 0.1, 0.4])]]
    assert aggregations.judge(two) == pytest.approx(0.6) and aggregations.mean(two) == pytest.approx(0.7)
    assert aggregations.claim_count(1.0)(one) == pytest.approx(0.8)  # log 1 = 0: one claim is not moved
    logit = math.log(0.6 / 0.4) + math.log(2)
    assert aggregations.claim_count(1.0)(two) == pytest.approx(1 / (1 + math.exp(-logit)))
    # two windows lower 0.8 by log 2 in logits; the second claim's best premise is then the one-window 0.6
    lowered = 1 / (1 + math.exp(-(math.log(0.8 / 0.2) - math.log(2))))
    assert aggregations.window_count(1.0)(two) == pytest.approx(min(lowered, 0.6))
    assert aggregations.softmin(1e-3)(two) == pytest.approx(0.6, abs=1e-3)  # t -> 0: the min
    assert aggregations.judge(two) < aggregations.softmin(1.0)(two) < aggregations.mean(two) + 0.1
    # contrast: 0.8 against windows of mean logit (log .25 + log 4) / 2 = 0, so unmoved; 0.6 alone -> 0.5 at beta 1
    assert aggregations.window_contrast(1.0)(one) == pytest.approx(0.8)
    third = math.log(0.4 / 0.6) - (math.log(0.3 / 0.7) + math.log(0.1 / 0.9) + math.log(0.4 / 0.6)) / 3
    assert aggregations.window_contrast(1.0)(two) == pytest.approx(min(0.8, max(0.5, 1 / (1 + math.exp(-third)))))
    assert aggregations.window_contrast(0.0)(two) == pytest.approx(aggregations.judge(two))
