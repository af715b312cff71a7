"""The ``ragjudge`` command: a thin layer that parses arguments, calls the library and prints.

Each subcommand lives in its own module of this package with two functions, ``register(subparsers)`` (adds its
parser and sets ``func``) and the ``run(args) -> int`` it points to. Heavy libraries (torch, transformers, openai)
are imported inside ``run`` only, so ``ragjudge --help`` stays fast and light.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ragjudge import __version__
from ragjudge.errors import RagJudgeError

__all__ = ["build_parser", "main"]

# Subcommand modules, in the order --help lists them.
_COMMANDS = ("evaluate", "judges", "retrieval", "meta_eval", "train")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="ragjudge",
        description="Evaluate retrieval-augmented generation with measured, swappable judges.",
    )
    parser.add_argument("--version", action="version", version=f"ragjudge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"ragjudge.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ragjudge`` script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except RagJudgeError as error:
        print(f"ragjudge: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ragjudge: interrupted", file=sys.stderr)
        return 130
    return code
