"""The inputs the conformance checks feed a judge, and how they compare verdicts.

Small, fixed and readable: a few true and false claims with their premises, a few relevant and irrelevant
answers, the same pair twice (a judge must answer both), blank inputs and one very long input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragjudge.records import Pair, Status, Task, Verdict

__all__ = [
    "LABELS", "LONG_TEXT", "blank_pairs", "long_pairs", "regular_pairs", "same_verdicts", "verdict_problem",
]

LABELS = {Task.SUPPORT: ("supported", "unsupported"), Task.RELEVANCE: ("relevant", "irrelevant")}

# About 60,000 characters in one sentence: far past any model's window, so a judge must truncate or window.
LONG_TEXT = " ".join("the committee approved the annual budget after a long debate".split() * 1200)

_SUPPORT = [
    Pair.support("Paris is the capital of France.",
                 ["Paris is the capital and largest city of France.", "Berlin is the capital of Germany."]),
    Pair.support("The moon is made of cheese.", ["The Moon is a rocky natural satellite of the Earth."]),
    Pair.support("Water boils at 100 degrees Celsius at sea level.",
                 ["At sea level, pure water boils at 100 degrees Celsius. Ice melts at 0 degrees."]),
    Pair.support("Einstein was born in Ulm.", ["Albert Einstein was born in Ulm, in Württemberg."]),
    Pair.support("Einstein was born in Paris.", ["Albert Einstein was born in Ulm, in Württemberg."]),
]
_RELEVANCE = [
    Pair.relevance("What is the capital of France?", "Paris is the capital of France."),
    Pair.relevance("What is the capital of France?", "Bananas are rich in potassium."),
    Pair.relevance("How do vaccines work?", "Vaccines train the immune system to recognise a pathogen."),
    Pair.relevance("Who wrote Hamlet?", "Hamlet is a tragedy written by William Shakespeare."),
]


def regular_pairs(tasks: frozenset[Task]) -> list[Pair]:
    """Ordinary pairs of the declared ``tasks``, interleaved, with the first one repeated at the end."""
    pools = [p for task, p in ((Task.SUPPORT, _SUPPORT), (Task.RELEVANCE, _RELEVANCE)) if task in tasks]
    longest = max(map(len, pools), default=0)
    mixed = [pool[i] for i in range(longest) for pool in pools if i < len(pool)]
    return mixed + mixed[:1]


def blank_pairs(tasks: frozenset[Task]) -> list[Pair]:
    """Pairs with empty or whitespace-only fields, for each declared task."""
    pairs = []
    if Task.SUPPORT in tasks:
        pairs += [Pair.support("", ["Paris is in France."]), Pair.support("Paris is in France.", [""]),
                  Pair.support("Paris is in France.", []), Pair.support("   ", ["  "])]
    if Task.RELEVANCE in tasks:
        pairs += [Pair.relevance("", "Paris is in France."), Pair.relevance("Where is Paris?", ""),
                  Pair.relevance(" ", " ")]
    return pairs


def long_pairs(tasks: frozenset[Task]) -> list[Pair]:
    """Pairs with one very long field each, for each declared task."""
    pairs = []
    if Task.SUPPORT in tasks:
        pairs += [Pair.support(LONG_TEXT, ["The committee approved the budget."]),
                  Pair.support("The committee approved the budget.", [LONG_TEXT])]
    if Task.RELEVANCE in tasks:
        pairs += [Pair.relevance(LONG_TEXT, "The budget was approved."),
                  Pair.relevance("Was the budget approved?", LONG_TEXT)]
    return pairs


def verdict_problem(pair: Pair, verdict: object) -> str | None:
    """What is wrong with ``verdict`` as an answer for ``pair``, or ``None``."""
    if not isinstance(verdict, Verdict):
        return f"returned {type(verdict).__name__}, not a Verdict"
    if not isinstance(verdict.status, Status):
        return f"status {verdict.status!r} is not a ragjudge.records.Status"
    if verdict.status is not Status.OK:
        if verdict.score is not None:
            return f"a {verdict.status.value} verdict carries score {verdict.score!r}"
        return None if verdict.reason else f"a {verdict.status.value} verdict has no reason"
    score = verdict.score
    if not isinstance(score, float | int) or isinstance(score, bool) or not math.isfinite(score):
        return f"an ok verdict has score {score!r}, not a finite number"
    if not 0.0 <= score <= 1.0:
        return f"score {score!r} is outside [0, 1]"
    if verdict.label not in LABELS[pair.task]:
        return f"label {verdict.label!r} is not one of {LABELS[pair.task]} for a {pair.task.value} pair"
    return None


def same_verdicts(a: Sequence[Verdict], b: Sequence[Verdict], tolerance: float) -> int | None:
    """Index of the first verdict that differs (status, label, or score beyond ``tolerance``), or ``None``."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x.status is not y.status or x.label != y.label:
            return i
        if x.score is not None and y.score is not None and abs(x.score - y.score) > tolerance:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))
