"""Conformance checks every judge must pass, ours and plugins' alike (after scikit-learn's check_estimator).

:func:`check_judge` runs them all and raises :class:`ConformanceError` listing every failure.
:func:`judge_checks` gives them one by one, as named callables, for ``pytest.mark.parametrize``;
:func:`parametrize_judge_checks` is that decorator ready-made. A judge may be given by instance, by registered
name (``"tfidf"``, ``"distribution:name"``) or as a factory; names and factories are built once, on first use.
The checks call :meth:`Judge.judge_batch` directly, so a judge that raises is caught, not excused.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ragjudge.batches import PairBatch
from ragjudge.errors import JudgeTaskError
from ragjudge.judges.base import Judge
from ragjudge.records import Pair, Task, Verdict
from ragjudge.testing.corpus import blank_pairs, long_pairs, regular_pairs, same_verdicts, verdict_problem
from ragjudge.testing.options import check_fingerprint, check_options

__all__ = [
    "CHECKS", "ConformanceError", "JudgeCheck", "check_judge", "judge_checks", "parametrize_judge_checks",
]

JudgeLike = Judge | str | Callable[[], Judge]


class ConformanceError(AssertionError):
    """A judge breaks the contract; the message names the check and what was seen."""


@dataclass(frozen=True)
class JudgeCheck:
    """One named check bound to one judge; calling it runs the check (raises :class:`ConformanceError`)."""

    id: str
    run: Callable[[], None]

    def __call__(self) -> None:
        self.run()


def _call(judge: Judge, pairs: Sequence[Pair], columnar: bool = False) -> list[Verdict]:
    """``judge_batch`` on ``pairs`` (a list, or ``columnar``: a PairBatch), checked for count and validity."""
    try:
        returned = judge.judge_batch(PairBatch.of(pairs) if columnar else list(pairs))
    except Exception as error:
        raise ConformanceError(f"judge_batch raised {type(error).__name__}: {error}") from error
    if not isinstance(returned, Sequence):
        raise ConformanceError(f"judge_batch returned a {type(returned).__name__}, not a sequence of verdicts")
    verdicts = list(returned)
    if len(verdicts) != len(pairs):
        raise ConformanceError(f"judge_batch returned {len(verdicts)} verdicts for {len(pairs)} pairs")
    for i, (pair, verdict) in enumerate(zip(pairs, verdicts, strict=True)):
        problem = verdict_problem(pair, verdict)
        if problem:
            raise ConformanceError(f"verdict {i} ({_show(pair)}): {problem}")
    return verdicts


def _show(pair: Pair) -> str:
    text = pair.text if len(pair.text) < 60 else pair.text[:57] + "..."
    return f"{pair.task.value} pair {text!r}"


def _expect_same(first: Sequence[Verdict], second: Sequence[Verdict], pairs: Sequence[Pair], what: str,
                 tolerance: float) -> None:
    i = same_verdicts(first, second, tolerance)
    if i is not None:
        raise ConformanceError(f"{what}: verdict {i} ({_show(pairs[i])}) differs: "
                               f"{first[i]!r} vs {second[i]!r}")


def check_count_and_order(judge: Judge, tolerance: float) -> None:
    """One verdict per pair, reversing the batch reverses the verdicts, columnar input changes nothing."""
    pairs = regular_pairs(judge.tasks)
    forward = _call(judge, pairs)
    backward = _call(judge, pairs[::-1])[::-1]
    _expect_same(forward, backward, pairs, "reversing the batch did not reverse its verdicts", tolerance)
    _expect_same(forward, _call(judge, pairs, columnar=True), pairs, "a PairBatch vs a list of pairs", tolerance)


def check_scores_and_statuses(judge: Judge, tolerance: float) -> None:
    """Every verdict valid: a Status; ok ones with a finite score in [0, 1] and the task's label."""
    for pairs in (regular_pairs(judge.tasks), blank_pairs(judge.tasks)):
        _call(judge, pairs)


def check_determinism(judge: Judge, tolerance: float) -> None:
    """Equal verdicts for the same batch twice and for a pair repeated in a batch; the fingerprint holds."""
    pairs = regular_pairs(judge.tasks)
    fingerprint = judge.fingerprint
    first = _call(judge, pairs)
    _expect_same(first, _call(judge, pairs), pairs, "judging the same batch twice", tolerance)
    if judge.fingerprint != fingerprint:
        raise ConformanceError("judging changed the fingerprint")
    _expect_same(first[:1], first[-1:], pairs[:1], "the same pair twice in one batch", tolerance)


def check_empty_strings(judge: Judge, tolerance: float) -> None:
    """Blank claims, premises, queries and texts get valid verdicts (typically skipped), never an error."""
    _call(judge, blank_pairs(judge.tasks))


def check_long_input(judge: Judge, tolerance: float) -> None:
    """A very long claim, premise, query or text gets a valid verdict, never an exception."""
    _call(judge, long_pairs(judge.tasks))


def check_batch_size_invariance(judge: Judge, tolerance: float) -> None:
    """Verdicts do not depend on how pairs are batched: whole, in twos, one by one."""
    pairs = regular_pairs(judge.tasks) + blank_pairs(judge.tasks)
    whole = _call(judge, pairs)
    for size in (2, 1):
        split = [v for start in range(0, len(pairs), size) for v in _call(judge, pairs[start:start + size])]
        _expect_same(whole, split, pairs, f"batches of {size} vs one batch", tolerance)


def check_declared_tasks(judge: Judge, tolerance: float) -> None:
    """Tasks are declared, approximate ones among them, and an undeclared task is refused."""
    if not judge.tasks or not all(isinstance(t, Task) for t in judge.tasks):
        raise ConformanceError(f"tasks must be a non-empty set of Task values, got {judge.tasks!r}")
    if not judge.approximate_tasks <= judge.tasks:
        raise ConformanceError(f"approximate_tasks {set(judge.approximate_tasks)} are not all in tasks")
    for task in Task:
        if judge.supports(task) != (task in judge.tasks):
            raise ConformanceError(f"supports({task.value!r}) disagrees with tasks")
        if task not in judge.tasks:
            _expect_refusal(judge, task)


def _expect_refusal(judge: Judge, task: Task) -> None:
    pair = regular_pairs(frozenset({task}))[0]
    try:
        judge.judge([pair])
    except JudgeTaskError:
        return
    raise ConformanceError(f"judge() accepted a {task.value!r} pair, a task the judge does not declare")


CHECKS: dict[str, Callable[[Judge, float], None]] = {
    "count_and_order": check_count_and_order,
    "scores_and_statuses": check_scores_and_statuses,
    "determinism": check_determinism,
    "empty_strings": check_empty_strings,
    "long_input": check_long_input,
    "batch_size_invariance": check_batch_size_invariance,
    "declared_tasks": check_declared_tasks,
    "options_validated": lambda judge, tolerance: check_options(judge),
    "fingerprint": lambda judge, tolerance: check_fingerprint(judge),
}


class _Lazy:
    """Builds the judge once, on first use, so listing checks at collection time costs nothing."""

    def __init__(self, judge: JudgeLike) -> None:
        self._spec = judge
        self._judge = judge if isinstance(judge, Judge) else None

    def get(self) -> Judge:
        if self._judge is None:
            self._judge = self._build()
        return self._judge

    def _build(self) -> Judge:
        spec = self._spec
        if isinstance(spec, Judge):
            return spec
        if isinstance(spec, str):
            from ragjudge.judges.registry import create_judge

            return create_judge(spec)
        return spec()


def _run(lazy: _Lazy, check: Callable[[Judge, float], None], tolerance: float) -> None:
    check(lazy.get(), tolerance)


def judge_checks(judge: JudgeLike, *, skip: Collection[str] = (),
                 tolerance: float = 1e-5) -> list[JudgeCheck]:
    """Every check (minus ``skip``) bound to ``judge``; scores may differ by ``tolerance`` where compared."""
    unknown = set(skip) - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown checks to skip: {sorted(unknown)}; checks are {list(CHECKS)}")
    lazy = _Lazy(judge)
    return [JudgeCheck(name, partial(_run, lazy, check, tolerance)) for name, check in CHECKS.items()
            if name not in skip]


def check_judge(judge: JudgeLike, *, skip: Collection[str] = (), tolerance: float = 1e-5) -> None:
    """Run every check; raise :class:`ConformanceError` listing all failures (not just the first)."""
    failures = []
    for check in judge_checks(judge, skip=skip, tolerance=tolerance):
        try:
            check()
        except ConformanceError as error:
            failures.append(f"{check.id}: {error}")
    if failures:
        raise ConformanceError("judge fails conformance:\n  " + "\n  ".join(failures))


def parametrize_judge_checks(judge: JudgeLike, *, skip: Iterable[str] = (), tolerance: float = 1e-5) -> Any:
    """``pytest.mark.parametrize("judge_check", ...)`` over :func:`judge_checks`, one test id per check."""
    import pytest

    checks = judge_checks(judge, skip=tuple(skip), tolerance=tolerance)
    return pytest.mark.parametrize("judge_check", checks, ids=[c.id for c in checks])

