"""The local engine: every batch scored in this process, one after another (the default, and the fastest for
small runs since nothing starts up).

A thin layer over :func:`ragjudge.evaluate.evaluate`, taking a :class:`~ragjudge.config.RunConfig` like the
Ray engine does, so callers can switch engines on ``config.engine`` alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.config import RunConfig, build_metrics
from ragjudge.evaluate import evaluate
from ragjudge.records import Sample
from ragjudge.results import EvaluationResult

__all__ = ["evaluate_local"]


def evaluate_local(samples: Sequence[Sample], config: RunConfig, *,
                   progress: bool | None = None) -> EvaluationResult:
    """Evaluate ``samples`` as ``config`` says, on this machine; judges are closed afterwards."""
    metrics = build_metrics(config)
    try:
        return evaluate(samples, metrics, batch_size=config.batch_size, seed=config.seed,
                        resamples=config.bootstrap.resamples, level=config.bootstrap.level, progress=progress)
    finally:
        for judge in {id(m.judge): m.judge for m in metrics if m.judge is not None}.values():
            judge.close()
