"""``ragjudge judges list``: every registered judge, where it comes from, and whether it loads."""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``judges`` subcommand."""
    p = subparsers.add_parser("judges", help="list registered judges",
                              description="Judges registered under the 'ragjudge.judges' entry-point group.")
    sub = p.add_subparsers(dest="judges_command", metavar="ACTION")
    lister = sub.add_parser("list", help="name, tasks, origin and load status of every judge")
    lister.add_argument("--verbose", "-v", action="store_true", help="also show the options schema")
    lister.set_defaults(func=run)
    p.set_defaults(func=run)


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
        tasks = ", ".join(sorted(t.value for t in cls.tasks)) if cls is not None else "-"
        print(f"{entry.name:<12} {status:<8} tasks: {tasks:<20} from {entry.distribution} {entry.dist_version}"
              f" ({entry.value})")
        if report.error:
            print(f"{'':<12} error: {report.error}")
        if getattr(args, "verbose", False) and cls is not None:
            schema = cls.Options.model_json_schema().get("properties", {})
            print(f"{'':<12} options: {json.dumps(schema, sort_keys=True)}")
    return 0 if all(r.judge_class is not None for r in reports) else 1
