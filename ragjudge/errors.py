"""The errors ragjudge raises, as one small tree.

    RagJudgeError                 root: catch this to catch anything ragjudge raises on purpose
    ├── ConfigError               a config file or option is wrong (names the file and the key path)
    ├── DataError                 an input record is wrong (names the file, the line and the field)
    ├── PluginError               a judge entry point loads but breaks the Judge contract
    ├── UnknownJudgeError         no judge is registered under that name (lists the available ones)
    ├── MissingDependencyError    an optional extra is not installed (gives the exact pip line)
    └── JudgeTaskError            a metric was given a judge that cannot do the task it needs

A judge that cannot decide one item never raises: it returns a verdict marked ``failed`` with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "ConfigError",
    "DataError",
    "JudgeTaskError",
    "MissingDependencyError",
    "PluginError",
    "RagJudgeError",
    "UnknownJudgeError",
]


class RagJudgeError(Exception):
    """Root of every error ragjudge raises on purpose."""


def _where(path: str | Path | None, line: int | None, field: str | None) -> str:
    parts = []
    if path is not None:
        parts.append(str(path) if line is None else f"{path}:{line}")
    elif line is not None:
        parts.append(f"line {line}")
    if field:
        parts.append(f"field {field!r}")
    return ", ".join(parts)


class DataError(RagJudgeError, ValueError):
    """An input record is malformed; the message names the file, the line and the field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = _where(path, line, field)
        super().__init__(f"{where}: {message}" if where else message)


class ConfigError(RagJudgeError, ValueError):
    """A configuration value is wrong; the message names the file and the key path (``metrics.0.judge``)."""

    def __init__(self, message: str, *, path: str | Path | None = None, key: str | None = None) -> None:
        self.path = None if path is None else str(path)
        self.key = key
        self.detail = message
        where = ", ".join(p for p in (self.path, f"key {key!r}" if key else None) if p)
        super().__init__(f"{where}: {message}" if where else message)


class PluginError(RagJudgeError):
    """A judge entry point imported but is not a usable Judge (wrong type, options that do not validate)."""

    def __init__(self, message: str, *, entry_point: str | None = None) -> None:
        self.entry_point = entry_point
        super().__init__(f"entry point {entry_point}: {message}" if entry_point else message)


class UnknownJudgeError(RagJudgeError, KeyError):
    """No judge is registered under the requested name."""

    def __init__(self, name: str, available: Iterable[str]) -> None:
        self.name = name
        self.available = sorted(available)
        shown = ", ".join(self.available) or "none"
        super().__init__(f"unknown judge {name!r}; available judges: {shown}")

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


class MissingDependencyError(RagJudgeError, ImportError):
    """An optional extra is needed and not installed; the message gives the exact install line."""

    def __init__(self, feature: str, extra: str, missing: str) -> None:
        self.extra = extra
        self.missing = missing
        self.install = f"pip install 'ragjudge[{extra}]'"
        super().__init__(f"{feature} needs {missing!r}, which is not installed: {self.install}")


class JudgeTaskError(RagJudgeError, ValueError):
    """A metric needs a task (``support``, ``relevance``) that its judge does not declare."""
