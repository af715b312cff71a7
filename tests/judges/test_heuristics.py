"""The overlap and tfidf judges against outside references: the article's function and scikit-learn."""

from __future__ import annotations

import json
import re

import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from ragjudge.judges.overlap import OverlapJudge
from ragjudge.judges.tfidf import TfidfJudge
from ragjudge.records import Pair, Status
from tests.conftest import shared_data


def article_check_entailment_simple(claim: str, context: str) -> bool:
    """The reference article's function, verbatim."""
    claim_words = set(claim.lower().split())
    context_words = set(context.lower().split())
    if not claim_words:
        return False
    overlap = len(claim_words.intersection(context_words))
    return overlap / len(claim_words) > 0.7


def article_tfidf(query: str, answer: str, **kwargs: object) -> float:
    vectorizer = TfidfVectorizer(**kwargs)  # type: ignore[arg-type]
    vectors = vectorizer.fit_transform([query, answer])
    return float(cosine_similarity(vectors[0:1], vectors[1:2])[0][0])


@pytest.fixture(scope="module")
def begin_rows() -> list[dict[str, object]]:
    with shared_data("faithfulness", "begin.jsonl").open() as fh:
        return [json.loads(line) for _, line in zip(range(600), fh)]


def test_overlap_with_article_options_gives_article_verdicts(begin_rows: list[dict]) -> None:
    judge = OverlapJudge(punctuation="keep")
    pairs, expected = [], []
    for row in begin_rows:
        for sentence in re.split(r"(?<=[.!?])\s+", row["answer"]):
            if sentence.strip():
                pairs.append(Pair.support(sentence, row["contexts"]))
                expected.append(any(article_check_entailment_simple(sentence, c) for c in row["contexts"]))
    verdicts = judge.judge(pairs)
    assert [v.label == "supported" for v in verdicts] == expected


def test_overlap_scores_and_labels() -> None:
    judge = OverlapJudge()
    support, relevance, empty = judge.judge([
        Pair.support("Paris is in France.", ["Berlin is in Germany", "paris is in france"]),
        Pair.relevance("capital of France?", "France"),
        Pair.support("...", ["anything"]),
    ])
    assert (support.score, support.label) == (1.0, "supported")
    assert relevance.score == pytest.approx(1 / 3) and relevance.label == "relevant"
    assert empty.status is Status.SKIPPED and "no words" in (empty.reason or "")


def test_overlap_stop_words_option() -> None:
    pair = Pair.support("the cat is on the mat", ["a cat sat on a mat"])
    plain = OverlapJudge().judge([pair])[0].score
    stopped = OverlapJudge(stop_words="english").judge([pair])[0].score
    assert plain == pytest.approx(3 / 5) and stopped == 1.0


@pytest.mark.parametrize(
    "options", [{}, {"sublinear_tf": True}, {"ngram_max": 2}], ids=["plain", "sublinear", "bigrams"]
)
def test_tfidf_pair_idf_equals_a_vectorizer_fitted_per_pair(begin_rows: list[dict], options: dict) -> None:
    judge = TfidfJudge(**options)
    rows = [r for r in begin_rows if r["question"].strip()]
    verdicts = judge.judge([Pair.relevance(r["question"], r["answer"]) for r in rows])
    kwargs = {"sublinear_tf": options.get("sublinear_tf", False), "ngram_range": (1, options.get("ngram_max", 1))}
    for row, verdict in zip(rows, verdicts):
        if verdict.status is Status.OK:
            assert verdict.score == pytest.approx(article_tfidf(row["question"], row["answer"], **kwargs), abs=1e-12)


def test_tfidf_support_takes_best_premise_and_is_batch_invariant() -> None:
    judge = TfidfJudge()
    pair = Pair.support("the eiffel tower is in paris", ["berlin wall", "the eiffel tower stands in paris"])
    alone = judge.judge([pair])[0]
    crowd = judge.judge([Pair.relevance("x y z", "y z w")] * 5 + [pair])[-1]
    assert alone == crowd
    assert alone.score == pytest.approx(article_tfidf(pair.text, pair.premises[1]))


def test_tfidf_empty_text_is_skipped_not_zero() -> None:
    verdict = TfidfJudge().judge([Pair.relevance("", "some answer")])[0]
    assert verdict.status is Status.SKIPPED and verdict.score is None


def test_options_are_validated_and_fingerprinted() -> None:
    with pytest.raises(ValueError):
        OverlapJudge(threshold=1.5)
    with pytest.raises(ValueError):
        TfidfJudge(unknown_option=1)
    a, b = OverlapJudge().fingerprint, OverlapJudge(threshold=0.5).fingerprint
    assert a == OverlapJudge().fingerprint and a["id"] != b["id"]
    assert a["name"] == "overlap" and a["options"]["threshold"] == 0.7
