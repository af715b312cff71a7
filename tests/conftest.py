"""Shared test helpers: where the shared labeled data lives, and a scripted judge for metric tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ragjudge.judges.base import Judge
from ragjudge.records import Pair, Task, Verdict

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    """A file under ../shared/data, or a test failure saying where it was looked for."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"shared data not found at {path}: tests need ../shared/data beside the repository")
    return path


class ScriptedJudge(Judge):
    """Answers from a function of the pair; records every batch it was given."""

    name = "scripted"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    def __init__(self, answer: Callable[[Pair], Verdict]) -> None:
        super().__init__()
        self.answer = answer
        self.batches: list[list[Pair]] = []

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        self.batches.append(list(pairs))
        return [self.answer(p) for p in pairs]
