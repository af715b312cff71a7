"""pytest plugin: gate a release on evaluation in a few lines (registered under the ``pytest11`` entry point).

    def test_answers_are_faithful(ragjudge_eval):
        ragjudge_eval("answers.jsonl", "faithfulness").at_least(0.8)

``ragjudge_eval(data, metric, **kwargs)`` scores ``metric`` on ``data`` with the judge of the run config given by
``--ragjudge-config PATH`` or the ``ragjudge_config`` ini option (else the defaults; any keyword of
:func:`ragjudge.testing.evaluate_metric` overrides). ``.at_least(x)`` gates the mean (``bound="lower"``: the
lower end of its bootstrap interval). A failing gate fails the test with the mean, the interval, the counts and
the worst samples; every gate checked in the session is listed, passed or not, in a "ragjudge gates" section
of the terminal summary, lower confidence bound included.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pytest loads this plugin in every session: the evaluation stack is imported on first use
    from ragjudge.testing.gate import Data, MetricCheck

__all__ = ["pytest_addoption", "pytest_terminal_summary", "ragjudge_config", "ragjudge_eval"]

_CHECKS = pytest.StashKey[list[tuple[str, "MetricCheck"]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--ragjudge-config`` and the ``ragjudge_config`` ini option."""
    group = parser.getgroup("ragjudge", "evaluation gates with ragjudge")
    group.addoption("--ragjudge-config", metavar="PATH", default=None,
                    help="ragjudge run config (YAML/TOML) whose judges the ragjudge_eval fixture uses")
    parser.addini("ragjudge_config", "ragjudge run config for the ragjudge_eval fixture (relative to rootdir)",
                  default="")


@pytest.fixture(scope="session")
def ragjudge_config(pytestconfig: pytest.Config) -> Path | None:
    """The run config chosen on the command line or in the ini file, or ``None`` for the defaults."""
    given = pytestconfig.getoption("ragjudge_config")
    if given:
        return Path(given)
    ini = str(pytestconfig.getini("ragjudge_config") or "")
    return pytestconfig.rootpath / ini if ini else None


@pytest.fixture
def ragjudge_eval(ragjudge_config: Path | None, request: pytest.FixtureRequest) -> Callable[..., MetricCheck]:
    """A function ``(data, metric="faithfulness", **kwargs) -> MetricCheck`` bound to the session's config."""

    def run(data: Data, metric: str = "faithfulness", **kwargs: Any) -> MetricCheck:
        from ragjudge.testing.gate import evaluate_metric

        kwargs.setdefault("config", ragjudge_config)
        check = evaluate_metric(data, metric, **kwargs)
        request.config.stash.setdefault(_CHECKS, []).append((request.node.nodeid, check))
        return check

    return run


def _gate_line(check: MetricCheck) -> str:
    if not check.gates:
        return "no gate checked"
    return "; ".join(f">= {threshold:g} on the {'mean' if bound == 'mean' else 'lower bound'}: "
                     f"{'passed' if passed else 'FAILED'}" for threshold, bound, passed in check.gates)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """List every metric evaluated through ``ragjudge_eval``, with its interval and its gates."""
    checks = config.stash.get(_CHECKS, [])
    if not checks:
        return
    terminalreporter.section("ragjudge gates")
    for nodeid, check in checks:
        terminalreporter.write_line(f"{nodeid}: {check.headline()}")
        terminalreporter.write_line(f"    {_gate_line(check)}")
