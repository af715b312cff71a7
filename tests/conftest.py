"""Shared test helpers: where the shared labeled data lives, and a scripted judge for metric tests."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

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


def _benchmark(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``benchmarks/NAME.py`` loaded as a module (it sets HF_HUB_OFFLINE; the monkeypatch undoes that)."""
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def train_nli_benchmark(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return _benchmark("train_nli", monkeypatch)


@pytest.fixture
def nli_aggregations_benchmark(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return _benchmark("nli_aggregations", monkeypatch)


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
