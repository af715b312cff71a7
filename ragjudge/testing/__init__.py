"""Test seams for judge authors and for teams that gate releases on evaluation.

* :func:`check_judge` / :func:`judge_checks` / :func:`parametrize_judge_checks`: the conformance checks every
  judge must pass (ragjudge's built-ins and plugins alike).
* :class:`FakeJudge`: a judge with scripted verdicts.
* :func:`evaluate_metric` and :class:`MetricCheck`: "this metric on this data, with this judge, is at least
  X", with the lower confidence bound and the worst samples in the failure report. The pytest plugin
  (``ragjudge.testing.pytest_plugin``) wraps them in fixtures.

Importing this package does not import pytest; only :func:`parametrize_judge_checks` does, when called.
"""

from __future__ import annotations

from ragjudge.testing.conformance import (
    CHECKS,
    ConformanceError,
    JudgeCheck,
    check_judge,
    judge_checks,
    parametrize_judge_checks,
)
from ragjudge.testing.fake import FakeJudge, Script
from ragjudge.testing.gate import MetricCheck, evaluate_metric

__all__ = [
    "CHECKS",
    "ConformanceError",
    "FakeJudge",
    "JudgeCheck",
    "MetricCheck",
    "Script",
    "check_judge",
    "evaluate_metric",
    "judge_checks",
    "parametrize_judge_checks",
]
