"""The ``tfidf`` judge: TF-IDF cosine similarity, vectorised over a whole batch with scikit-learn.

The reference article fits a ``TfidfVectorizer`` on each (query, answer) pair. With ``idf="pair"`` (default)
this judge gives exactly those scores, but fits one vocabulary per batch and computes every pair's two-document
IDF in closed form with sparse matrix operations: with scikit-learn's smoothed IDF over two documents a word in
both has idf 1 and a word in one has idf ``1 + ln(3/2)``. Scores therefore do not depend on how pairs are
batched. ``idf="batch"`` instead weighs words by their IDF over all texts of the batch (more informative on a
large batch, but then a pair's score depends on its batch).

``support``: the best cosine between the claim and any premise; ``relevance``: cosine of text and query.
Labels use ``threshold`` / ``relevance_threshold`` (score must reach them). A text with no word tokens gets a
``skipped`` verdict (the article returned 0.0 there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import Field
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from ragjudge.batches import PairBatch, VerdictBatch
from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.records import Pair, Task

__all__ = ["TfidfJudge"]

_ONE_DOC_IDF = 1.0 + math.log(3.0 / 2.0)  # smoothed idf of a word in one of two documents


class TfidfJudge(Judge):
    """TF-IDF cosine judge of support and relevance (no model, no network)."""

    name = "tfidf"
    version = "1"
    pause_gc = True  # in-process, allocation-light, no cycles: see Judge
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    class Options(JudgeOptions):
        """N-gram range, sublinear tf, stop words and IDF scope of the vectoriser, and label thresholds."""

        threshold: float = Field(0.5, ge=0.0, le=1.0, description="support: cosine to reach")
        relevance_threshold: float = Field(0.3, ge=0.0, le=1.0, description="relevance: cosine to reach")
        ngram_min: int = Field(1, ge=1)
        ngram_max: int = Field(1, ge=1)
        sublinear_tf: bool = False
        stop_words: Literal["none", "english"] = "none"
        idf: Literal["pair", "batch"] = "pair"

    options: Options

    def judge_batch(self, pairs: Sequence[Pair]) -> VerdictBatch:
        """Vectorise every distinct text of the batch once, then score all (text, source) rows at once."""
        batch = PairBatch.of(pairs)
        support = [t is Task.SUPPORT for t in batch.tasks]
        sources = [p if s else (q,) for p, q, s in zip(batch.premises, batch.queries, support)]
        flat = [text for group in sources for text in group]
        owner = np.repeat(np.arange(len(batch)), [len(s) for s in sources])
        texts = list(dict.fromkeys(batch.texts + flat))
        position = {t: i for i, t in enumerate(texts)}
        rows_a = np.fromiter(map(position.__getitem__, batch.texts), np.int64, len(batch))[owner]
        rows_b = np.fromiter(map(position.__getitem__, flat), np.int64, len(flat))
        cosines, empty = self._cosines(texts, rows_a, rows_b)
        return self._verdicts(np.asarray(support, dtype=bool), cosines, empty, owner)

    def _vectoriser_args(self) -> dict[str, Any]:
        opts = self.options
        return {
            "ngram_range": (opts.ngram_min, max(opts.ngram_min, opts.ngram_max)),
            "stop_words": None if opts.stop_words == "none" else "english",
            "dtype": np.float64,
        }

    def _cosines(self, texts: list[str], a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cosine per (a, b) row, and a mask of rows where either side has no tokens."""
        if self.options.idf == "batch":
            matrix = TfidfVectorizer(sublinear_tf=self.options.sublinear_tf, **self._vectoriser_args())
            x = _fit(matrix, texts)
            cos = np.asarray(x[a].multiply(x[b]).sum(axis=1)).ravel()
            nnz = np.diff(x.indptr)
            return cos, (nnz[a] == 0) | (nnz[b] == 0)
        counts = _fit(CountVectorizer(**self._vectoriser_args()), texts)
        if self.options.sublinear_tf:
            counts.data = 1.0 + np.log(counts.data)
        xa, xb = counts[a], counts[b]
        dot = np.asarray(xa.multiply(xb).sum(axis=1)).ravel()  # shared words have idf 1
        sq_a = xa.multiply(xa)
        sq_b = xb.multiply(xb)
        shared_a = np.asarray(sq_a.multiply(xb > 0).sum(axis=1)).ravel()
        shared_b = np.asarray(sq_b.multiply(xa > 0).sum(axis=1)).ravel()
        c2 = _ONE_DOC_IDF**2
        norm_a = np.sqrt(c2 * np.asarray(sq_a.sum(axis=1)).ravel() - (c2 - 1.0) * shared_a)
        norm_b = np.sqrt(c2 * np.asarray(sq_b.sum(axis=1)).ravel() - (c2 - 1.0) * shared_b)
        empty = (norm_a == 0) | (norm_b == 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.where(empty, 0.0, dot / (norm_a * norm_b))
        return cos, empty

    def _verdicts(self, support: np.ndarray, cos: np.ndarray, empty: np.ndarray, owner: np.ndarray
                  ) -> VerdictBatch:
        best = np.full(len(support), -1.0)
        np.maximum.at(best, owner[~empty], np.clip(cos[~empty], 0.0, 1.0))
        skipped = best < 0.0
        score = np.where(skipped, 0.0, best)
        positive = score >= np.where(support, self.options.threshold, self.options.relevance_threshold)
        labels = _LABELS[np.where(support, 0, 2) + np.where(positive, 0, 1)].tolist()
        reasons = {}
        for i in np.flatnonzero(skipped).tolist():
            labels[i] = None
            reasons[i] = "no word tokens to compare"
        return VerdictBatch(score, np.where(skipped, 2, 0), labels, reasons)


_LABELS = np.array(["supported", "unsupported", "relevant", "irrelevant"], dtype=object)


def _fit(vectoriser: CountVectorizer, texts: list[str]) -> Any:
    """Fit-transform ``texts`` as CSR; a batch with no tokens at all gives an all-zero matrix."""
    try:
        return vectoriser.fit_transform(texts).tocsr()
    except ValueError:  # "empty vocabulary": every text is empty or stop words
        from scipy.sparse import csr_matrix

        return csr_matrix((len(texts), 1), dtype=np.float64)
