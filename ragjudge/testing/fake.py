"""``FakeJudge``: a judge whose verdicts are scripted, for testing metrics, pipelines and release gates.

A script says what to answer for each pair, as one of:

* a mapping from the pair's ``text`` (the claim, or the answer judged for relevance), or from the
  :class:`~ragjudge.records.Pair` itself, to a score or a :class:`~ragjudge.records.Verdict`;
* a function of the pair returning a score or a verdict;
* a sequence of scores or verdicts, handed out in call order (not deterministic across calls, on purpose).

A score becomes an ok verdict labelled by ``threshold``. A pair the script does not cover gets ``default``
as its score, or, when ``default`` is ``None``, a failed verdict saying it was not scripted. Every batch the
judge receives is kept in ``calls``. The ``scores`` option is a script given as plain options::

    FakeJudge({"scores": {"Paris is in France.": 1.0}, "default": 0.0})
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import Field

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.records import Pair, Task, Verdict

__all__ = ["FakeJudge", "Script"]

Answer = float | Verdict
Script = Mapping[str, Answer] | Mapping[Pair, Answer] | Callable[[Pair], Answer] | Sequence[Answer]

_LABELS = {Task.SUPPORT: ("supported", "unsupported"), Task.RELEVANCE: ("relevant", "irrelevant")}


class FakeJudge(Judge):
    """A judge of support and relevance that answers from a script (see the module docstring)."""

    name = "fake"
    version = "1"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    class Options(JudgeOptions):
        """Scores by pair text, the score of anything else (``None``: failed verdict), the label threshold."""

        scores: dict[str, float] = Field(default_factory=dict, description="pair text -> score in [0, 1]")
        default: float | None = Field(None, ge=0.0, le=1.0, description="score of an unscripted pair")
        threshold: float = Field(0.5, ge=0.0, le=1.0, description="score a positive label must reach")

    options: Options

    def __init__(self, options: JudgeOptions | Mapping[str, Any] | None = None, *,
                 script: Script | None = None, **kwargs: Any) -> None:
        """``script`` is consulted before ``options.scores``; see the module docstring for its forms."""
        super().__init__(options, **kwargs)
        bad = {k: v for k, v in self.options.scores.items() if not 0.0 <= v <= 1.0}
        if bad:
            raise ValueError(f"scripted scores must be in [0, 1], got {bad}")
        self.script = script
        self._queue: Iterator[Answer] | None = None
        if isinstance(script, Sequence) and not isinstance(script, str):
            self._queue = iter(script)
        self.calls: list[list[Pair]] = []

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """Answer every pair from the script, recording the batch."""
        self.calls.append(list(pairs))
        return [self._answer(pair) for pair in pairs]

    def _lookup(self, pair: Pair) -> Answer | None:
        script = self.script
        if self._queue is not None:
            return next(self._queue, None)
        if isinstance(script, Mapping):
            found: Answer | None = script.get(pair, script.get(pair.text))  # type: ignore[call-overload]
            if found is not None:
                return found
        elif callable(script):
            return script(pair)
        return self.options.scores.get(pair.text)

    def _answer(self, pair: Pair) -> Verdict:
        found = self._lookup(pair)
        if found is None:
            found = self.options.default
        if found is None:
            return Verdict.failed(f"no answer scripted for {pair.task.value} pair {pair.text!r}")
        if isinstance(found, Verdict):
            return found
        positive, negative = _LABELS[pair.task]
        return Verdict(score=float(found), label=positive if found >= self.options.threshold else negative)
