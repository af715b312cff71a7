"""The ``llm`` judge: support and relevance verdicts from any OpenAI-compatible chat-completions server.

Each pair becomes one request whose untrusted texts are fenced as data (see
:mod:`ragjudge.judges.llm_prompts`); the reply is a JSON verdict ``{"verdict": "yes" | "no", "rationale"}``,
obtained with the strongest structured-output mode the server accepts and parsed tolerantly, with one repair
turn (see :mod:`ragjudge.judges.llm_formats` and :mod:`ragjudge.judges.llm_parse`). The score is P(yes) when
the server returns logprobs, else 1.0 / 0.0. Requests run concurrently with retries and backoff; a budget cap
turns the remaining items into ``skipped`` verdicts; answers are cached on disk
(:mod:`ragjudge.judges.llm_cache`). Every pair ends ``ok``, ``failed`` with the reason, or ``skipped`` with the
reason; each verdict carries its usage (requests, tokens, cost; ``cached`` when answered without a request).

A local llama.cpp server, for example::

    judge = LLMJudge(model="gemma-3-270m", base_url="http://127.0.0.1:8080/v1", logprobs=False,
                     max_concurrency=2, system_role="user", cache_path="runs/llm.sqlite")
    verdicts = judge.judge([Pair.support("Paris is in France.", ["Paris is the capital of France."])])

(llama.cpp computes logprobs slowly and serves one request at a time, and its ``gemma`` chat format drops
system messages, hence those options.)
Needs the ``llm`` extra (``pip install 'ragjudge[llm]'``); the openai package is imported at construction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.llm_engine import ClientFactory, KeyedJob, LLMEngine
from ragjudge.judges.llm_options import VOLATILE_OPTIONS, LLMOptions
from ragjudge.judges.llm_parse import Reply, parse_verdict
from ragjudge.judges.llm_prompts import (
    VERDICT_SCHEMA,
    relevance_messages,
    support_messages,
    template_versions,
)
from ragjudge.judges.llm_run import Job, Outcome, RunStats
from ragjudge.records import Pair, Status, Task, Verdict

__all__ = ["LLMJudge"]

_LABELS = {Task.SUPPORT: ("supported", "unsupported"), Task.RELEVANCE: ("relevant", "irrelevant")}


class LLMJudge(Judge):
    """Judge of support and relevance by a language model behind an OpenAI-compatible API.

    ``client_factory`` is the test seam: a callable returning a ready async client (it is called once per
    batch, inside the batch's event loop). Without it the judge builds an ``openai.AsyncOpenAI``.
    """

    name = "llm"
    version = "1"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})
    volatile_options = VOLATILE_OPTIONS
    Options = LLMOptions

    options: LLMOptions

    def __init__(self, options: JudgeOptions | Mapping[str, Any] | None = None, *,
                 client_factory: ClientFactory | None = None, **kwargs: Any) -> None:
        super().__init__(options, **kwargs)
        self.engine = LLMEngine(self.options, client_factory)

    def identity(self) -> dict[str, Any]:
        """The base identity plus the prompt templates' versions and hashes.

        ``base_url`` appears as host, port and path only: URLs are where credentials hide (user info, an
        ``api-key`` query parameter), and the fingerprint is written into results.
        """
        body = super().identity()
        body["options"] = {**body["options"], "base_url": self.options.endpoint_id()}
        body["prompts"] = template_versions()
        return body

    @property
    def stats(self) -> RunStats:
        """Requests, retries, repairs, cache hits and errors by kind, over this judge's life."""
        return self.engine.stats

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """Judge every pair concurrently; one verdict per pair, in order (runs its own event loop)."""
        outcomes = self.engine.run(self._jobs(pairs))
        return [self._verdict(pair, outcome) for pair, outcome in zip(pairs, outcomes, strict=True)]

    async def ajudge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """:meth:`judge_batch` for callers already inside an event loop."""
        outcomes = await self.engine.arun(self._jobs(pairs))
        return [self._verdict(pair, outcome) for pair, outcome in zip(pairs, outcomes, strict=True)]

    def close(self) -> None:
        """Close the cache file."""
        self.engine.close()

    def _jobs(self, pairs: Sequence[Pair]) -> list[KeyedJob]:
        return [self._job(pair) for pair in pairs]

    def _job(self, pair: Pair) -> KeyedJob:
        if pair.task is Task.SUPPORT:
            messages = support_messages(pair.text, pair.premises)
            inputs: Any = {"claim": pair.text, "premises": list(pair.premises)}
        else:
            messages = relevance_messages(pair.query, pair.text)
            inputs = {"query": pair.query, "text": pair.text}
        return KeyedJob(pair.task.value, inputs, Job(messages, VERDICT_SCHEMA, "verdict", self._parse))

    def _parse(self, reply: Reply) -> dict[str, Any]:
        parsed = parse_verdict(reply)
        rationale = None if parsed.rationale is None else self.engine.redact(parsed.rationale)
        return {"yes": parsed.yes, "score": parsed.score, "rationale": rationale}

    def _verdict(self, pair: Pair, outcome: Outcome) -> Verdict:
        if outcome.status is not Status.OK:
            return Verdict(status=outcome.status, reason=outcome.reason, usage=outcome.usage)
        value = outcome.value
        positive, negative = _LABELS[pair.task]
        return Verdict(score=float(value["score"]), label=positive if value["yes"] else negative,
                       rationale=value.get("rationale"), usage=outcome.usage)
