"""``ragjudge judges list``: every registered judge, where it comes from, and whether it loads.

One line per entry point: name, status, tasks (``~`` marks a task the judge declares approximate), distribution
and version, and the object it points to; a broken plugin gets a second line with its error and the others still
load. Two distributions registering one name are both shown as a CONFLICT with the ``distribution:name`` that
pins each. ``--verbose`` adds the judge's version, its approximate tasks spelled out, and its options: type,
constraints, default and description, ``volatile`` marking options left out of the fingerprint.
"""

from __future__ import annotations

import argparse
import json
import re
import typing
from typing import Any

__all__ = ["option_lines", "register", "run"]

_INDENT = " " * 13


def register(subparsers: Any) -> None:
    """Add the ``judges`` subcommand."""
    p = subparsers.add_parser("judges", help="list registered judges",
                              description="Judges registered under the 'ragjudge.judges' entry-point group.")
    sub = p.add_subparsers(dest="judges_command", metavar="ACTION")
    lister = sub.add_parser("list", help="name, tasks, origin and load status of every judge")
    lister.add_argument("--verbose", "-v", action="store_true",
                        help="also show each judge's version, approximate tasks and options schema")
    lister.set_defaults(func=run)
    p.set_defaults(func=run)


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(json.dumps(a) for a in typing.get_args(annotation))
    text = repr(annotation).replace("NoneType", "None")
    return re.sub(r"\b(?:\w+\.)+(\w+)", r"\1", text)  # ragjudge_embeddings.judge.Calibration -> Calibration


def _constraints(info: Any) -> str:
    marks = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "min_length": "min length"}
    found = [f"{mark} {getattr(m, attr)}" for m in info.metadata for attr, mark in marks.items()
             if getattr(m, attr, None) is not None]
    return f" ({', '.join(found)})" if found else ""


def _default(info: Any) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    return f"default {json.dumps(value, default=repr)}"


def option_lines(judge_class: Any) -> list[str]:
    """One line per option of ``judge_class.Options``: name, type, constraints, default, description."""
    volatile = judge_class.volatile_options
    lines = []
    for name, info in judge_class.Options.model_fields.items():
        line = f"{name}: {_type_name(info.annotation)}{_constraints(info)}, {_default(info)}"
        if name in volatile:
            line += ", volatile"
        if info.description:
            line += f" -- {info.description}"
        lines.append(line)
    return lines or ["(no options)"]


def _tasks(cls: Any) -> str:
    return ", ".join(t.value + ("~" if t in cls.approximate_tasks else "") for t in sorted(cls.tasks))


def _details(cls: Any) -> list[str]:
    approximate = ", ".join(sorted(t.value for t in cls.approximate_tasks)) or "none"
    lines = [f"judge version {cls.version}; approximate tasks: {approximate}", "options:"]
    return lines + [f"  {line}" for line in option_lines(cls)]


def run(args: argparse.Namespace) -> int:
    """Print one block per judge; a broken plugin shows its error and the others still load."""
    from ragjudge.judges.registry import judge_report

    reports = judge_report()
    for report in reports:
        entry = report.entry
        cls = report.judge_class
        status = "ok" if cls is not None else "BROKEN"
        if report.conflict:
            status += f", CONFLICT (pin as {entry.qualified})"
        tasks = _tasks(cls) if cls is not None else "-"
        print(f"{entry.name:<12} {status:<8} tasks: {tasks:<20} from {entry.distribution} {entry.dist_version}"
              f" ({entry.value})")
        if report.error:
            print(f"{_INDENT}error: {report.error}")
        if getattr(args, "verbose", False) and cls is not None:
            for line in _details(cls):
                print(f"{_INDENT}{line}")
    return 0 if all(r.judge_class is not None for r in reports) else 1
