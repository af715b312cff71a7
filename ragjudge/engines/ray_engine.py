"""The Ray engine (extra ``ray``): the local engine's batches, scored by Ray Data workers on a cluster.

The input becomes a Ray Dataset: JSON lines (``.jsonl``/``.ndjson``, read as text so every record goes
through the same :func:`~ragjudge.data.sample_from_record` as locally), Parquet (a file or directory), on any
filesystem Ray reads (local, ``s3://``, ``gs://``...), or samples already in memory. It is cut into blocks of
exactly ``batch_size`` rows in input order, so each ``map_batches`` call scores exactly the batch the local
engine would, with :func:`ragjudge.evaluate.score_batch`. Cheap judges (overlap, tfidf, none) run as Ray
tasks; any other judge (nli, embedding, llm) runs in an actor pool whose actors build their judges once, each
with ``num_gpus`` when the cluster has GPUs. Outcomes stream back in input order and are aggregated once with
:func:`ragjudge.evaluate.collect`: the numbers are those of the local engine.

Connecting: ``ray.address`` in the config (or ``--ray-address``), else ``$RAY_ADDRESS``, else a local Ray is
started (and shut down at the end). A Ray already initialised in this process is used as it is.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragjudge.config import RunConfig, build_metrics
from ragjudge.data import read_samples
from ragjudge.engines import ray_worker
from ragjudge.engines.settings import RaySettings
from ragjudge.engines.shards import ShardWriter
from ragjudge.errors import DataError, MissingDependencyError
from ragjudge.evaluate import assign_ids, collect
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.records import Sample
from ragjudge.results import EvaluationResult

__all__ = ["CHEAP_JUDGES", "connect", "evaluate_ray", "import_ray"]

CHEAP_JUDGES = frozenset({"overlap", "tfidf"})  # no model to load: plain tasks beat an actor pool
Source = str | Path | Sequence[str | Path] | Sequence[Sample]


def import_ray() -> Any:
    """The ``ray`` module with Ray Data, or :class:`MissingDependencyError` with the install line."""
    try:
        import ray
        import ray.data  # noqa: F401 - plain ``ray`` lacks Ray Data's dependencies
    except ImportError:
        raise MissingDependencyError("the ray engine", "ray", "ray") from None
    return ray


def connect(ray: Any, settings: RaySettings) -> bool:
    """Join the configured cluster, else ``$RAY_ADDRESS``, else start a local Ray; True when started here."""
    if ray.is_initialized():
        return False
    address = settings.address or os.environ.get("RAY_ADDRESS")
    if address:  # a cluster's size is its own: num_cpus may not be passed when joining one
        ray.init(address=address)
    else:
        ray.init(num_cpus=settings.num_cpus, include_dashboard=False)
    return True


def _is_sample_list(source: Any) -> bool:
    return isinstance(source, Sequence) and not isinstance(source, str) and bool(source) \
        and all(isinstance(s, Sample) for s in source)


def read_dataset(ray: Any, source: Source) -> tuple[Any, str]:
    """The source as a Ray Dataset and its batch format (:data:`ray_worker.LINES` or ``COLUMNS``)."""
    if _is_sample_list(source):
        samples = assign_ids(list(source))  # type: ignore[arg-type]
        rows = [{"text": s.model_dump_json(exclude_none=True)} for s in samples]
        return ray.data.from_items(rows), ray_worker.LINES
    paths = [str(p) for p in ([source] if isinstance(source, (str, Path)) else source)]
    if not paths:
        raise DataError("no input to evaluate")
    if all(p.lower().endswith((".jsonl", ".ndjson")) for p in paths):
        ds = ray.data.read_text(paths).map_batches(ray_worker.drop_blank_lines, batch_format="pyarrow")
        return ds, ray_worker.LINES
    if all(p.lower().endswith(".parquet") or not Path(p).suffix for p in paths):
        return ray.data.read_parquet(paths), ray_worker.COLUMNS
    if len(paths) == 1 and paths[0].lower().endswith((".json", ".csv")):  # small formats: read here
        return read_dataset(ray, read_samples(paths[0]))
    raise DataError(f"the ray engine reads .jsonl, .ndjson, .parquet, .json or .csv inputs, got {paths}")


def _needs_actors(config: RunConfig) -> bool:
    specs = [spec.judge or config.judge for spec in config.metrics]
    names = {spec.name.rpartition(":")[2] for spec in specs if spec is not None}
    return bool(names - CHEAP_JUDGES)


def _actor_args(ray: Any, settings: RaySettings) -> dict[str, Any]:
    """Actor-pool arguments: pool size, GPUs per actor when the cluster has any, restarts and retries."""
    cpus = int(ray.cluster_resources().get("CPU", 1) // settings.cpus_per_worker) or 1
    has_gpus = ray.cluster_resources().get("GPU", 0) > 0
    gpus = settings.num_gpus if settings.num_gpus is not None else (1.0 if has_gpus else 0.0)
    args: dict[str, Any] = {"concurrency": (1, settings.actor_pool_size or cpus),
                            "max_restarts": settings.max_restarts, "max_task_retries": settings.max_retries}
    return {**args, "num_gpus": gpus} if gpus else args


def score_dataset(ray: Any, ds: Any, fmt: str, config: RunConfig) -> Any:
    """The lazy dataset of encoded outcomes.

    Blocks of exactly ``batches_per_task`` local batches, in input order; each Ray call scores one block with
    one ``score_batch`` per local batch, so every batch starts where the local engine's does.
    """
    rows = config.batch_size * config.ray.batches_per_task
    blocks = ds.repartition(target_num_rows_per_block=rows, strict=True)
    args = (config.model_dump_json(), fmt, config.batch_size)
    common = {"batch_size": rows, "batch_format": "pyarrow", "num_cpus": config.ray.cpus_per_worker}
    with warnings.catch_warnings():  # Ray 2.60 has no named parameter for retries; the kwargs still work
        warnings.simplefilter("ignore", DeprecationWarning)
        if _needs_actors(config):
            return blocks.map_batches(ray_worker.ScoreActor, fn_constructor_args=args, **common,
                                      **_actor_args(ray, config.ray))
        return blocks.map_batches(ray_worker.score_task, fn_args=args, **common,
                                  max_retries=config.ray.max_retries)


def _gather(scored: Any, metrics: Sequence[Metric], writer: ShardWriter | None,
            on_progress: Callable[[int], None] | None) -> tuple[list[str], dict[str, list[Outcome]]]:
    """Stream the outcomes back in input order; positional ids for records without one; ids unique."""
    ids: list[str] = []
    seen: set[str] = set()
    outcomes: dict[str, list[Outcome]] = {m.name: [] for m in metrics}
    for batch in scored.iter_batches(batch_size=None, batch_format="pyarrow"):
        batch_ids = []
        for raw_id, encoded in zip(batch.column("id").to_pylist(), batch.column("outcomes").to_pylist(),
                                   strict=True):
            sid = str(len(ids) + 1) if raw_id is None else raw_id
            if sid in seen:
                raise DataError(f"duplicate id {sid!r}", line=len(ids) + 1, field="id")
            seen.add(sid)
            ids.append(sid)
            batch_ids.append(sid)
            for name, data in json.loads(encoded).items():
                outcomes[name].append(ray_worker.decode_outcome(data))
        if writer is not None:
            writer.write(batch_ids, {name: found[-len(batch_ids):] for name, found in outcomes.items()})
        if on_progress is not None:
            on_progress(len(ids))
    return ids, outcomes


def evaluate_ray(source: Source, config: RunConfig, *, output: str | Path | None = None,
                 output_format: str = "parquet", progress: bool = True,
                 on_progress: Callable[[int], None] | None = None,
                 config_path: str | Path | None = None) -> EvaluationResult:
    """Evaluate ``source`` on Ray as ``config`` says; same result as the local engine on the same input.

    ``output``: a directory that receives per-sample shards (``part-00000.parquet`` or ``.jsonl``) and
    ``summary.json``. ``on_progress`` is called with the number of samples done after each batch.
    ``config_path`` names the config file in configuration errors.
    """
    ray = import_ray()
    metrics = build_metrics(config, path=config_path)  # here too: fails early, names and describes metrics
    started = connect(ray, config.ray)
    context = ray.data.DataContext.get_current()
    saved = (context.execution_options.preserve_order, context.enable_progress_bars)
    context.execution_options.preserve_order = True
    context.enable_progress_bars = progress
    writer = None if output is None else ShardWriter(output, metrics, output_format)
    try:
        ds, fmt = read_dataset(ray, source)
        ids, outcomes = _gather(score_dataset(ray, ds, fmt, config), metrics, writer, on_progress)
        result = collect(ids, metrics, outcomes, seed=config.seed, resamples=config.bootstrap.resamples,
                         level=config.bootstrap.level)
        if writer is not None:
            writer.close(result)
        return result
    finally:
        context.execution_options.preserve_order, context.enable_progress_bars = saved
        for judge in {id(m.judge): m.judge for m in metrics if m.judge is not None}.values():
            judge.close()
        if started:
            ray.shutdown()
