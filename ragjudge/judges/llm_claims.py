"""Claim extraction by a language model: a :class:`~ragjudge.metrics.claims.ClaimSplitter` for the metrics.

The model decomposes each answer into atomic, self-contained claims (the prompt is the packaged ``claims``
template; untrusted text is fenced as in every ragjudge prompt). Calls are concurrent, cached and budgeted
exactly as the ``llm`` judge's, with the same options. A text the model could not split (failed, skipped,
unparseable after the repair turn) falls back to the sentence splitter, so a metric never loses a sample; the
fallbacks are counted in :attr:`LLMClaimSplitter.fallbacks` with their reasons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragjudge.judges.llm_engine import ClientFactory, KeyedJob, LLMEngine
from ragjudge.judges.llm_options import LLMOptions
from ragjudge.judges.llm_parse import Reply, parse_claims
from ragjudge.judges.llm_prompts import CLAIMS_SCHEMA, claims_messages
from ragjudge.judges.llm_run import Job, Outcome
from ragjudge.records import Status, Usage

if TYPE_CHECKING:
    from ragjudge.metrics.claims import ClaimSplitter

__all__ = ["LLMClaimSplitter"]


class LLMClaimSplitter:
    """Splits texts into claims with an LLM; ``options`` are the ``llm`` judge's options.

    ``usage`` sums requests, tokens and cost over every call; ``fallbacks`` lists, per text that fell back to
    ``fallback`` (the sentence splitter by default), the reason the model's split was not used.
    """

    def __init__(self, options: LLMOptions | Mapping[str, Any] | None = None, *,
                 fallback: ClaimSplitter | None = None, client_factory: ClientFactory | None = None,
                 **kwargs: Any) -> None:
        if isinstance(options, LLMOptions):
            self.options = options.model_copy(update=kwargs) if kwargs else options
        else:
            self.options = LLMOptions.model_validate({**(options or {}), **kwargs})
        if fallback is None:
            # Imported here: the metrics package may import this module to wire it into config.
            from ragjudge.metrics.claims import SentenceSplitter

            fallback = SentenceSplitter()
        self.fallback: ClaimSplitter = fallback
        self.engine = LLMEngine(self.options, client_factory)
        self.usage = Usage()
        self.fallbacks: list[str] = []

    def split(self, texts: Sequence[str]) -> list[list[str]]:
        """The claims of each text, in order; an empty text has none and costs no request."""
        wanted = [i for i, text in enumerate(texts) if text.strip()]
        outcomes = self.engine.run([self._job(texts[i]) for i in wanted])
        claims: list[list[str]] = [[] for _ in texts]
        for index, outcome in zip(wanted, outcomes, strict=True):
            claims[index] = self._claims(texts[index], outcome)
        return claims

    def close(self) -> None:
        """Close the cache file."""
        self.engine.close()

    def _job(self, text: str) -> KeyedJob:
        job = Job(claims_messages(text), CLAIMS_SCHEMA, "claims", self._parse)
        return KeyedJob("claims", {"answer": text}, job)

    def _parse(self, reply: Reply) -> list[str]:
        return [self.engine.redact(claim) for claim in parse_claims(reply)]

    def _claims(self, text: str, outcome: Outcome) -> list[str]:
        self.usage = self.usage + outcome.usage
        if outcome.status is Status.OK:
            return list(outcome.value)
        self.fallbacks.append(f"{outcome.status.value}: {outcome.reason}")
        return self.fallback.split([text])[0]

    def __repr__(self) -> str:
        return f"LLMClaimSplitter(model={self.options.model!r}, fallback={self.fallback!r})"
