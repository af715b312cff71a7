"""Turning a model's reply into a verdict or a claim list, tolerantly.

Servers differ in how well they keep to a format, and small local models drift most. The parsers accept, in
order: the whole reply as a JSON object; the first valid JSON object inside it (after prose or a code fence);
then, for verdicts, plain words (``Verdict: no``, a reply that starts with ``Yes``, or one that contains only
one of the two words). Anything else raises :class:`ParseError`, whose message is quoted back to the model in
the one repair turn.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ParseError", "ParsedVerdict", "Reply", "TokenLogprob", "parse_claims", "parse_verdict"]

_YES = frozenset({"yes", "true", "supported", "relevant", "entailed"})
_NO = frozenset({"no", "false", "unsupported", "irrelevant", "not_supported", "not supported"})
_VERDICT_WORDS = re.compile(r"\bverdict\W{0,4}(yes|no)\b", re.IGNORECASE)
_LEADING_WORD = re.compile(r"\A\W*(yes|no)\b", re.IGNORECASE)
_ANY_WORD = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.+?)\s*$", re.MULTILINE)
_DECODER = json.JSONDecoder()


class ParseError(ValueError):
    """A reply held no usable verdict (or claim list); the message says why, for the repair turn."""


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its log-probability and the alternatives the server reported."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Reply:
    """What one successful request returned, reduced to what ragjudge uses."""

    content: str
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None
    logprobs: tuple[TokenLogprob, ...] | None = None


@dataclass(frozen=True)
class ParsedVerdict:
    """A yes/no decision, its score (the probability of yes when known, else 1.0 / 0.0) and the rationale."""

    yes: bool
    score: float
    rationale: str | None


def _snippet(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def first_json_value(text: str) -> Any:
    """The whole text as JSON, else the first JSON object or array that decodes inside it, else None."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for start, char in enumerate(stripped):
        if char in "{[":
            try:
                return _DECODER.raw_decode(stripped, start)[0]
            except ValueError:
                continue
    return None


def _word_decision(word: Any) -> bool | None:
    if isinstance(word, bool):
        return word
    if isinstance(word, str):
        norm = word.strip().strip(".").lower()
        if norm in _YES:
            return True
        if norm in _NO:
            return False
    return None


def _decision_from_words(text: str) -> bool | None:
    """``Verdict: yes``, a leading yes/no, or the only one of the two words the text contains."""
    for pattern in (_VERDICT_WORDS, _LEADING_WORD):
        match = pattern.search(text)
        if match:
            return match.group(1).lower() == "yes"
    words = {w.lower() for w in _ANY_WORD.findall(text)}
    return words == {"yes"} if len(words) == 1 else None


def _decision(reply: Reply) -> tuple[bool, str | None]:
    """The yes/no decision and rationale in ``reply``, or :class:`ParseError`."""
    if not reply.content.strip():
        raise ParseError("the reply was empty")
    value = first_json_value(reply.content)
    if isinstance(value, dict) and "verdict" in value:
        decision = _word_decision(value["verdict"])
        if decision is None:
            raise ParseError(f'"verdict" must be "yes" or "no", got {value["verdict"]!r}')
        rationale = value.get("rationale")
        return decision, rationale if isinstance(rationale, str) else None
    decision = _decision_from_words(reply.content)
    if decision is None:
        cut = " (the reply was cut off at max_tokens)" if reply.finish_reason == "length" else ""
        raise ParseError(f'no JSON object with a "verdict" and no yes/no answer in: '
                         f"{_snippet(reply.content)!r}{cut}")
    return decision, None


def yes_probability(logprobs: Sequence[TokenLogprob] | None) -> float | None:
    """P(yes) / (P(yes) + P(no)) at the first token that spells yes or no, from its top alternatives."""
    for entry in logprobs or ():
        if _token_word(entry.token) is None:
            continue
        p = {"yes": 0.0, "no": 0.0}
        for token, logprob in {entry.token: entry.logprob, **dict(entry.top)}.items():
            word = _token_word(token)
            if word is not None:
                p[word] += math.exp(logprob)
        total = p["yes"] + p["no"]
        return p["yes"] / total if total > 0 else None
    return None


def _token_word(token: str) -> str | None:
    norm = token.strip().strip('"').lower()
    if norm.startswith("yes"):
        return "yes"
    return "no" if norm == "no" else None


def parse_verdict(reply: Reply) -> ParsedVerdict:
    """The verdict in ``reply``; the score is P(yes) from logprobs when the server sent them."""
    yes, rationale = _decision(reply)
    score = yes_probability(reply.logprobs)
    return ParsedVerdict(yes, (1.0 if yes else 0.0) if score is None else score, rationale)


def parse_claims(reply: Reply) -> list[str]:
    """The claims in ``reply``: ``{"claims": [...]}``, a bare JSON list, or a bulleted / numbered list."""
    value = first_json_value(reply.content)
    if isinstance(value, dict):
        value = value.get("claims")
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    items = _LIST_ITEM.findall(reply.content)
    if items:
        return items
    raise ParseError(f'no JSON object with a "claims" list of strings in: {_snippet(reply.content)!r}')
