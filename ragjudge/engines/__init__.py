"""Engines: where the batched judge calls of an evaluation run.

``local`` (the default) scores batch after batch in this process (:mod:`ragjudge.engines.local`); ``ray``
schedules the same batches on a Ray cluster with Ray Data (:mod:`ragjudge.engines.ray_engine`, extra ``ray``).
Both score with :func:`ragjudge.evaluate.score_batch` on the same batches and aggregate once with
:func:`ragjudge.evaluate.collect`, so they report the same numbers. Importing this package imports no Ray.
"""

from __future__ import annotations

from ragjudge.engines.settings import RaySettings

__all__ = ["ENGINES", "RaySettings"]

ENGINES = ("local", "ray")
