"""Run configuration: which metrics, which judge (with options) serves each, and how to run.

A YAML (``.yaml``/``.yml``) or TOML (``.toml``) file, validated with pydantic::

    judge: {name: overlap, options: {threshold: 0.7}}   # default judge of every generation metric
    metrics:
      - faithfulness                                     # a name alone uses the default judge
      - name: answer_relevance
        judge: tfidf                                     # a judge name alone means default options
      - name: context_precision
        judge: {name: overlap, options: {relevance_threshold: 0.1}}
        options: {use_reference: true}
      - nDCG@5                                           # retrieval measures need no judge
    seed: 0
    batch_size: 256
    bootstrap: {resamples: 1000, level: 0.95}
    engine: local                                        # or ray, with settings under ray: (see docs/ray.md)

Unknown keys and bad values raise :class:`ConfigError` naming the file and the key path (``metrics.2.judge``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragjudge.engines.settings import RaySettings
from ragjudge.errors import ConfigError, PluginError, RagJudgeError
from ragjudge.judges.base import Judge
from ragjudge.metrics import Metric, build_metric, is_generation_metric

__all__ = [
    "BootstrapSpec", "JudgeSpec", "MetricSpec", "RunConfig", "build_metrics", "load_config", "parse_config",
    "with_overrides",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeSpec(_Strict):
    """A judge by registered name (or ``distribution:name``) and its options."""

    name: str = Field(min_length=1)
    options: dict[str, Any] = Field(default_factory=dict)

    def key(self) -> str:
        """Identity of this spec, so metrics with equal specs share one judge instance."""
        return json.dumps({"name": self.name, "options": self.options}, sort_keys=True, default=str)


def _shorthand(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


class MetricSpec(_Strict):
    """A metric by name, with its own judge (else the default one) and options."""

    name: str = Field(min_length=1)
    judge: JudgeSpec | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    _judge_shorthand = field_validator("judge", mode="before")(_shorthand)


class BootstrapSpec(_Strict):
    """Bootstrap interval settings."""

    resamples: int = Field(1000, ge=100)
    level: float = Field(0.95, gt=0.0, lt=1.0)


class RunConfig(_Strict):
    """A whole evaluation run."""

    judge: JudgeSpec | None = Field(default_factory=lambda: JudgeSpec(name="overlap"))
    metrics: list[MetricSpec] = Field(default_factory=lambda: [MetricSpec(name="faithfulness")])
    seed: int = 0
    batch_size: int = Field(256, ge=1)
    bootstrap: BootstrapSpec = Field(default_factory=BootstrapSpec)
    engine: Literal["local", "ray"] = "local"
    ray: RaySettings = Field(default_factory=RaySettings)

    _judge_shorthand = field_validator("judge", mode="before")(_shorthand)

    @field_validator("metrics", mode="before")
    @classmethod
    def _metric_shorthand(cls, value: Any) -> Any:
        return [_shorthand(v) for v in value] if isinstance(value, list) else value


def _read(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text) or {}
        if suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib
            return tomllib.loads(text)
    except Exception as error:  # the parsers' own errors carry the line; keep their message
        raise ConfigError(f"cannot parse: {error}", path=path) from None
    raise ConfigError(f"unsupported config type {suffix!r}; use .yaml, .yml or .toml", path=path)


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a config file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError("no such file", path=path)
    return parse_config(_read(path), path=path)


def parse_config(data: Any, *, path: str | Path | None = None) -> RunConfig:
    """Validate a config mapping; the first problem raises :class:`ConfigError` with its key path."""
    try:
        return RunConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(message, path=path, key=key) from None


def build_metrics(config: RunConfig, *, path: str | Path | None = None) -> list[Metric]:
    """Build every metric with its judge; equal judge specs share one judge instance."""
    from ragjudge.judges.registry import create_judge

    judges: dict[str, Judge] = {}
    metrics: list[Metric] = []
    for i, spec in enumerate(config.metrics):
        judge_spec = spec.judge or config.judge
        key_path = f"metrics.{i}.judge" if spec.judge else "judge"
        judge = None
        if is_generation_metric(spec.name):
            if judge_spec is None:
                raise ConfigError(f"metric {spec.name!r} needs a judge and no default judge is set",
                                  path=path, key=f"metrics.{i}")
            judge = judges.get(judge_spec.key())
            if judge is None:
                judge = _create(create_judge, judge_spec, path, key_path)
                judges[judge_spec.key()] = judge
        metrics.append(_metric(spec, judge, path, f"metrics.{i}"))
    return metrics


def _create(create: Any, spec: JudgeSpec, path: str | Path | None, key: str) -> Judge:
    try:
        judge: Judge = create(spec.name, spec.options)
    except PluginError as error:
        raise ConfigError(str(error), path=path, key=f"{key}.options") from None
    except RagJudgeError as error:
        raise ConfigError(str(error), path=path, key=f"{key}.name") from None
    return judge


def _metric(spec: MetricSpec, judge: Judge | None, path: str | Path | None, key: str) -> Metric:
    try:
        return build_metric(spec.name, judge, spec.options)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(first["msg"], path=path, key=f"{key}.options.{where}") from None
    except (RagJudgeError, ValueError) as error:
        raise ConfigError(str(error), path=path, key=f"{key}.name") from None


def with_overrides(config: RunConfig, *, metrics: list[str] | None = None, judge: str | None = None,
                   judge_options: Mapping[str, Any] | None = None, seed: int | None = None,
                   batch_size: int | None = None, engine: str | None = None,
                   ray_address: str | None = None, judge_defaults: Mapping[str, Any] | None = None) -> RunConfig:
    """The config with command-line overrides applied (a given judge replaces every metric's judge).

    ``judge_defaults`` (``--no-cache``, ``--cache-path``) go to every judge whose options declare them.
    """
    data = config.model_dump()
    if metrics:
        data["metrics"] = [{"name": m} for m in metrics]
    if judge is not None or judge_options:
        base = data.get("judge") or {"name": "overlap", "options": {}}
        same = judge is None or judge == base["name"]
        options = {**(base["options"] if same else {}), **dict(judge_options or {})}
        data["judge"] = {"name": judge or base["name"], "options": options}
        for spec in data["metrics"]:
            spec["judge"] = None
    if seed is not None:
        data["seed"] = seed
    if batch_size is not None:
        data["batch_size"] = batch_size
    if engine is not None:
        data["engine"] = engine
    if ray_address is not None:
        data["ray"] = {**data["ray"], "address": ray_address}
    if judge_defaults:
        specs = [data["judge"], *(m["judge"] for m in data["metrics"])]
        for spec in [s for s in specs if s]:
            _apply_declared(spec, judge_defaults)
    return parse_config(data, path="command line")


def _apply_declared(spec: dict[str, Any], values: Mapping[str, Any]) -> None:
    """Set each of ``values`` in a judge spec's options when that judge declares the option."""
    from ragjudge.judges.registry import load_judge_class

    try:
        declared = load_judge_class(spec["name"]).Options.model_fields
    except RagJudgeError:
        return  # an unknown or broken judge is reported, with its key path, when the metrics are built
    spec["options"] = {**spec["options"], **{k: v for k, v in values.items() if k in declared}}
