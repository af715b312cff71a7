"""Judge specifications for meta-evaluation: ``name``, ``name:key=value,key=value``, or a config file.

Values are read as JSON when they parse (``threshold=0.6``, ``lowercase=false``) and as strings otherwise.
A name may be pinned to a distribution (``ragjudge:overlap``); options follow the last colon and contain
``=``. The reserved key ``as`` names the judge in reports (``nli:model=runs/best,as=nli-best``). A config
file (``.yaml``, ``.yml``, ``.toml``) gives the judge of the meta-evaluated metric (its own, else the default
judge) and that metric's options.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragjudge.config import JudgeSpec, load_config
from ragjudge.errors import ConfigError

__all__ = ["JudgeChoice", "parse_judge_spec", "unique_labels"]

_CONFIG_SUFFIXES = (".yaml", ".yml", ".toml")


@dataclass(frozen=True)
class JudgeChoice:
    """One judge to meta-evaluate: its report label, its spec, and options for the metric it serves."""

    label: str
    judge: JudgeSpec
    metric_options: dict[str, Any] = field(default_factory=dict)


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _options(text: str, spec: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"expected key=value in judge spec {spec!r}, got {item!r}", path="command line",
                              key="--judge")
        options[key.strip()] = _value(raw.strip())
    return options


def _from_config(path: Path, metric: str) -> JudgeChoice:
    config = load_config(path)
    listed = [m for m in config.metrics if m.name == metric]
    judge = (listed[0].judge if listed else None) or config.judge
    if judge is None:
        raise ConfigError(f"no judge for metric {metric!r}", path=path, key="judge")
    options = dict(listed[0].options) if listed else {}
    return JudgeChoice(label=path.stem, judge=judge, metric_options=options)


def parse_judge_spec(text: str, metric: str = "faithfulness") -> JudgeChoice:
    """The :class:`JudgeChoice` a ``--judge`` argument describes."""
    text = text.strip()
    if text.lower().endswith(_CONFIG_SUFFIXES):
        return _from_config(Path(text), metric)
    head, sep, tail = text.rpartition(":")
    name, options = (head, _options(tail, text)) if sep and "=" in tail else (text, {})
    if not name:
        raise ConfigError(f"judge spec {text!r} has no judge name", path="command line", key="--judge")
    label = str(options.pop("as", text))
    return JudgeChoice(label=label, judge=JudgeSpec(name=name, options=options))


def unique_labels(choices: list[JudgeChoice]) -> list[JudgeChoice]:
    """The choices with repeated labels suffixed ``#2``, ``#3``... so every report row is distinct."""
    seen: dict[str, int] = {}
    out = []
    for choice in choices:
        seen[choice.label] = seen.get(choice.label, 0) + 1
        if seen[choice.label] > 1:
            choice = JudgeChoice(f"{choice.label}#{seen[choice.label]}", choice.judge, choice.metric_options)
        out.append(choice)
    return out
