"""Settings of the Ray engine, validated with the rest of the run configuration (``ray:`` in a config file).

::

    engine: ray
    ray:
      address: auto            # or ray://head:10001; unset: $RAY_ADDRESS, else start a local Ray
      num_cpus: 2              # only when starting a local Ray
      actor_pool_size: 4       # model judges: at most this many actors (each loads the model once)
      num_gpus: 1              # per model actor; unset: 1 when the cluster has GPUs, else 0
      batches_per_task: 8      # batch_size-sample batches scored per Ray call
      max_retries: 3           # a task whose worker died is rerun this many times
      max_restarts: 3          # an actor that died is restarted this many times (its calls retried)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RaySettings"]


class RaySettings(BaseModel):
    """How the Ray engine connects and schedules; none of it changes a score."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str | None = Field(None, description="cluster to join; unset: $RAY_ADDRESS, else start one")
    num_cpus: int | None = Field(None, ge=1, description="CPUs of a Ray started here (default: all)")
    actor_pool_size: int | None = Field(None, ge=1, description="most model-judge actors (default: CPUs)")
    num_gpus: float | None = Field(None, ge=0.0, description="GPUs per model actor (default: 1 if any exist)")
    cpus_per_worker: float = Field(1.0, gt=0.0, description="CPUs reserved by each task or actor")
    batches_per_task: int = Field(8, ge=1, description="local batches per Ray call (amortises its overhead)")
    max_retries: int = Field(3, ge=0, description="reruns of a task whose worker died")
    max_restarts: int = Field(3, ge=0, description="restarts of an actor that died")
