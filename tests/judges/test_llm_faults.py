"""The llm judge against the scripted fault server: every item ends ok, failed or skipped, and is counted."""

from __future__ import annotations

import asyncio
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fault_server import EMPTY_BODY, OK, PROSE, TRUNCATED, Action, FaultServer, content, slow, status

from ragjudge.errors import ConfigError, MissingDependencyError
from ragjudge.judges.llm import LLMJudge
from ragjudge.judges.llm_claims import LLMClaimSplitter
from ragjudge.records import Pair, Status

_CLAIM = re.compile(r'name="claim">\n(.*?)\n</data-', re.DOTALL)


def make_judge(server: FaultServer, tmp_path: Path, **options: Any) -> LLMJudge:
    """A judge pointed at ``server`` with fast retries and a private cache."""
    base: dict[str, Any] = {"model": "m", "base_url": server.base_url, "cache_path": str(tmp_path / "c.db"),
                            "backoff_base": 0.01, "backoff_max": 0.2, "timeout": 2.0, "logprobs": False}
    return LLMJudge({**base, **options})


def pairs(n: int) -> list[Pair]:
    """``n`` distinct support pairs; odd ones carry NEGATIVE, so the server answers no to them."""
    return [Pair.support(f"claim {i}" + (" NEGATIVE" if i % 2 else ""), [f"premise {i}"]) for i in range(n)]


def claim_of(body: Any) -> str:
    match = _CLAIM.search(body["messages"][1]["content"])
    assert match is not None
    return match.group(1)


def expected_label(pair: Pair) -> str:
    return "unsupported" if "NEGATIVE" in pair.text else "supported"


@pytest.mark.parametrize("fault", [status(429, retry_after=0.3), status(500), status(503), slow(1.5),
                                   TRUNCATED, PROSE, EMPTY_BODY, content("")],
                         ids=["429-retry-after", "500", "503", "slow-past-timeout", "truncated-json", "prose",
                              "empty-body", "empty-content"])
def test_each_fault_then_success_is_retried_to_ok(fault: Action, fault_server: FaultServer,
                                                  tmp_path: Path) -> None:
    fault_server.script = [fault]
    # backoff_max above the Retry-After, which it would otherwise cap: the wait must be the server's.
    judge = make_judge(fault_server, tmp_path, timeout=0.5, backoff_max=1.0)
    start = time.monotonic()
    [verdict] = judge.judge(pairs(1))
    assert verdict.status is Status.OK and verdict.label == "supported"
    assert fault_server.count == 2 and verdict.usage is not None and verdict.usage.requests == 2
    if fault.retry_after:
        assert time.monotonic() - start >= fault.retry_after  # Retry-After honoured, not the 10 ms backoff
    if fault.kind in ("truncated", "prose", "content"):
        assert judge.stats.repairs == 1
        repair = fault_server.records[1].body["messages"]
        assert repair[-1]["role"] == "user" and "could not be used" in repair[-1]["content"]


@pytest.mark.parametrize(("fault", "reason"), [
    (status(500), r"server: HTTP 500.*after 3 attempts"),
    (status(400), r"client: HTTP 400.*after 1 attempt\)"),
    (slow(1.0), r"timeout: request timed out \(after 3 attempts"),
    (PROSE, r"unparseable reply, also after one repair turn"),
    (EMPTY_BODY, r"bad_response: malformed response"),
], ids=["500", "400-not-retried", "timeout", "prose", "empty-body"])
def test_persistent_fault_is_a_counted_failure_with_reason(fault: Action, reason: str,
                                                           fault_server: FaultServer, tmp_path: Path) -> None:
    fault_server.chooser = lambda index, body: fault
    judge = make_judge(fault_server, tmp_path, max_retries=2, timeout=0.3, response_format="json_object")
    verdicts = judge.judge(pairs(3))
    assert [v.status for v in verdicts] == [Status.FAILED] * 3
    assert all(v.reason and re.search(reason, v.reason) for v in verdicts), verdicts[0].reason
    assert sum(v.usage.requests for v in verdicts if v.usage) == fault_server.count


def _mixed_faults(seed: int, rate: float) -> Any:
    rng = random.Random(seed)
    kinds = [status(429, retry_after=0.01), status(500), status(502), slow(1.5), TRUNCATED, PROSE, EMPTY_BODY]

    def choose(index: int, body: Any) -> Action:
        return rng.choice(kinds) if rng.random() < rate else OK

    return choose


def test_thirty_percent_faults_over_500_judgements_lose_nothing(fault_server: FaultServer,
                                                                 tmp_path: Path) -> None:
    fault_server.chooser = _mixed_faults(seed=5, rate=0.3)
    batch = pairs(500)
    judge = make_judge(fault_server, tmp_path, timeout=0.5, max_retries=2, max_concurrency=32)
    verdicts = judge.judge(batch)

    counts = Counter(v.status.value for v in verdicts)
    assert len(verdicts) == 500 and counts["ok"] + counts["failed"] == 500, counts
    assert counts["failed"] > 0 and counts["ok"] > 400  # with 3 attempts a few items exhaust their retries
    for pair, verdict in zip(batch, verdicts, strict=True):
        if verdict.status is Status.OK:
            assert verdict.label == expected_label(pair)  # each verdict is its own item's, none swapped
        else:
            assert verdict.reason
    asked = {claim_of(r.body) for r in fault_server.records}
    for pair, verdict in zip(batch, verdicts, strict=True):
        # On a loaded machine a request can time out before the in-process server reads it; such an item is
        # a counted timeout failure, never a silent gap.
        assert pair.text in asked or "timeout" in (verdict.reason or "")
    sent = judge.stats.requests
    assert sum(v.usage.requests for v in verdicts if v.usage) == sent
    assert 0 <= sent - fault_server.count <= judge.stats.errors["timeout"] + judge.stats.errors["connection"]
    assert judge.stats.outcomes == counts


def test_budget_cap_skips_the_rest_with_the_reason(fault_server: FaultServer, tmp_path: Path) -> None:
    judge = make_judge(fault_server, tmp_path, max_concurrency=1, max_tokens_total=200)
    verdicts = judge.judge(pairs(10))
    counts = Counter(v.status.value for v in verdicts)
    assert counts["ok"] == fault_server.count >= 1 and counts["ok"] + counts["skipped"] == 10
    skipped = [v for v in verdicts if v.status is Status.SKIPPED]
    assert skipped and all((v.reason or "").startswith("budget reached: max_tokens_total") for v in skipped)
    assert judge.engine.budget.tokens >= 200


def test_usage_and_cost_are_counted_per_verdict(fault_server: FaultServer, tmp_path: Path) -> None:
    judge = make_judge(fault_server, tmp_path, price_input_per_1k=0.5, price_output_per_1k=2.0)
    verdicts = judge.judge(pairs(4))
    for verdict in verdicts:
        usage = verdict.usage
        assert usage is not None and usage.requests == 1
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert usage.cost == pytest.approx(usage.input_tokens * 0.0005 + usage.output_tokens * 0.002)


def test_rerun_with_cache_sends_nothing_and_failures_are_not_cached(fault_server: FaultServer,
                                                                    tmp_path: Path) -> None:
    fault_server.script = [OK, status(400)]  # the second request fails for good; the rest succeed
    first = make_judge(fault_server, tmp_path, max_concurrency=1).judge(pairs(6))
    assert [v.status for v in first].count(Status.FAILED) == 1 and fault_server.count == 6

    # other values of options that cannot change an answer: the cache still applies
    again = make_judge(fault_server, tmp_path, max_concurrency=4, timeout=9.0).judge(pairs(6))
    assert fault_server.count == 7  # only the failed item was asked again
    assert all(v.status is Status.OK for v in again)
    assert sum(1 for v in again if v.usage and v.usage.cached) == 5

    make_judge(fault_server, tmp_path).judge(pairs(6))
    assert fault_server.count == 7
    make_judge(fault_server, tmp_path, model="other").judge(pairs(6))  # another model: another answer
    assert fault_server.count == 13


def test_duplicate_pairs_in_a_batch_are_asked_once(fault_server: FaultServer, tmp_path: Path) -> None:
    batch = pairs(2) * 3
    verdicts = make_judge(fault_server, tmp_path, cache=False).judge(batch)
    assert fault_server.count == 2 and [v.label for v in verdicts] == ["supported", "unsupported"] * 3
    assert sum(v.usage.requests for v in verdicts if v.usage) == 2


def test_json_schema_rejected_by_server_falls_back_to_json_object_with_schema(fault_server: FaultServer,
                                                                              tmp_path: Path) -> None:
    fault_server.reject_json_schema = True  # as llama.cpp does: HTTP 500
    judge = make_judge(fault_server, tmp_path, max_concurrency=4)
    verdicts = judge.judge(pairs(8))
    assert all(v.status is Status.OK for v in verdicts)
    assert judge.engine.ladder.downgrades == ["json_schema->json_object_schema"]
    formats = [r.body["response_format"] for r in fault_server.records]
    assert sum(1 for f in formats if f["type"] == "json_schema") <= 4 + 1
    assert formats[-1]["type"] == "json_object"
    assert formats[-1]["schema"]["required"] == ["verdict", "rationale"]


def test_explicit_format_is_not_silently_changed(fault_server: FaultServer, tmp_path: Path) -> None:
    fault_server.reject_json_schema = True
    judge = make_judge(fault_server, tmp_path, response_format="json_schema", max_retries=1)
    verdicts = judge.judge(pairs(2))
    assert all(v.status is Status.FAILED and v.reason and "json_schema" in v.reason for v in verdicts)


def test_score_is_p_yes_from_logprobs_and_refused_logprobs_are_dropped(fault_server: FaultServer,
                                                                        tmp_path: Path) -> None:
    fault_server.p_yes = 0.7
    verdicts = make_judge(fault_server, tmp_path, logprobs=True, cache=False).judge(pairs(2))
    assert [v.score for v in verdicts] == [pytest.approx(0.7), pytest.approx(0.7)]
    assert [v.label for v in verdicts] == ["supported", "unsupported"]  # the label is the model's own answer
    assert fault_server.records[0].body["top_logprobs"] == 5

    fault_server.reject_logprobs = True
    judge = make_judge(fault_server, tmp_path, logprobs=True, cache=False)
    verdicts = judge.judge(pairs(2))
    assert [v.score for v in verdicts] == [1.0, 0.0] and "logprobs->none" in judge.engine.ladder.downgrades


def test_relevance_pairs(fault_server: FaultServer, tmp_path: Path) -> None:
    verdicts = make_judge(fault_server, tmp_path).judge([Pair.relevance("Where is Paris?", "In France."),
                                                        Pair.relevance("Where is Paris?", "NEGATIVE")])
    assert [v.label for v in verdicts] == ["relevant", "irrelevant"]
    assert 'name="question"' in fault_server.records[0].body["messages"][1]["content"]


def test_claim_splitter_uses_the_model_and_falls_back_per_text(fault_server: FaultServer,
                                                               tmp_path: Path) -> None:
    options = {"model": "m", "base_url": fault_server.base_url, "cache_path": str(tmp_path / "c.sqlite"),
               "backoff_base": 0.01, "max_retries": 0}
    splitter = LLMClaimSplitter(options)
    assert splitter.split(["Paris is in France. It is big.", ""]) == [["Paris is in France", "It is big"], []]
    assert fault_server.count == 1 and splitter.usage.requests == 1

    fault_server.chooser = lambda index, body: status(400)
    fallback = LLMClaimSplitter(options)
    assert fallback.split(["Rome is in Italy. It is old and famous."]) == [["Rome is in Italy.",
                                                                           "It is old and famous."]]
    assert len(fallback.fallbacks) == 1 and "HTTP 400" in fallback.fallbacks[0]


def test_judge_batch_works_inside_a_running_event_loop(fault_server: FaultServer, tmp_path: Path) -> None:
    judge = make_judge(fault_server, tmp_path, cache=False)

    async def inside() -> tuple[list[str | None], list[str | None]]:
        sync = [v.label for v in judge.judge(pairs(2))]
        native = [v.label for v in await judge.ajudge_batch(pairs(2))]
        return sync, native

    assert asyncio.run(inside()) == (["supported", "unsupported"], ["supported", "unsupported"])


def test_remote_endpoint_without_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.delenv("RAGJUDGE_NO_SUCH_KEY", raising=False)
    judge = LLMJudge(model="m", base_url="https://llm.example.invalid/v1", api_key_env="RAGJUDGE_NO_SUCH_KEY",
                     cache_path=str(tmp_path / "c.sqlite"))
    with pytest.raises(ConfigError, match="RAGJUDGE_NO_SUCH_KEY is not set"):
        judge.judge(pairs(1))


def test_missing_openai_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragjudge\[llm\]'"):
        LLMJudge(model="m")


def test_fingerprint_has_prompt_versions_and_ignores_volatile_options() -> None:
    a = LLMJudge(model="m", max_concurrency=1, timeout=5).fingerprint
    b = LLMJudge(model="m", max_concurrency=64, timeout=50).fingerprint
    assert a == b and a["prompts"]["support"].startswith("support@1:")
    assert LLMJudge(model="m2").fingerprint["id"] != a["id"]


def test_llm_judge_passes_the_judge_conformance_checks(fault_server: FaultServer, tmp_path: Path) -> None:
    from ragjudge.testing.conformance import check_judge

    check_judge(make_judge(fault_server, tmp_path, cache=False))
