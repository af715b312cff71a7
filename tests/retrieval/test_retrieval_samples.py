"""The seed's per-sample API, now on the vectorised engine: the reference article's numbers, and samples."""

from __future__ import annotations

import math

import pytest

from ragjudge.errors import DataError
from ragjudge.records import Sample
from ragjudge.retrieval import (
    average_precision,
    evaluate,
    evaluate_samples,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

RETRIEVED = ["doc_eu_carbon", "doc_canada_2019", "doc_canada_2023", "doc_carbon_mechanisms", "doc_canada_provinces"]
GRADED = {"doc_canada_2019": 2.0, "doc_canada_2023": 3.0, "doc_carbon_mechanisms": 1.0, "doc_canada_provinces": 1.0}
RELEVANT = set(GRADED)


@pytest.mark.parametrize(("k", "precision", "recall", "ndcg"), [(3, "0.667", "0.500", "0.574"),
                                                               (5, "0.800", "1.000", "0.632")])
def test_reference_article_numbers(k: int, precision: str, recall: str, ndcg: str) -> None:
    """The article prints these with exponential gain (2^rel - 1); 3 decimals, as printed."""
    assert f"{precision_at_k(RETRIEVED, RELEVANT, k):.3f}" == precision
    assert f"{recall_at_k(RETRIEVED, RELEVANT, k):.3f}" == recall
    assert f"{ndcg_at_k(RETRIEVED, GRADED, k, gain='exponential'):.3f}" == ndcg


def test_reference_article_mrr() -> None:
    assert f"{mean_reciprocal_rank([RETRIEVED], [RELEVANT]):.3f}" == "0.500"
    assert reciprocal_rank(RETRIEVED, RELEVANT) == 0.5


def test_linear_gain_is_the_default() -> None:
    dcg = 2 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(RETRIEVED, GRADED, 3) == pytest.approx(dcg / ideal, rel=1e-12)


def test_trec_eval_semantics_for_short_rankings_and_missing_documents() -> None:
    assert precision_at_k(["a"], {"a"}, 5) == 0.2  # P_k divides by k, as trec_eval's does
    assert average_precision(["a", "x"], {"a", "b"}) == 0.5  # unretrieved relevant documents count
    assert recall_at_k(["x"], set(), 3) == 0.0  # nothing relevant: 0, not an error
    assert ndcg_at_k([], {"a": 1.0}, 3) == 0.0


def test_relevant_as_list_set_or_grades() -> None:
    assert average_precision(RETRIEVED, list(RELEVANT)) == average_precision(RETRIEVED, GRADED)
    assert average_precision(RETRIEVED, RELEVANT) == pytest.approx((1 / 2 + 2 / 3 + 3 / 4 + 4 / 5) / 4)
    assert mean_average_precision([RETRIEVED, ["doc_canada_2023"]], [RELEVANT, {"doc_canada_2023"}]) == \
        pytest.approx(((1 / 2 + 2 / 3 + 3 / 4 + 4 / 5) / 4 + 1) / 2)
    assert mean_reciprocal_rank([], []) == 0.0


def test_a_document_ranked_twice_is_refused() -> None:
    with pytest.raises(DataError, match="ranked twice"):
        precision_at_k(["a", "b", "a"], {"a"}, 3)


def test_evaluate_samples_values_and_skips() -> None:
    samples = [
        Sample(id="q1", retrieved_ids=RETRIEVED, relevance=GRADED),
        Sample(id="q2", retrieved_ids=None, relevant_ids=["a"]),           # no ranking: skipped
        Sample(id="q3", retrieved_ids=["a", "b"]),                          # no labels: skipped
        Sample(id="q4", retrieved_ids=[], relevant_ids=["a"]),             # found nothing: 0
        Sample(id="q5", retrieved_ids=["b", "a"], relevant_ids=["a"]),
    ]
    out = evaluate_samples(samples, ["nDCG(gain=exponential)@3", "RR", "num_rel"])
    assert list(out) == ["nDCG(gain=exponential)@3", "RR", "num_rel"]
    assert f"{out['nDCG(gain=exponential)@3'][0]:.3f}" == "0.574"
    assert out["RR"] == [0.5, None, None, 0.0, 0.5]
    assert out["num_rel"] == [4.0, None, None, 1.0, 1.0]


def test_evaluate_samples_matches_the_engine_on_dicts() -> None:
    rankings = {"q1": ["c", "a", "b", "d"], "q2": ["x", "y"], "q3": ["a"]}
    grades = {"q1": {"a": 2.0, "d": 1.0, "e": 3.0}, "q2": {"y": 1.0}, "q3": {"b": 0.0}}
    samples = [Sample(id=q, retrieved_ids=r, relevance=grades[q]) for q, r in rankings.items()]
    run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}
    measures = ["nDCG@3", "AP", "P@2", "Rprec", "Success@1"]
    expected = evaluate(grades, run, measures)
    out = evaluate_samples(samples, measures)
    for m in measures:
        assert out[m] == [float(expected[m][expected.topics.index(q)]) for q in rankings]


def test_evaluate_samples_refuses_duplicates_naming_the_sample() -> None:
    with pytest.raises(DataError, match="sample q9.*'a'"):
        evaluate_samples([Sample(id="q9", retrieved_ids=["a", "a"], relevant_ids=["a"])], ["P@1"])


def test_evaluate_samples_empty() -> None:
    assert evaluate_samples([], ["P@1", "AP"]) == {"P@1": [], "AP": []}
