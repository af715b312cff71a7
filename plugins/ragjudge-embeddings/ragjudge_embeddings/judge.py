"""The ``embedding`` judge: cosine similarity of sentence embeddings, for a whole batch at once.

``relevance``: the cosine of the query's and the text's embeddings. ``support`` (declared *approximate*:
similarity is not entailment, "Paris is in France" and "Paris is not in France" are close): the largest cosine
between the claim and any sentence of any premise (``premise_unit="sentence"``) or any whole premise.

A cosine becomes a score in [0, 1] by clipping negatives to 0, or, with ``calibration: {low, high}``, by the
linear map that sends ``low`` to 0 and ``high`` to 1 (clipped outside). The label is positive when the score
reaches ``threshold`` (support) or ``relevance_threshold`` (relevance). An empty claim, query, text, or
premises with no text give a ``skipped`` verdict saying which.

Every distinct text of a batch is embedded once, and vectors are kept across batches (``cache_size`` texts),
so a context shared by many samples, or a question asked by several metrics, costs one forward pass per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.metrics.claims import SentenceSplitter
from ragjudge.records import Pair, Status, Task, Verdict, trusted
from ragjudge_embeddings.encoder import (
    DEFAULT_MODEL,
    Encoder,
    VectorCache,
    load_encoder,
    require_sentence_transformers,
)

__all__ = ["Calibration", "EmbeddingJudge"]

_LABELS = {Task.SUPPORT: ("supported", "unsupported"), Task.RELEVANCE: ("relevant", "irrelevant")}
_PREMISE_SENTENCES = SentenceSplitter(min_chars=0)


class Calibration(BaseModel):
    """A linear map of cosine to score: ``low`` goes to 0, ``high`` to 1, values outside are clipped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: float = Field(allow_inf_nan=False, description="cosine that scores 0")
    high: float = Field(allow_inf_nan=False, description="cosine that scores 1")

    @model_validator(mode="after")
    def _ordered(self) -> Calibration:
        if not self.low < self.high:
            raise ValueError(f"calibration needs low < high, got low={self.low}, high={self.high}")
        return self

    def apply(self, cosines: np.ndarray) -> np.ndarray:
        """Scores in [0, 1] for ``cosines``."""
        return np.clip((cosines - self.low) / (self.high - self.low), 0.0, 1.0)


class EmbeddingJudge(Judge):
    """Sentence-embedding similarity judge of relevance, and (approximately) of support."""

    name = "embedding"
    version = "1"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})
    approximate_tasks = frozenset({Task.SUPPORT})
    volatile_options = frozenset({"batch_size", "device", "cache_size"})

    class Options(JudgeOptions):
        """Model, score calibration, label thresholds, premise granularity, and how to run."""

        model: str = Field(DEFAULT_MODEL, min_length=1,
                           description="sentence-transformers name or path; the default is the packaged, "
                                       "offline all-MiniLM-L6-v2")
        calibration: Calibration | None = Field(None, description="linear map of cosine to [0, 1]")
        # 0.7: near the balanced-accuracy threshold meta-eval chose on BEGIN's calibration split (0.727)
        threshold: float = Field(0.7, ge=0.0, le=1.0, description="support: score to reach")
        relevance_threshold: float = Field(0.4, ge=0.0, le=1.0, description="relevance: score to reach")
        premise_unit: Literal["sentence", "premise"] = "sentence"
        batch_size: int = Field(64, ge=1, description="texts per forward pass")
        device: str = Field("cpu", min_length=1)
        cache_size: int = Field(100_000, ge=0, description="texts whose vectors are kept across batches")

    options: Options

    def __init__(self, options: JudgeOptions | Mapping[str, Any] | None = None, *,
                 encoder: Encoder | None = None, **kwargs: Any) -> None:
        """``encoder`` is a pre-built model (anything with ``SentenceTransformer.encode``), for tests."""
        super().__init__(options, **kwargs)
        if encoder is None:
            require_sentence_transformers()
        self._encoder = encoder
        self._cache = VectorCache(self._model, batch_size=self.options.batch_size,
                                  capacity=self.options.cache_size)

    def _model(self) -> Encoder:
        if self._encoder is None:
            self._encoder = load_encoder(self.options.model, self.options.device)
        return self._encoder

    @property
    def texts_encoded(self) -> int:
        """How many texts this judge has sent to its model (each distinct text once while cached)."""
        return self._cache.encoded

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """Embed every distinct text of the batch once, then score all (text, source) rows together."""
        texts: dict[str, int] = {}
        rows_a: list[int] = []
        rows_b: list[int] = []
        owner: list[int] = []
        empty: dict[int, str] = {}
        for i, pair in enumerate(pairs):
            target, sources = self._sides(pair)
            problem = _emptiness(pair, target, sources)
            if problem:
                empty[i] = problem
                continue
            a = texts.setdefault(target, len(texts))
            for source in sources:
                rows_a.append(a)
                rows_b.append(texts.setdefault(source, len(texts)))
                owner.append(i)
        best = np.full(len(pairs), -1.0)
        if rows_a:
            vectors = self._cache.matrix(list(texts))
            cos = np.einsum("ij,ij->i", vectors[rows_a], vectors[rows_b]).astype(np.float64)
            np.maximum.at(best, np.asarray(owner), np.clip(cos, -1.0, 1.0))
        return [Verdict.skipped(empty[i]) if i in empty else self._verdict(p, float(best[i]))
                for i, p in enumerate(pairs)]

    def _sides(self, pair: Pair) -> tuple[str, list[str]]:
        """The text to compare and what to compare it with, stripped, blanks dropped."""
        if pair.task is Task.RELEVANCE:
            return pair.text.strip(), [pair.query.strip()]
        premises = [p for p in pair.premises if p.strip()]
        if self.options.premise_unit == "sentence":
            premises = [s for sentences in _PREMISE_SENTENCES.split(premises) for s in sentences]
        return pair.text.strip(), [p.strip() for p in premises if p.strip()]

    def _verdict(self, pair: Pair, cosine: float) -> Verdict:
        calibration = self.options.calibration
        score = float(calibration.apply(np.float64(cosine))) if calibration else min(max(cosine, 0.0), 1.0)
        support = pair.task is Task.SUPPORT
        threshold = self.options.threshold if support else self.options.relevance_threshold
        label = _LABELS[pair.task][0 if score >= threshold else 1]
        return trusted(Verdict, score=score, label=label, status=Status.OK, reason=None,
                       rationale=f"cosine {cosine:.4f}", usage=None)

    def close(self) -> None:
        """Drop the model and the cached vectors (a later call loads the model again)."""
        self._cache.clear()
        self._encoder = None


def _emptiness(pair: Pair, target: str, sources: list[str]) -> str | None:
    """Why ``pair`` cannot be compared, or ``None``."""
    if pair.task is Task.RELEVANCE:
        if not sources[0]:
            return "the query is empty"
        return None if target else "the text is empty"
    if not target:
        return "the claim is empty"
    return None if sources else "the premises have no text"
