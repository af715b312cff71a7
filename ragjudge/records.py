"""The records every room shares: a sample in, judge pairs and verdicts in the middle, scores out.

A :class:`Sample` accepts the field names RAGAS users already have (``user_input``, ``retrieved_contexts``,
``response``, ``reference``) and the older ones (``question``, ``contexts``, ``answer``, ``ground_truth``).
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["Pair", "Sample", "Status", "Task", "Usage", "Verdict", "trusted"]

_M = TypeVar("_M", bound=BaseModel)


class Task(str, Enum):
    """What a judge is asked.

    ``support``: do the premises entail the claim?  ``relevance``: does the text address the query?
    """

    SUPPORT = "support"
    RELEVANCE = "relevance"


class Status(str, Enum):
    """How a verdict, or a metric on one sample, ended: scored, failed (with a reason) or skipped (with a reason)."""

    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"


class Sample(BaseModel):
    """One RAG interaction to evaluate.

    ``contexts`` are ranked (rank 1 first). ``relevance`` maps document ids to graded relevance; when only
    ``relevant_ids`` is given each of them counts as relevance 1.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    id: str | None = None
    question: str = Field("", validation_alias=AliasChoices("question", "user_input", "query"))
    contexts: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("contexts", "retrieved_contexts")
    )
    answer: str = Field("", validation_alias=AliasChoices("answer", "response"))
    reference: str | None = Field(None, validation_alias=AliasChoices("reference", "ground_truth"))
    retrieved_ids: list[str] | None = Field(
        None, validation_alias=AliasChoices("retrieved_ids", "retrieved_context_ids")
    )
    relevant_ids: list[str] | None = Field(
        None, validation_alias=AliasChoices("relevant_ids", "reference_context_ids")
    )
    relevance: dict[str, float] | None = None
    label: float | None = Field(None, description="a human label (1 faithful, 0 not, or a graded score)")
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("contexts", mode="before")
    @classmethod
    def _one_context(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("relevance")
    @classmethod
    def _finite_relevance(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is not None and not all(math.isfinite(v) for v in value.values()):
            raise ValueError("relevance grades must be finite numbers")
        return value

    def graded_relevance(self) -> dict[str, float] | None:
        """Graded relevance per document id: ``relevance`` if given, else 1 for each of ``relevant_ids``."""
        if self.relevance is not None:
            return dict(self.relevance)
        if self.relevant_ids is not None:
            return {doc: 1.0 for doc in self.relevant_ids}
        return None


def trusted(cls: type[_M], **fields: Any) -> _M:
    """Build ``cls`` from fields the caller guarantees valid and complete, skipping validation.

    For hot paths inside ragjudge (millions of pairs and verdicts): about 4x cheaper than ``model_construct``.
    Every field must be given; the result is indistinguishable from a validated instance.
    """
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)
    object.__setattr__(obj, "__pydantic_fields_set__", set(fields))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


class Pair(BaseModel):
    """One judge input.

    For ``support``: does any of ``premises`` entail ``text`` (a claim)?
    For ``relevance``: does ``text`` address ``query``?
    Pairs are frozen and hashable, so identical pairs in a batch are judged once.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: Task
    text: str
    premises: tuple[str, ...] = ()
    query: str = ""

    @classmethod
    def support(cls, claim: str, premises: list[str] | tuple[str, ...]) -> Pair:
        """A support pair: is ``claim`` entailed by any of ``premises``?"""
        return trusted(cls, task=Task.SUPPORT, text=str(claim), premises=tuple(map(str, premises)), query="")

    @classmethod
    def relevance(cls, query: str, text: str) -> Pair:
        """A relevance pair: does ``text`` address ``query``?"""
        return trusted(cls, task=Task.RELEVANCE, text=str(text), premises=(), query=str(query))


class Usage(BaseModel):
    """Resources a verdict cost: requests sent, tokens in and out, money (in the judge's price unit)."""

    model_config = ConfigDict(extra="forbid")

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    cached: bool = False
    cache_hits: int = 0

    def __add__(self, other: Usage) -> Usage:
        """Totals; a verdict answered from the cache (``cached``) counts as one cache hit."""
        return Usage(
            requests=self.requests + other.requests,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost=self.cost + other.cost,
            cache_hits=self.cache_hits + other.cache_hits + int(self.cached) + int(other.cached),
        )


POSITIVE_LABELS = frozenset({"supported", "relevant"})


class Verdict(BaseModel):
    """A judge's answer for one pair.

    ``status`` ``ok`` carries a finite ``score`` in [0, 1] and a ``label`` (``supported`` / ``unsupported`` or
    ``relevant`` / ``irrelevant``); ``failed`` and ``skipped`` carry no score and a ``reason``. NaN never passes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    score: float | None = None
    label: str | None = None
    status: Status = Status.OK
    reason: str | None = None
    rationale: str | None = None
    usage: Usage | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Verdict:
        if self.status is Status.OK:
            if self.score is None or not math.isfinite(self.score) or not 0.0 <= self.score <= 1.0:
                raise ValueError(f"an ok verdict needs a finite score in [0, 1], got {self.score!r}")
        else:
            if self.score is not None:
                raise ValueError(f"a {self.status.value} verdict carries no score")
            if not self.reason:
                raise ValueError(f"a {self.status.value} verdict needs a reason")
        return self

    @property
    def positive(self) -> bool:
        """True when the judge said ``supported`` / ``relevant``."""
        return self.status is Status.OK and self.label in POSITIVE_LABELS

    @classmethod
    def failed(cls, reason: str, usage: Usage | None = None) -> Verdict:
        """A verdict for an item the judge could not decide."""
        return cls(status=Status.FAILED, reason=reason, usage=usage)

    @classmethod
    def skipped(cls, reason: str) -> Verdict:
        """A verdict for an item the judge did not attempt (budget reached, empty input...)."""
        return cls(status=Status.SKIPPED, reason=reason)
