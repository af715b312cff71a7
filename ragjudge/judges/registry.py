"""Judge discovery through the ``ragjudge.judges`` entry-point group.

Built-in judges are declared in ragjudge's own pyproject under that group, exactly as a third party would.
:func:`available_judges` reads package metadata only and imports nothing; :func:`load_judge_class` imports one
entry point and checks it; :func:`create_judge` also validates the options. A plugin that fails to import is
reported by :func:`judge_report` with its error and never breaks the others.

Two distributions registering the same name are a conflict: neither is chosen silently, and the caller pins one
as ``distribution:name``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import ValidationError

from ragjudge.errors import PluginError, UnknownJudgeError
from ragjudge.judges.base import Judge, JudgeOptions

__all__ = [
    "GROUP",
    "JudgeEntry",
    "JudgeOptionsError",
    "JudgeReport",
    "available_judges",
    "create_judge",
    "judge_report",
    "load_judge_class",
]

GROUP = "ragjudge.judges"


class JudgeOptionsError(PluginError, ValueError):
    """Options given for a judge do not validate against its ``Options`` model."""


@dataclass(frozen=True)
class JudgeEntry:
    """One registered judge as package metadata describes it (nothing imported)."""

    name: str
    value: str
    distribution: str
    dist_version: str

    @property
    def qualified(self) -> str:
        """``distribution:name``, the form that pins one of two conflicting registrations."""
        return f"{self.distribution}:{self.name}"

    def describe(self) -> str:
        return f"{self.name} = {self.value} (from {self.distribution} {self.dist_version})"


@dataclass(frozen=True)
class JudgeReport:
    """What ``ragjudge judges list`` shows for one entry: its class when it loads, else the error."""

    entry: JudgeEntry
    judge_class: type[Judge] | None
    error: str | None
    conflict: bool = False


def _entry(ep: EntryPoint) -> JudgeEntry:
    dist = ep.dist
    return JudgeEntry(
        name=ep.name,
        value=ep.value,
        distribution=dist.name if dist is not None else "unknown",
        dist_version=dist.version if dist is not None else "unknown",
    )


def available_judges() -> list[JudgeEntry]:
    """Every registered judge, from metadata only, sorted by name; duplicates of one install collapsed."""
    seen: dict[tuple[str, str, str], JudgeEntry] = {}
    for ep in entry_points(group=GROUP):
        entry = _entry(ep)
        seen.setdefault((entry.name, entry.distribution, entry.value), entry)
    return sorted(seen.values(), key=lambda e: (e.name, e.distribution))


def _normal(distribution: str) -> str:
    """A distribution name as packaging compares them: ``Ragjudge_Embeddings`` equals ``ragjudge-embeddings``."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _resolve(name: str) -> JudgeEntry:
    """The one entry a name (or ``distribution:name``) selects, or a clear error."""
    entries = available_judges()
    dist, _, short = name.rpartition(":")
    matches = [e for e in entries if e.name == short and (not dist or _normal(e.distribution) == _normal(dist))]
    if not matches:
        known = {e.name for e in entries} | ({e.qualified for e in entries} if dist else set())
        raise UnknownJudgeError(name, known)
    if len(matches) > 1:
        names = " and ".join(e.qualified for e in matches)
        raise PluginError(f"judge name {short!r} is registered by more than one distribution: {names}; "
                          "pin one as 'distribution:name'")
    return matches[0]


def _load(entry: JudgeEntry) -> type[Judge]:
    where = f"{GROUP}:{entry.name} = {entry.value} ({entry.distribution})"
    try:
        loaded = EntryPoint(name=entry.name, value=entry.value, group=GROUP).load()
    except Exception as error:  # any failure inside a plugin's import is reported, not propagated raw
        raise PluginError(f"failed to import: {type(error).__name__}: {error}", entry_point=where) from error
    if not (inspect.isclass(loaded) and issubclass(loaded, Judge)):
        raise PluginError(f"{loaded!r} is not a subclass of ragjudge.judges.base.Judge", entry_point=where)
    if inspect.isabstract(loaded):
        raise PluginError(f"{loaded.__name__} leaves abstract methods unimplemented", entry_point=where)
    if not (inspect.isclass(loaded.Options) and issubclass(loaded.Options, JudgeOptions)):
        raise PluginError(f"{loaded.__name__}.Options is not a JudgeOptions model", entry_point=where)
    if getattr(loaded, "name", None) != entry.name:
        raise PluginError(f"{loaded.__name__}.name is {getattr(loaded, 'name', None)!r}, "
                          f"not the entry-point name {entry.name!r}", entry_point=where)
    return loaded


def load_judge_class(name: str) -> type[Judge]:
    """Import and check the judge registered as ``name`` (or ``distribution:name``)."""
    return _load(_resolve(name))


def create_judge(name: str, options: Mapping[str, Any] | None = None) -> Judge:
    """Build the judge registered as ``name`` with ``options``; bad options raise :class:`JudgeOptionsError`."""
    entry = _resolve(name)
    cls = _load(entry)
    try:
        return cls(dict(options or {}))
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(options)'}: {err['msg']}" for err in error.errors()
        )
        raise JudgeOptionsError(f"invalid options for judge {name!r}: {problems}",
                                entry_point=f"{GROUP}:{entry.name} ({entry.distribution})") from error


def judge_report() -> list[JudgeReport]:
    """Try to load every registered judge; a broken one carries its error and does not stop the others."""
    entries = available_judges()
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.name] = counts.get(e.name, 0) + 1
    reports = []
    for entry in entries:
        try:
            reports.append(JudgeReport(entry, _load(entry), None, counts[entry.name] > 1))
        except PluginError as error:
            reports.append(JudgeReport(entry, None, str(error), counts[entry.name] > 1))
    return reports
