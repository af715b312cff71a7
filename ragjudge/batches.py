"""Columnar batches: a :class:`PairBatch` is a sequence of :class:`Pair`, a :class:`VerdictBatch` a sequence of
:class:`Verdict`, each also holding its items as columns.

The Judge contract does not change: ``judge_batch`` takes a sequence of pairs and returns a sequence of
verdicts, and any judge may iterate them one object at a time. Judges and metrics that know these classes read
and write the columns instead, which is how a batch of a million pairs is judged without building a million
Python objects. Items are built on access (validated fields, no re-validation), so both views agree exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import overload

import numpy as np

from ragjudge.records import Pair, Status, Task, Usage, Verdict, trusted

__all__ = ["PairBatch", "VerdictBatch"]

_STATUSES = (Status.OK, Status.FAILED, Status.SKIPPED)
_CODE = {status: code for code, status in enumerate(_STATUSES)}
_POSITIVE = frozenset({"supported", "relevant"})


class PairBatch(Sequence[Pair]):
    """Pairs as four equal-length columns: task, text, premises, query."""

    __slots__ = ("tasks", "texts", "premises", "queries")

    def __init__(self, tasks: list[Task], texts: list[str], premises: list[tuple[str, ...]],
                 queries: list[str]) -> None:
        if not len(tasks) == len(texts) == len(premises) == len(queries):
            raise ValueError("PairBatch columns must have equal lengths")
        self.tasks, self.texts, self.premises, self.queries = tasks, texts, premises, queries

    @classmethod
    def support(cls, claims: list[str], premises: list[tuple[str, ...]]) -> PairBatch:
        """Support pairs: claim i against premises i."""
        return cls([Task.SUPPORT] * len(claims), claims, premises, [""] * len(claims))

    @classmethod
    def relevance(cls, queries: list[str], texts: list[str]) -> PairBatch:
        """Relevance pairs: text i against query i."""
        return cls([Task.RELEVANCE] * len(texts), texts, [()] * len(texts), queries)

    @classmethod
    def of(cls, pairs: Sequence[Pair]) -> PairBatch:
        """The columns of any sequence of pairs (itself when it is already a batch)."""
        if isinstance(pairs, PairBatch):
            return pairs
        return cls([p.task for p in pairs], [p.text for p in pairs], [p.premises for p in pairs],
                   [p.query for p in pairs])

    @classmethod
    def concat(cls, batches: Iterable[PairBatch]) -> PairBatch:
        """One batch holding every pair of ``batches``, in order."""
        out = cls([], [], [], [])
        for b in batches:
            out.tasks += b.tasks
            out.texts += b.texts
            out.premises += b.premises
            out.queries += b.queries
        return out

    def keys(self) -> list[tuple[Task, str, tuple[str, ...], str]]:
        """A hashable identity per pair, for de-duplication."""
        return list(zip(self.tasks, self.texts, self.premises, self.queries))

    def take(self, index: Sequence[int]) -> PairBatch:
        """The pairs at ``index``, in that order."""
        return PairBatch([self.tasks[i] for i in index], [self.texts[i] for i in index],
                         [self.premises[i] for i in index], [self.queries[i] for i in index])

    def __len__(self) -> int:
        return len(self.texts)

    @overload
    def __getitem__(self, i: int) -> Pair: ...
    @overload
    def __getitem__(self, i: slice) -> PairBatch: ...
    def __getitem__(self, i: int | slice) -> Pair | PairBatch:
        if isinstance(i, slice):
            return self.take(range(len(self))[i])
        return trusted(Pair, task=self.tasks[i], text=self.texts[i], premises=self.premises[i],
                       query=self.queries[i])


class VerdictBatch(Sequence[Verdict]):
    """Verdicts as columns: scores, status codes, labels; reasons, rationales and usage kept sparse."""

    __slots__ = ("scores", "codes", "labels", "reasons", "rationales", "usages")

    def __init__(self, scores: np.ndarray, codes: np.ndarray, labels: list[str | None],
                 reasons: dict[int, str] | None = None, rationales: dict[int, str] | None = None,
                 usages: dict[int, Usage] | None = None) -> None:
        self.scores = np.asarray(scores, dtype=np.float64)
        self.codes = np.asarray(codes, dtype=np.int8)
        self.labels = labels
        self.reasons = reasons or {}
        self.rationales = rationales or {}
        self.usages = usages or {}
        if not len(self.scores) == len(self.codes) == len(self.labels):
            raise ValueError("VerdictBatch columns must have equal lengths")
        self._check()

    def _check(self) -> None:
        ok = self.codes == 0
        scores = self.scores[ok]
        if not np.all(np.isfinite(scores)) or np.any(scores < 0.0) or np.any(scores > 1.0):
            raise ValueError("ok verdicts need finite scores in [0, 1]")
        missing = [i for i in np.flatnonzero(~ok).tolist() if not self.reasons.get(i)]
        if missing:
            raise ValueError(f"failed or skipped verdicts need a reason (item {missing[0]})")

    @classmethod
    def of(cls, verdicts: Sequence[Verdict]) -> VerdictBatch:
        """The columns of any sequence of verdicts (itself when it is already a batch)."""
        if isinstance(verdicts, VerdictBatch):
            return verdicts
        scores = np.fromiter((v.score if v.score is not None else 0.0 for v in verdicts), np.float64,
                             len(verdicts))
        codes = np.fromiter((_CODE[v.status] for v in verdicts), np.int8, len(verdicts))
        reasons = {i: v.reason for i, v in enumerate(verdicts) if v.reason is not None}
        rationales = {i: v.rationale for i, v in enumerate(verdicts) if v.rationale is not None}
        usages = {i: v.usage for i, v in enumerate(verdicts) if v.usage is not None}
        return cls(scores, codes, [v.label for v in verdicts], reasons, rationales, usages)

    @property
    def positive(self) -> np.ndarray:
        """Mask of ok verdicts labelled ``supported`` or ``relevant``."""
        named = np.fromiter(map(_POSITIVE.__contains__, self.labels), bool, len(self.labels))
        mask: np.ndarray = (self.codes == 0) & named
        return mask

    def take(self, index: np.ndarray) -> VerdictBatch:
        """The verdicts at ``index`` (positions may repeat), in that order."""
        positions = index.tolist()

        def remap(sparse: dict[int, object]) -> dict[int, object]:
            return {new: sparse[old] for new, old in enumerate(positions) if old in sparse} if sparse else {}

        return VerdictBatch(self.scores[index], self.codes[index], [self.labels[i] for i in positions],
                            remap(self.reasons), remap(self.rationales), remap(self.usages))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.labels)

    @overload
    def __getitem__(self, i: int) -> Verdict: ...
    @overload
    def __getitem__(self, i: slice) -> list[Verdict]: ...
    def __getitem__(self, i: int | slice) -> Verdict | list[Verdict]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        if i < 0:
            i += len(self)
        code = int(self.codes[i])
        return trusted(Verdict, score=float(self.scores[i]) if code == 0 else None, label=self.labels[i],
                       status=_STATUSES[code], reason=self.reasons.get(i), rationale=self.rationales.get(i),
                       usage=self.usages.get(i))
