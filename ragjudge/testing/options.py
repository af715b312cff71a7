"""Conformance checks of a judge's options and fingerprint (no judging involved).

Options: the model is a :class:`JudgeOptions`, frozen, refuses unknown keys (directly and through the judge's
constructor) and refuses a nonsense value for every boolean, number and choice. Fingerprint: stable across
reads, JSON-serialisable, and for every option an alternative valid value is tried: the
fingerprint must change unless the option is declared volatile, and must not change when it is.
"""

from __future__ import annotations

import copy
import json
import math
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from ragjudge.judges.base import Judge, JudgeOptions

__all__ = ["alternative_value", "check_fingerprint", "check_options"]

_NONSENSE = "\x00not a valid value"


def _fail(message: str) -> AssertionError:
    from ragjudge.testing.conformance import ConformanceError

    return ConformanceError(message)


def _rejects(build: Any, *args: Any, **kwargs: Any) -> bool:
    try:
        build(*args, **kwargs)
    except (ValidationError, ValueError, TypeError):
        return True
    return False


def _strict_kind(info: FieldInfo) -> bool:
    """Whether ``info`` is a bool, number or Literal field (on which a nonsense string must fail)."""
    annotation = info.annotation
    if typing.get_origin(annotation) is typing.Literal:
        return True
    return annotation in (bool, int, float)


def check_options(judge: Judge) -> None:
    """Options are a frozen JudgeOptions model that validates what it is given."""
    options_cls = type(judge).Options
    if not (isinstance(options_cls, type) and issubclass(options_cls, JudgeOptions)):
        raise _fail(f"{type(judge).__name__}.Options is not a JudgeOptions subclass")
    if not isinstance(judge.options, options_cls):
        raise _fail(f"judge.options is a {type(judge.options).__name__}, not {options_cls.__name__}")
    current = judge.options.model_dump()
    if not _rejects(options_cls.model_validate, {**current, "__no_such_option__": 1}):
        raise _fail("Options accepted an unknown key")
    if not _rejects(type(judge), current, __no_such_option__=1):
        raise _fail(f"{type(judge).__name__}(..., __no_such_option__=1) did not raise")
    if not _rejects(setattr, judge.options, next(iter(current), "x"), None):
        raise _fail("options can be changed after construction (they must be frozen)")
    for name, info in options_cls.model_fields.items():
        if _strict_kind(info) and not _rejects(options_cls.model_validate, {**current, name: _NONSENSE}):
            raise _fail(f"option {name!r} accepted the nonsense value {_NONSENSE!r}")


def _candidates(info: FieldInfo, value: Any) -> Iterator[Any]:
    """Values to try instead of ``value`` for an option."""
    if typing.get_origin(info.annotation) is typing.Literal:
        yield from typing.get_args(info.annotation)
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, value - 1, value * 2, 1)
    elif isinstance(value, float) and math.isfinite(value):
        yield from (value / 2, (value + 1) / 2, value + 0.1, value - 0.1, 0.5)
    elif isinstance(value, str):
        yield from (value + "-other", "other")


def alternative_value(options: JudgeOptions, name: str) -> tuple[bool, Any]:
    """``(True, v)``: a valid value ``v`` for option ``name`` other than its own, else ``(False, None)``."""
    current = options.model_dump()
    info = type(options).model_fields[name]
    for candidate in _candidates(info, current[name]):
        try:
            changed = type(options).model_validate({**current, name: candidate})
        except ValidationError:
            continue
        if getattr(changed, name) != getattr(options, name):
            return True, candidate
    return False, None


def _with_option(judge: Judge, name: str, value: Any) -> Judge:
    """A shallow copy of ``judge`` whose options differ in ``name`` (no backend is built)."""
    clone = copy.copy(judge)
    clone.options = type(judge.options).model_validate({**judge.options.model_dump(), name: value})
    return clone


def check_fingerprint(judge: Judge) -> None:
    """The fingerprint is stable and serialisable, and changes exactly with the verdict-relevant options."""
    first = judge.fingerprint
    if first != judge.fingerprint:
        raise _fail("two reads of the fingerprint differ")
    try:
        json.dumps(first, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise _fail(f"the fingerprint is not JSON-serialisable: {error}") from None
    volatile = type(judge).volatile_options
    if not volatile <= set(type(judge.options).model_fields):
        raise _fail(f"volatile_options {sorted(volatile)} name options that do not exist")
    for name in type(judge.options).model_fields:
        found, value = alternative_value(judge.options, name)
        if not found:
            continue
        changed = _with_option(judge, name, value).fingerprint != first
        if name in volatile and changed:
            raise _fail(f"option {name!r} is volatile but changes the fingerprint")
        if name not in volatile and not changed:
            raise _fail(f"changing option {name!r} to {value!r} leaves the fingerprint unchanged")
