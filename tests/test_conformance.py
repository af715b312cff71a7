"""The conformance kit: the built-in judges pass it, each broken judge fails exactly the check it breaks."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import ConfigDict

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.tfidf import TfidfJudge
from ragjudge.records import Pair, Status, Task, Verdict, trusted
from ragjudge.testing import (
    CHECKS,
    ConformanceError,
    FakeJudge,
    JudgeCheck,
    check_judge,
    judge_checks,
    parametrize_judge_checks,
)

# -- the built-in judges and the fake pass every check --------------------------------------------------------


@parametrize_judge_checks("overlap")
def test_overlap_conforms(judge_check: JudgeCheck) -> None:
    judge_check()


@parametrize_judge_checks("tfidf")
def test_tfidf_conforms(judge_check: JudgeCheck) -> None:
    judge_check()


@parametrize_judge_checks(lambda: FakeJudge(default=0.5, scores={"Paris is the capital of France.": 1.0}))
def test_fake_judge_conforms(judge_check: JudgeCheck) -> None:
    judge_check()


def test_batch_dependent_idf_fails_invariance_unless_skipped() -> None:
    with pytest.raises(ConformanceError, match="batch_size_invariance: batches of 2 vs one batch") as caught:
        check_judge(TfidfJudge(idf="batch"))
    assert str(caught.value).count("\n") == 1  # that one check, nothing else
    check_judge(TfidfJudge(idf="batch"), skip=["batch_size_invariance"])


# -- broken judges: each fails the check it breaks ------------------------------------------------------------

_POSITIVE = {Task.SUPPORT: "supported", Task.RELEVANCE: "relevant"}


class Constant(Judge):
    """Well-behaved: 0.5 for every pair; subclasses break one rule each."""

    name = "constant"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    class Options(JudgeOptions):
        level: float = 0.5

    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return float(self.options.model_dump()["level"])

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        return [trusted(Verdict, score=self.score(p, pairs), label=_POSITIVE[p.task], status=Status.OK,
                        reason=None, rationale=None, usage=None) for p in pairs]


class DropsOne(Constant):
    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        return super().judge_batch(pairs)[1:]


class Reorders(Constant):
    """Scores each pair by its text's length, but returns the verdicts sorted by text, not in input order."""

    tasks = frozenset({Task.SUPPORT})

    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return len(pair.text) % 10 / 10

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        verdicts = super().judge_batch(pairs)
        return [v for _, v in sorted(zip((p.text for p in pairs), verdicts, strict=True), key=lambda tv: tv[0])]


class OutOfRange(Constant):
    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return 1.5


class Random(Constant):
    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return random.random()


class RaisesOnEmpty(Constant):
    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return 1.0 / len(pair.text)


class RaisesOnLong(Constant):
    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        if max(len(pair.text), len(pair.query), *map(len, pair.premises)) > 10_000:
            raise MemoryError("too long")
        return 0.5


class BatchDependent(Constant):
    def score(self, pair: Pair, pairs: Sequence[Pair]) -> float:
        return 1.0 / len(pairs)


class ApproximateUndeclared(Constant):
    tasks = frozenset({Task.SUPPORT})
    approximate_tasks = frozenset({Task.RELEVANCE})


class LaxOptions(Constant):
    class Options(JudgeOptions):
        model_config = ConfigDict(extra="allow", frozen=True)
        level: float = 0.5


class BlindFingerprint(Constant):
    @property
    def fingerprint(self) -> dict[str, Any]:
        return {"name": self.name, "id": "0"}


BROKEN: dict[str, tuple[type[Judge], str, str]] = {
    "drops a verdict": (DropsOne, "count_and_order", "returned 9 verdicts for 10 pairs"),
    "depends on position": (Reorders, "count_and_order", "reversing the batch did not reverse its verdicts"),
    "score above 1": (OutOfRange, "scores_and_statuses", "score 1.5 is outside [0, 1]"),
    "random": (Random, "determinism", "judging the same batch twice"),
    "raises on empty": (RaisesOnEmpty, "empty_strings", "judge_batch raised ZeroDivisionError"),
    "raises on long": (RaisesOnLong, "long_input", "judge_batch raised MemoryError: too long"),
    "batch dependent": (BatchDependent, "batch_size_invariance", "batches of 2 vs one batch"),
    "approximate undeclared": (ApproximateUndeclared, "declared_tasks", "approximate_tasks {<Task.RELEVANCE"),
    "unknown options pass": (LaxOptions, "options_validated", "Options accepted an unknown key"),
    "fingerprint ignores options": (BlindFingerprint, "fingerprint", "changing option 'level' to 0.25 leaves"),
}


@pytest.mark.parametrize("cls, check, message", list(BROKEN.values()), ids=list(BROKEN))
def test_a_broken_judge_fails_the_check_it_breaks(cls: type[Judge], check: str, message: str) -> None:
    failed = {}
    for judge_check in judge_checks(cls()):
        try:
            judge_check()
        except ConformanceError as error:
            failed[judge_check.id] = str(error)
    assert check in failed, f"{check} passed; failures: {failed}"
    assert message in failed[check]


def test_the_well_behaved_base_passes() -> None:
    check_judge(Constant())


def test_check_judge_reports_every_failure_at_once() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_judge(OutOfRange())
    assert {"count_and_order", "scores_and_statuses", "determinism"} <= {
        line.strip().split(":")[0] for line in str(caught.value).splitlines()[1:]}


def test_checks_build_a_named_judge_lazily_and_once() -> None:
    built: list[Judge] = []

    def factory() -> Judge:
        built.append(Constant())
        return built[-1]

    checks = judge_checks(factory, skip=["long_input"])
    assert [c.id for c in checks] == [name for name in CHECKS if name != "long_input"] and not built
    for check in checks:
        check()
    assert len(built) == 1
    with pytest.raises(ValueError, match="unknown checks to skip: \\['speed'\\]"):
        judge_checks(factory, skip=["speed"])


# -- FakeJudge ------------------------------------------------------------------------------------------------

CLAIM = Pair.support("Paris is in France.", ["Paris is the capital of France."])
OTHER = Pair.relevance("Where is Paris?", "In France.")


def test_fake_judge_scripts_by_text_pair_function_and_sequence() -> None:
    by_text = FakeJudge(script={"Paris is in France.": 0.9})
    assert [v.status for v in by_text.judge([CLAIM, OTHER])] == [Status.OK, Status.FAILED]
    assert by_text.judge([CLAIM])[0].label == "supported" and by_text.calls == [[CLAIM, OTHER], [CLAIM]]
    by_pair = FakeJudge(script={OTHER: Verdict.skipped("no opinion")}, default=0.2)
    assert [v.status.value for v in by_pair.judge([OTHER, CLAIM])] == ["skipped", "ok"]
    assert by_pair.judge([CLAIM])[0].label == "unsupported"
    by_function = FakeJudge(script=lambda pair: 1.0 if pair.task is Task.RELEVANCE else 0.0)
    assert [v.label for v in by_function.judge([CLAIM, OTHER])] == ["unsupported", "relevant"]
    in_order = FakeJudge(script=[0.1, 0.7], default=0.4)
    assert [v.score for v in in_order.judge([CLAIM, CLAIM, CLAIM])] == [0.1, 0.7, 0.4]


def test_fake_judge_options_script_from_config_and_are_validated() -> None:
    judge = FakeJudge({"scores": {"Paris is in France.": 1.0}, "threshold": 0.8})
    assert judge.judge([CLAIM])[0].positive
    assert "not scripted" not in str(judge.judge([OTHER])[0].reason)
    assert "no answer scripted for relevance pair 'In France.'" in str(judge.judge([OTHER])[0].reason)
    with pytest.raises(ValueError, match="must be in \\[0, 1\\]"):
        FakeJudge(scores={"x": 2.0})
    with pytest.raises(ValueError):
        FakeJudge(colour="blue")


def test_importing_the_kit_does_not_import_pytest() -> None:
    probe = "import sys, ragjudge, ragjudge.testing; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
