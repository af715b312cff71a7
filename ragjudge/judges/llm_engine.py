"""What the ``llm`` judge and the LLM claim splitter share: client, cache, format ladder, budget and counters.

:meth:`LLMEngine.run` takes keyed jobs, answers what it can from the cache, sends the rest through a
:class:`~ragjudge.judges.llm_run.Runner`, and stores each answer the moment it arrives. Identical inputs in
one call are asked once. The openai package is imported here, at construction, never at ``import ragjudge``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ragjudge.errors import ConfigError, MissingDependencyError
from ragjudge.judges.llm_cache import AnswerCache, CacheKeyer
from ragjudge.judges.llm_formats import FormatLadder
from ragjudge.judges.llm_options import VOLATILE_OPTIONS, LLMOptions, default_cache_path
from ragjudge.judges.llm_prompts import template_versions
from ragjudge.judges.llm_run import Budget, Job, Outcome, Runner, RunStats
from ragjudge.judges.llm_secrets import LOCAL_PLACEHOLDER_KEY, Redactor, read_api_key
from ragjudge.records import Status, Usage

__all__ = ["ClientFactory", "KeyedJob", "LLMEngine", "run_sync"]

T = TypeVar("T")
log = logging.getLogger("ragjudge.judges.llm")
ClientFactory = Callable[[], Any]


@dataclass(frozen=True)
class KeyedJob:
    """A job with what identifies its answer: the kind of question and the exact inputs (JSON-able)."""

    kind: str
    inputs: Any
    job: Job


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from synchronous code, even when this thread already runs an event loop.

    Inside a running loop (a notebook, an async application) ``asyncio.run`` is not allowed, so the coroutine
    gets its own loop in a worker thread and this thread waits for it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ragjudge-llm") as pool:
        return pool.submit(asyncio.run, coro).result()


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as error:
        raise MissingDependencyError("the llm judge", "llm", "openai") from error
    return openai


class LLMEngine:
    """Runs keyed jobs against one model with caching; one engine per judge (or splitter) instance."""

    def __init__(self, options: LLMOptions, client_factory: ClientFactory | None = None) -> None:
        self.options = options
        self._openai = _import_openai()
        self._client_factory = client_factory
        self._api_key = read_api_key(options.api_key_env)
        self.redact = Redactor([self._api_key])
        self.ladder = FormatLadder(options.response_format, options.logprobs)
        self.budget = Budget(options.max_cost, options.max_tokens_total)
        self.stats = RunStats()
        self.keyer = CacheKeyer(self.cache_context())
        self._cache: AnswerCache | None = None

    def cache_context(self) -> dict[str, Any]:
        """Everything but the inputs that goes into a cache key (never the API key)."""
        opts = self.options.model_dump(mode="json", exclude=set(VOLATILE_OPTIONS) | {"base_url"})
        return {"endpoint": self.options.endpoint_id(), "options": opts, "prompts": template_versions()}

    @property
    def cache(self) -> AnswerCache | None:
        """The answer cache, opened on first use; None with ``cache=False``."""
        if self._cache is None and self.options.cache:
            self._cache = AnswerCache(self.options.cache_path or default_cache_path())
        return self._cache

    def run(self, jobs: Sequence[KeyedJob]) -> list[Outcome]:
        """:meth:`arun` from synchronous code."""
        return run_sync(self.arun(jobs))

    async def arun(self, jobs: Sequence[KeyedJob]) -> list[Outcome]:
        """One outcome per job, in order: cached answers first, the rest asked of the model."""
        keys = [self.keyer.key(j.kind, j.inputs) for j in jobs]
        found = self.cache.get_many(keys) if self.cache is not None else {}
        todo = [key for key in dict.fromkeys(keys) if key not in found]
        first = {key: job for key, job in zip(keys, jobs, strict=True) if key not in found}
        answers = await self._ask([first[key].job for key in todo], todo) if todo else []
        asked = dict(zip(todo, answers, strict=True))
        hits = sum(1 for key in keys if key in found)
        self.stats.cache_hits += hits
        outcomes = [_answer(key, found, asked, seen) for seen, key in _first_sightings(keys)]
        ended = dict(Counter(o.status.value for o in outcomes))
        log.info("llm %s: %d items, %d from cache, %d distinct asked: %s", self.options.model, len(jobs),
                 hits, len(todo), ended)
        return outcomes

    async def _ask(self, jobs: list[Job], keys: list[str]) -> list[Outcome]:
        client = self._client()
        runner = Runner(client, self._openai, self.options, self.ladder, self.budget, self.stats, self.redact,
                        takes_slots=self._loopback())
        cache = self.cache

        def store(index: int, outcome: Outcome) -> None:
            if cache is not None and outcome.status is Status.OK:
                cache.put(keys[index], outcome.value)

        try:
            return await runner.run(jobs, store)
        finally:
            if self._client_factory is None:
                await client.close()

    def _client(self) -> Any:
        """A client for this event loop (an async client is bound to the loop it first runs in)."""
        if self._client_factory is not None:
            return self._client_factory()
        key = self._api_key
        if key is None:
            if not self.options.is_local():
                raise ConfigError(f"environment variable {self.options.api_key_env} is not set; the llm "
                                  f"judge needs a key for {self.options.endpoint_id()}", key="api_key_env")
            key = LOCAL_PLACEHOLDER_KEY
        extra: dict[str, Any] = {}
        if self._loopback():
            from ragjudge.judges.llm_client import http_library
            from ragjudge.judges.llm_transport import loopback_client

            extra["http_client"] = loopback_client(http_library())
        return self._openai.AsyncOpenAI(api_key=key, base_url=self.options.resolved_base_url(), max_retries=0,
                                        timeout=self.options.timeout, **extra)

    def _loopback(self) -> bool:
        """Whether this engine's client is the lean loopback client (see llm_transport), which also takes the
        concurrency slots itself: a server on this machine over plain HTTP, and no client from a factory."""
        return (self._client_factory is None and self.options.is_local()
                and urlsplit(self.options.resolved_base_url()).scheme == "http")

    def close(self) -> None:
        """Close the cache file."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None


def _first_sightings(keys: list[str]) -> list[tuple[bool, str]]:
    """(already seen earlier in the list, key) for each key: repeats are served without new usage."""
    seen: set[str] = set()
    marked = []
    for key in keys:
        marked.append((key in seen, key))
        seen.add(key)
    return marked


def _answer(key: str, found: dict[str, Any], asked: dict[str, Outcome], repeat: bool) -> Outcome:
    if key in found:
        return Outcome(Status.OK, found[key], usage=Usage(cached=True))
    outcome = asked[key]
    if repeat:  # the same input earlier in this call paid for it; this copy costs nothing
        return Outcome(outcome.status, outcome.value, outcome.reason, Usage(cached=True))
    return outcome
