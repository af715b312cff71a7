"""The pytest plugin, exercised by running pytest on a small user test file (pytester)."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path

import pytest

# pytester's in-process runs drop modules first imported inside them, and extension modules (numpy, via the
# judges) cannot be imported twice in one process: import what the inner runs use here, once.
import ragjudge.data  # noqa: F401
import ragjudge.evaluate  # noqa: F401
import ragjudge.judges.overlap  # noqa: F401

pytest_plugins = ["pytester"]

PLUGIN = "ragjudge.testing.pytest_plugin"

SAMPLES = [
    {"id": "paris", "question": "What is the capital of France?",
     "contexts": ["Paris is the capital of France."], "answer": "Paris is the capital of France."},
    {"id": "berlin", "question": "What is the capital of Germany?",
     "contexts": ["Berlin is the capital of Germany."], "answer": "Berlin is the capital of Germany."},
    {"id": "rome", "question": "What is the capital of Italy?",
     "contexts": ["Rome is the capital of Italy."], "answer": "Rome is the capital of Italy."},
    {"id": "moon", "question": "What is the moon made of?",
     "contexts": ["The Moon is a rocky natural satellite."], "answer": "The moon is made of green cheese."},
]

USER_TESTS = '''
from ragjudge.testing import FakeJudge


def test_faithful_enough(ragjudge_eval):
    ragjudge_eval("answers.jsonl", "faithfulness").at_least(0.5)


def test_faithful_to_the_letter(ragjudge_eval):
    ragjudge_eval("answers.jsonl", "faithfulness").at_least(0.9)


def test_lower_bound_with_a_fake_judge(ragjudge_eval):
    check = ragjudge_eval("answers.jsonl", "answer_relevance", judge=FakeJudge(default=0.9))
    check.at_least(0.8, bound="lower")
    assert check.lower == 0.9
'''


def _plugin_args() -> list[str]:
    """Load the plugin explicitly unless its pytest11 entry point is installed (then pytest autoloads it)."""
    installed = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", PLUGIN]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A user project: answers, a run config named in the ini file, and a test file with three gates."""
    answers = "".join(json.dumps(s) + "\n" for s in SAMPLES)
    pytester.makefile(".jsonl", answers=answers)
    pytester.makefile(".yaml", ragjudge="judge: {name: overlap, options: {threshold: 0.7}}\n")
    pytester.makeini("[pytest]\nragjudge_config = ragjudge.yaml\n")
    pytester.makepyfile(test_gates=USER_TESTS)
    return pytester


def test_gates_pass_and_fail_with_a_report_of_the_worst_samples(project: pytest.Pytester) -> None:
    result = project.runpytest(*_plugin_args())
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*GateFailure: faithfulness mean must be at least 0.9",
        "*faithfulness = 0.750 (95% CI [[]*, *[]]); 4 samples: 4 scored, 0 failed, 0 skipped",
        "*judge: overlap (id *)",
        "*worst 4 samples:",
        "*moon: 0.000  question 'What is the moon made of?'  answer 'The moon is made of green cheese.'",
    ])
    result.stdout.fnmatch_lines(["FAILED test_gates.py::test_faithful_to_the_letter - *"])
    assert "gate.py" not in out  # the gate's own frame is hidden: the report points at the user's line


def test_terminal_summary_lists_every_gate_with_its_bounds(project: pytest.Pytester) -> None:
    result = project.runpytest(*_plugin_args())
    result.stdout.fnmatch_lines([
        "*ragjudge gates*",
        "test_gates.py::test_faithful_enough: faithfulness = 0.750 (95% CI *",
        "    >= 0.5 on the mean: passed",
        "test_gates.py::test_faithful_to_the_letter: faithfulness = 0.750 *",
        "    >= 0.9 on the mean: FAILED",
        "test_gates.py::test_lower_bound_with_a_fake_judge: answer_relevance = 0.900 *",
        "    >= 0.8 on the lower bound: passed",
    ])


def test_command_line_config_overrides_the_ini(project: pytest.Pytester) -> None:
    project.makefile(".yaml", strict="judge: {name: overlap, options: {threshold: 0.99}}\n")
    project.makepyfile(test_gates="""
def test_judge_comes_from_the_command_line(ragjudge_eval):
    check = ragjudge_eval("answers.jsonl", "faithfulness")
    assert check.summary.judge["options"]["threshold"] == 0.99
""")
    result = project.runpytest(*_plugin_args(), "--ragjudge-config", "strict.yaml")
    result.assert_outcomes(passed=1)


# -- the gate itself, without pytest in the middle ------------------------------------------------------------

def test_a_gate_reports_mean_interval_counts_and_the_worst_and_unscored_samples() -> None:
    from ragjudge.testing import FakeJudge, evaluate_metric
    from ragjudge.testing.gate import GateFailure

    rows = [*SAMPLES, {"id": "empty", "question": "Why?", "contexts": ["Because."], "answer": ""}]
    judge = FakeJudge(script={"The moon is made of green cheese.": 0.1}, default=0.8)
    check = evaluate_metric(rows, "faithfulness", judge=judge, metric_options={"claim_scoring": "score"})
    assert check.mean == pytest.approx((0.8 * 3 + 0.1) / 4)
    assert check.lower is not None and check.upper is not None and check.lower < check.mean < check.upper
    assert [s.id for s, _ in check.worst(2)] == ["moon", "paris"]
    assert check.at_least(0.6) is check
    with pytest.raises(GateFailure) as caught:
        check.at_least(0.6, bound="lower", worst=1)
    report = str(caught.value)
    assert report.startswith("faithfulness lower confidence bound must be at least 0.6\n")
    assert "5 samples: 4 scored, 0 failed, 1 skipped" in report and "judge: fake (id " in report
    assert "worst 1 samples:\n  moon: 0.100" in report and "  empty: skipped: " in report
    assert check.gates == [(0.6, "mean", True), (0.6, "lower", False)]


def test_a_gate_takes_its_judge_from_a_config_and_accepts_overrides(tmp_path: Path) -> None:
    from ragjudge.testing import evaluate_metric

    config = tmp_path / "run.yaml"
    config.write_text("judge: {name: overlap, options: {threshold: 0.2}}\n"
                      "metrics: [{name: faithfulness, options: {claim_scoring: score}}]\n")
    from_config = evaluate_metric(SAMPLES, config=config)
    assert from_config.summary.judge is not None and from_config.summary.judge["options"]["threshold"] == 0.2
    overridden = evaluate_metric(SAMPLES, config=config, judge_options={"threshold": 0.9})
    assert overridden.summary.judge is not None and overridden.summary.judge["options"]["threshold"] == 0.9
    other = evaluate_metric(SAMPLES, "answer_relevance", config=config, judge="tfidf")
    assert other.summary.judge is not None and other.summary.judge["name"] == "tfidf"
