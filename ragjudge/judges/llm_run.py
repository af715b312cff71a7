"""Running many LLM jobs at once: bounded concurrency, retries with backoff, one repair turn, a budget.

Every job ends in exactly one :class:`Outcome`: ``ok`` with its parsed value, ``failed`` with the reason, or
``skipped`` because the budget ran out. Nothing a server does (429, 5xx, timeouts, garbage) can make a job
disappear or raise out of :meth:`Runner.run`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ragjudge.judges.llm_client import TransportError, backoff_delay, send
from ragjudge.judges.llm_formats import FormatLadder, response_format
from ragjudge.judges.llm_options import LLMOptions
from ragjudge.judges.llm_parse import ParseError, Reply
from ragjudge.judges.llm_prompts import Message, merge_system, repair_message
from ragjudge.judges.llm_secrets import Redactor
from ragjudge.judges.llm_slots import CURRENT, Slot, SlotRefused
from ragjudge.records import Status, Usage

__all__ = ["Budget", "Job", "Outcome", "RunStats", "Runner"]

log = logging.getLogger("ragjudge.judges.llm")


@dataclass(frozen=True)
class Job:
    """One question for the model: its messages, the schema of the answer, and how to parse the reply.

    ``parse`` returns a JSON-able value (it is what the cache stores) or raises :class:`ParseError`.
    """

    messages: list[Message]
    schema: dict[str, Any]
    schema_name: str
    parse: Callable[[Reply], Any]


@dataclass(frozen=True)
class Outcome:
    """How one job ended; ``value`` is set only when ``status`` is ``ok``."""

    status: Status
    value: Any = None
    reason: str | None = None
    usage: Usage = field(default_factory=Usage)


@dataclass
class RunStats:
    """Counters over one judge's life: what was sent, retried, repaired, cached, and why things failed."""

    requests: int = 0
    retries: int = 0
    repairs: int = 0
    cache_hits: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)


class Budget:
    """Spending so far against ``max_cost`` / ``max_tokens_total``; checked before every request.

    Requests already in flight when the cap is reached still complete, so a run can overshoot by at most
    ``max_concurrency`` requests.
    """

    def __init__(self, max_cost: float | None, max_tokens_total: int | None) -> None:
        self.max_cost = max_cost
        self.max_tokens_total = max_tokens_total
        self.cost = 0.0
        self.tokens = 0

    @property
    def capped(self) -> bool:
        """Whether there is a cap at all."""
        return self.max_cost is not None or self.max_tokens_total is not None

    def add(self, tokens: int, cost: float) -> None:
        """Record what one reply used."""
        self.tokens += tokens
        self.cost += cost

    def exhausted(self) -> str | None:
        """Why no further request may be sent, or None while there is budget left."""
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"budget reached: max_cost {self.max_cost:g} (spent {self.cost:.6g})"
        if self.max_tokens_total is not None and self.tokens >= self.max_tokens_total:
            return f"budget reached: max_tokens_total {self.max_tokens_total} (used {self.tokens})"
        return None


def _total(tally: list[Usage]) -> Usage:
    return sum(tally, Usage())


class _Stop(Exception):
    """Ends a job early with a status and reason (budget reached, retries exhausted, fatal error)."""

    def __init__(self, status: Status, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Runner:
    """Runs jobs through one client: the settings, ladder, budget and stats are shared across batches."""

    def __init__(self, client: Any, openai: Any, options: LLMOptions, ladder: FormatLadder, budget: Budget,
                 stats: RunStats, redactor: Redactor, *, takes_slots: bool = False) -> None:
        self._client = client
        self._openai = openai
        self._opts = options
        self._ladder = ladder
        self._budget = budget
        self._stats = stats
        self._redact = redactor
        self._sem = asyncio.Semaphore(options.max_concurrency)  # requests at the server
        self._ahead = asyncio.Semaphore(2 * options.max_concurrency)  # requests built or at the server
        self._takes_slots = takes_slots
        self._rng = random.Random()

    async def run(self, jobs: Sequence[Job], on_done: Callable[[int, Outcome], None]) -> list[Outcome]:
        """Run every job; ``on_done(index, outcome)`` is called as each finishes (the cache writes there)."""
        async def one(index: int, job: Job) -> Outcome:
            outcome = await self._job(job)
            self._stats.outcomes[outcome.status.value] += 1
            on_done(index, outcome)
            return outcome

        return list(await asyncio.gather(*(one(i, job) for i, job in enumerate(jobs))))

    async def _job(self, job: Job) -> Outcome:
        tally: list[Usage] = []  # one entry per request, kept whatever way the job ends
        try:
            return Outcome(Status.OK, await self._answer(job, tally), usage=_total(tally))
        except _Stop as stop:
            return Outcome(stop.status, reason=stop.reason, usage=_total(tally))
        except Exception as error:  # a bug must cost one item, never the run
            log.exception("llm job failed unexpectedly")
            reason = self._redact(f"{type(error).__name__}: {error}")
            return Outcome(Status.FAILED, reason=reason, usage=_total(tally))

    async def _answer(self, job: Job, tally: list[Usage]) -> Any:
        """The parsed answer to ``job``, with one repair turn quoting the parse error; else :class:`_Stop`."""
        reply = await self._request(job.messages, job, tally)
        try:
            return job.parse(reply)
        except ParseError as error:
            first = self._redact(str(error))
        self._stats.repairs += 1
        turn = [*job.messages, {"role": "assistant", "content": reply.content}, repair_message(first)]
        reply = await self._request(turn, job, tally)
        try:
            return job.parse(reply)
        except ParseError as error:
            reason = self._redact(f"unparseable reply, also after one repair turn: {error}")
            raise _Stop(Status.FAILED, reason) from None

    async def _request(self, messages: list[Message], job: Job, tally: list[Usage]) -> Reply:
        """One completion for ``messages``, retried as the error allows; each request goes into ``tally``."""
        retry = 0
        while True:
            result = await self._attempt(messages, job, tally)
            if isinstance(result, Reply):
                return result
            error, stepped_down = result
            if stepped_down:
                continue  # the server refused a format or logprobs: ask again at once with the next setting
            if not error.retryable or retry >= self._opts.max_retries:
                attempts = f"{retry + 1} attempt{'s' if retry else ''}"
                raise _Stop(Status.FAILED, f"{error.kind}: {error.message} (after {attempts})")
            retry += 1
            self._stats.retries += 1
            await self._sleep(retry, error)

    async def _attempt(self, messages: list[Message], job: Job,
                       tally: list[Usage]) -> Reply | tuple[TransportError, bool]:
        """One request: the reply, or the error and whether the ladder stepped down.

        The body is built before the request holds a concurrency slot (at most one request per slot waits
        built); the slot is taken just before sending, by the transport when it can (see llm_slots), and its
        admission check refuses a body built under settings that have changed meanwhile.
        """
        while True:
            async with self._ahead:
                mode, logprobs = self._ladder.mode, self._ladder.logprobs
                body = self._body(messages, job, mode, logprobs)
                slot = Slot(self._sem, partial(self._admit, mode, logprobs, tally), self._early)
                token = CURRENT.set(slot) if self._takes_slots else None
                try:
                    if token is None:
                        await slot.take()
                    reply = await send(self._client, body, self._opts.timeout, self._openai)
                except SlotRefused as refused:
                    if refused.reason is not None:
                        raise _Stop(Status.SKIPPED, refused.reason) from None
                    continue  # the ladder moved while this body waited: build it again
                except TransportError as error:
                    error.message = self._redact(error.message)  # servers echo what they were sent
                    self._stats.errors[error.kind] += 1
                    return error, self._ladder.rejected(mode, logprobs, error)
                else:
                    # Count the reply before the slot is free (unless the transport freed it already, which
                    # it does only without a budget cap): the next admission check sees this spend.
                    self._ladder.succeeded(mode, logprobs)
                    tally.append(self._spend(reply))
                finally:
                    if token is not None:
                        CURRENT.reset(token)
                    slot.give_back()
            # The slot is free: let a request waiting for it go out before this reply is parsed, counted and
            # stored, so that work overlaps the next request's wait instead of delaying it.
            await asyncio.sleep(0)
            return reply

    def _admit(self, mode: str, logprobs: bool, tally: list[Usage]) -> None:
        """Admission to a slot: refused when the budget is spent, or (to be rebuilt) when the ladder has moved
        since the body was built; otherwise the request is counted as sent."""
        reason = self._budget.exhausted()
        if reason:
            raise SlotRefused(reason)
        if mode != self._ladder.mode or logprobs != self._ladder.logprobs:
            raise SlotRefused(None)
        tally.append(Usage(requests=1))
        self._stats.requests += 1

    def _early(self) -> bool:
        """Whether a slot may be freed as soon as the reply arrives, before it is counted: not under a budget
        cap (the next admission must see this spend) nor while the format ladder is still being probed."""
        return not self._budget.capped and self._ladder.settled

    def _spend(self, reply: Reply) -> Usage:
        cost = self._opts.cost(reply.input_tokens, reply.output_tokens)
        self._budget.add(reply.input_tokens + reply.output_tokens, cost)
        return Usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, cost=cost)

    async def _sleep(self, retry: int, error: TransportError) -> None:
        opts = self._opts
        delay = backoff_delay(retry, opts.backoff_base, opts.backoff_max, error.retry_after, self._rng)
        log.debug("retry %d after %s (%s) in %.2fs", retry, error.kind, error.message[:120], delay)
        await asyncio.sleep(delay)

    def _body(self, messages: list[Message], job: Job, mode: str, logprobs: bool) -> dict[str, Any]:
        opts = self._opts
        if opts.system_role == "user":
            messages = merge_system(messages)
        body: dict[str, Any] = {"model": opts.model, "messages": messages, "temperature": opts.temperature,
                                "max_tokens": opts.max_tokens}
        if opts.seed is not None:
            body["seed"] = opts.seed
        if logprobs:
            body.update(logprobs=True, top_logprobs=5)
        fmt = response_format(mode, job.schema, job.schema_name)
        if fmt is not None:
            body["response_format"] = fmt
        return body
