"""The llm judge against a real OpenAI-compatible server: llama.cpp serving Gemma 3 270M.

The model is tiny and judges poorly; these tests prove the plumbing (format detection, schema-constrained
output, usage, cache) against a real server, not the quality of the verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llama_server import LlamaServer

from ragjudge.judges.llm import LLMJudge
from ragjudge.judges.llm_claims import LLMClaimSplitter
from ragjudge.judges.llm_prompts import VERDICT_SCHEMA, merge_system, support_messages
from ragjudge.records import Pair, Status

pytestmark = pytest.mark.slow

SUPPORT = [
    Pair.support("Paris is the capital of France.", ["Paris is the capital and largest city of France."]),
    Pair.support("The Eiffel Tower is in Rome.", ["The Eiffel Tower stands on the Champ de Mars in Paris."]),
    Pair.support("Water boils at 100 degrees Celsius at sea level.", ["At sea level water boils at 100 C."]),
    Pair.support("Einstein was born in 1879.", ["Albert Einstein was born on 14 March 1879 in Ulm."]),
]


class CountingClient:
    """Builds openai clients whose HTTP layer counts every request sent: the oracle for 'request-free'."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.sent = 0

    def __call__(self) -> Any:
        import httpx2
        import openai

        async def count(request: Any) -> None:
            self.sent += 1

        http = httpx2.AsyncClient(event_hooks={"request": [count]}, timeout=120)
        return openai.AsyncOpenAI(base_url=self.base_url, api_key="sk-no-key-required", max_retries=0,
                                  http_client=http)


def _judge(server: LlamaServer, cache: Path, counter: CountingClient, **options: Any) -> LLMJudge:
    # system_role "user": llama.cpp's gemma chat format drops system messages, and with them the fencing rule.
    base = {"model": server.model, "base_url": server.base_url, "cache_path": str(cache), "logprobs": False,
            "system_role": "user",
            "max_tokens": 64, "timeout": 120, "max_concurrency": 2, "backoff_base": 0.2}
    return LLMJudge({**base, **options}, client_factory=counter)


def test_support_batch_against_llama_cpp_then_request_free_rerun(llama_server: LlamaServer,
                                                                 tmp_path: Path) -> None:
    counter = CountingClient(llama_server.base_url)
    judge = _judge(llama_server, tmp_path / "c.db", counter)
    verdicts = judge.judge(SUPPORT)

    assert len(verdicts) == len(SUPPORT)
    for verdict in verdicts:
        assert verdict.status in (Status.OK, Status.FAILED)
        if verdict.status is Status.OK:
            assert verdict.label in ("supported", "unsupported") and verdict.score in (0.0, 1.0)
            assert verdict.rationale is not None  # only a parsed JSON object carries one
        else:
            assert verdict.reason
    assert sum(v.status is Status.OK for v in verdicts) >= len(SUPPORT) - 1
    # llama.cpp answers HTTP 500 to json_schema; the judge found that out and used JSON mode with the schema.
    assert judge.engine.ladder.downgrades == ["json_schema->json_object_schema"]
    usage = [v.usage for v in verdicts if v.usage is not None]
    assert sum(u.requests for u in usage) == counter.sent == judge.stats.requests
    assert all(u.input_tokens > 50 and u.output_tokens > 0 for u in usage if u.requests)

    sent_before = counter.sent
    rerun = _judge(llama_server, tmp_path / "c.db", counter).judge(SUPPORT)
    assert counter.sent == sent_before  # the cache answered everything
    ok = [i for i, v in enumerate(verdicts) if v.status is Status.OK]
    assert [rerun[i].label for i in ok] == [verdicts[i].label for i in ok]
    assert all(getattr(rerun[i].usage, "cached", False) for i in ok)


def test_llama_cpp_honours_the_verdict_schema(llama_server: LlamaServer) -> None:
    import openai

    client: Any = openai.OpenAI(  # Any: llama.cpp's schema extension is not in openai's types
        base_url=llama_server.base_url, api_key="sk-no-key-required", max_retries=0)
    messages: Any = merge_system(support_messages("The Moon orbits the Earth.", ["It is Earth's only satellite."]))
    request: dict[str, Any] = {"model": llama_server.model, "messages": messages, "max_tokens": 64,
                               "temperature": 0}
    completion = client.chat.completions.create(
        **request, response_format={"type": "json_object", "schema": VERDICT_SCHEMA})
    reply = json.loads(completion.choices[0].message.content or "")
    assert set(reply) == {"verdict", "rationale"} and reply["verdict"] in ("yes", "no")
    assert completion.usage is not None and completion.usage.prompt_tokens > 50
    with pytest.raises(openai.InternalServerError):  # the limit the judge has to detect
        standard = {"type": "json_schema", "json_schema": {"name": "v", "schema": VERDICT_SCHEMA}}
        client.chat.completions.create(**request, response_format=standard)


def test_relevance_with_logprobs_and_claim_splitting(llama_server: LlamaServer, tmp_path: Path) -> None:
    counter = CountingClient(llama_server.base_url)
    judge = _judge(llama_server, tmp_path / "c.db", counter, logprobs=True, max_tokens=32)
    [verdict] = judge.judge([Pair.relevance("What is the capital of France?", "Paris is its capital.")])
    assert verdict.status is Status.OK or verdict.reason
    if verdict.status is Status.OK:
        assert verdict.score is not None and 0.0 <= verdict.score <= 1.0

    splitter = LLMClaimSplitter({"model": llama_server.model, "base_url": llama_server.base_url,
                                 "cache_path": str(tmp_path / "c.db"), "logprobs": False, "max_tokens": 96,
                                 "system_role": "user",
                                 "timeout": 120}, client_factory=counter)
    [claims] = splitter.split(["Paris is the capital of France. It has about two million inhabitants."])
    assert claims and all(isinstance(c, str) and c for c in claims)  # the model's split, or the fallback's
    assert splitter.usage.requests + len(splitter.fallbacks) >= 1
