"""Test seams for judge authors and for teams that gate releases on evaluation.

* :func:`check_judge` / :func:`judge_checks` / :func:`parametrize_judge_checks`: the conformance checks every
  judge must pass (ragjudge's built-ins and plugins alike).
* :class:`FakeJudge`: a judge with scripted verdicts.
* :func:`evaluate_metric` and :class:`MetricCheck`: "this metric on this data, with this judge, is at least
  X", with the lower confidence bound and the worst samples in the failure report. The pytest plugin
  (``ragjudge.testing.pytest_plugin``) wraps them in fixtures.

Names load on first use: pytest imports the plugin module (and so this package) in every session, which must
stay cheap. Importing this package never imports pytest; only :func:`parametrize_judge_checks` does, when called.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragjudge.testing.conformance import (
        CHECKS,
        ConformanceError,
        JudgeCheck,
        check_judge,
        judge_checks,
        parametrize_judge_checks,
    )
    from ragjudge.testing.fake import FakeJudge, Script
    from ragjudge.testing.gate import GateFailure, MetricCheck, evaluate_metric

__all__ = [
    "CHECKS",
    "ConformanceError",
    "FakeJudge",
    "GateFailure",
    "JudgeCheck",
    "MetricCheck",
    "Script",
    "check_judge",
    "evaluate_metric",
    "judge_checks",
    "parametrize_judge_checks",
]

_HOME = {
    **dict.fromkeys(["CHECKS", "ConformanceError", "JudgeCheck", "check_judge", "judge_checks",
                     "parametrize_judge_checks"], "conformance"),
    **dict.fromkeys(["FakeJudge", "Script"], "fake"),
    **dict.fromkeys(["GateFailure", "MetricCheck", "evaluate_metric"], "gate"),
}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first access."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ragjudge.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"ragjudge.testing.{home}"), name)
    globals()[name] = value
    return value
