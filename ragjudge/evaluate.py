"""The evaluation pipeline: samples in -> one batched judge call per metric per batch -> results out.

:func:`score_batch` is the unit of work an engine schedules: it plans every metric's pairs for a batch of
samples, judges each metric's distinct pairs in one call, and reduces them to outcomes. :func:`evaluate` runs
it batch after batch on this machine, then aggregates once over all outcomes with :func:`summarise`, which is
why another engine that runs the same batches elsewhere reports exactly the same numbers.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import count

import numpy as np

from ragjudge.batches import VerdictBatch
from ragjudge.errors import DataError
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.progress import Progress
from ragjudge.records import Sample, Task
from ragjudge.results import EvaluationResult, summarise

__all__ = ["assign_ids", "collect", "evaluate", "judge_plans", "score_batch"]


@contextmanager
def _gc_paused(active: bool = True) -> Iterator[None]:
    """Pause the cyclic garbage collector (when ``active`` and it is running) for the ``with`` body.

    Planning and reducing allocate a container or two per pair or sample and make no cycles, yet each
    allocation counts towards a collection that walks every live object: on a batch of thousands of samples the
    collector took a third of the heuristic path's time. Disabling it does not reset its allocation count, so a
    pause around part of a batch only defers the work to the next allocation; with a judge that sets
    ``pause_gc`` the whole batch runs paused, otherwise only the planning and reducing steps.
    """
    if not active or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def judge_plans(metric: Metric, samples: Sequence[Sample]) -> list[Outcome]:
    """Plan ``metric`` on ``samples``, judge the distinct pairs in one call, reduce to one outcome per sample."""
    judge = metric.judge
    with _gc_paused(judge is not None and judge.pause_gc):
        with _gc_paused():
            plan = metric.plan_batch(samples)
            if not len(plan.pairs) or judge is None:
                return [d if d is not None else Outcome.fail("nothing was judged") for d in plan.decided]
            # Each pair maps to the position of its key's first occurrence (dict.setdefault in a C-level map).
            n = len(plan.pairs)
            index: dict[tuple[Task, str, tuple[str, ...], str], int] = {}
            first = np.fromiter(map(index.setdefault, plan.pairs.keys(), count()), np.int64, n)
            del index
            is_first = first == np.arange(n)
            distinct = bool(is_first.all())
            if not distinct:
                inverse = (np.cumsum(is_first) - 1)[first]
                unique = plan.pairs.take(np.flatnonzero(is_first).tolist())
        judged = VerdictBatch.of(judge.judge(plan.pairs if distinct else unique))
        with _gc_paused():
            return metric.reduce_batch(samples, plan, judged if distinct else judged.take(inverse))


def score_batch(metrics: Sequence[Metric], samples: Sequence[Sample]) -> dict[str, list[Outcome]]:
    """Every metric's outcomes on one batch of samples."""
    return {metric.name: judge_plans(metric, samples) for metric in metrics}


def assign_ids(samples: Sequence[Sample]) -> list[Sample]:
    """Samples with an id each: input ids kept, the 1-based position for those without; ids must be unique."""
    out: list[Sample] = []
    seen: dict[str, int] = {}
    for position, sample in enumerate(samples, start=1):
        if sample.id is None:
            sample = sample.model_copy(update={"id": str(position)})
        sid = sample.id or ""
        if sid in seen:
            raise DataError(f"duplicate id {sid!r} (first at record {seen[sid]})", line=position, field="id")
        seen[sid] = position
        out.append(sample)
    return out


def evaluate(
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    batch_size: int = 256,
    seed: int = 0,
    resamples: int = 1000,
    level: float = 0.95,
    progress: bool | None = None,
) -> EvaluationResult:
    """Score ``samples`` with ``metrics`` locally, in batches; summaries carry means, intervals and counts.

    ``progress`` shows a bar on standard error (``None``: only when it is a terminal). Nothing is dropped: every
    sample has an outcome for every metric, scored, failed or skipped with a reason.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise ValueError(f"metric names must be unique, got {names}")
    samples = assign_ids(samples)
    outcomes: dict[str, list[Outcome]] = {name: [] for name in names}
    bar = Progress(len(samples), "evaluating", enabled=progress)
    for start in range(0, len(samples), batch_size):
        batch = samples[start:start + batch_size]
        for name, found in score_batch(metrics, batch).items():
            outcomes[name].extend(found)
        bar.advance(len(batch))
    bar.close()
    return collect([s.id or "" for s in samples], metrics, outcomes, seed=seed, resamples=resamples, level=level)


def collect(ids: list[str], metrics: Sequence[Metric], outcomes: dict[str, list[Outcome]], *, seed: int,
            resamples: int, level: float) -> EvaluationResult:
    """Aggregate per-sample outcomes into a result (the engine-independent last step)."""
    summary = {
        m.name: summarise(outcomes[m.name], m.describe()["judge"], seed=seed, resamples=resamples, level=level)
        for m in metrics
    }
    return EvaluationResult(ids=ids, outcomes=outcomes, summary=summary)
