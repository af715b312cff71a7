"""The Ray engine against the local one: same input, same per-sample outcomes, same summaries, byte for byte.

Ray runs locally with 2 CPUs and no dashboard, started once for the module. ``tfidf`` with ``idf="batch"`` is
the batching oracle: its scores depend on which samples share a batch, so it only agrees with the local engine
if Ray scores exactly the local engine's batches. The NLI judge is a tiny random BERT built here.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from ragjudge.config import build_metrics, parse_config
from ragjudge.data import read_samples
from ragjudge.engines import ray_worker
from ragjudge.engines.local import evaluate_local
from ragjudge.errors import ConfigError, MissingDependencyError
from ragjudge.records import Sample, Status

WORDS = ("the cat sat on mat dog ran in park paris is capital of france berlin germany a and not was it "
         "blue red green sky sun moon big small one two three").split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9))) + "."


def make_samples(n: int, seed: int = 0) -> list[Sample]:
    """Samples whose answers reuse context sentences some of the time; some without id, some unscorable."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        contexts = [" ".join(_sentence(rng) for _ in range(3)) for _ in range(rng.randint(0, 3))]
        pool = [s + "." for c in contexts for s in c.split(".") if s.strip()] or [_sentence(rng)]
        answer = " ".join(rng.choice(pool) if rng.random() < 0.6 else _sentence(rng) for _ in range(2))
        out.append(Sample(id=None if i % 4 == 0 else f"q{i}", question=_sentence(rng), contexts=contexts,
                          answer=answer if i % 17 else ""))
    return out


def write_jsonl(samples: list[Sample], path: Path) -> Path:
    path.write_text("".join(s.model_dump_json(exclude_none=True) + "\n" for s in samples), encoding="utf-8")
    return path


def write_parquet(samples: list[Sample], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": s.id, "question": s.question, "contexts": s.contexts, "answer": s.answer} for s in samples]
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def save_tiny_nli(directory: Path) -> Path:
    """A random 2-layer, hidden-32 BERT NLI classifier and a word-level tokenizer over :data:`WORDS`."""
    from ragjudge.testing.tiny_models import save_tiny_nli as save

    return save(directory, [".", *WORDS], max_length=128)


@pytest.fixture(scope="module")
def ray_local() -> Any:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Any:
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()  # the nli judge's ``threads: 1`` below is process-wide: give it back
    yield save_tiny_nli(tmp_path_factory.mktemp("tiny-nli"))
    torch.set_num_threads(threads)


def _config(judge: dict[str, Any], metrics: list[Any], batch_size: int, batches_per_task: int = 2) -> Any:
    return parse_config({"judge": judge, "metrics": metrics, "batch_size": batch_size, "engine": "ray",
                         "ray": {"batches_per_task": batches_per_task}, "bootstrap": {"resamples": 200}})


CASES = {
    "overlap-jsonl": ({"name": "overlap"}, ["faithfulness", "answer_relevance", "context_precision"],
                      "jsonl"),
    "tfidf-batch-idf-parquet": ({"name": "tfidf", "options": {"idf": "batch"}},
                                ["faithfulness", "answer_relevance"], "parquet"),
    "nli-in-memory": ({"name": "nli"}, [{"name": "faithfulness", "options": {"claim_scoring": "score"}}],
                      "memory"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_same_results_as_local(case: str, ray_local: Any, tiny_nli: Path, tmp_path: Path) -> None:
    from ragjudge.engines.ray_engine import evaluate_ray

    judge, metrics, kind = CASES[case]
    if judge["name"] == "nli":
        judge = {"name": "nli", "options": {"model": str(tiny_nli), "threads": 1}}
    samples = make_samples(230)
    source: Any = {"jsonl": lambda: write_jsonl(samples, tmp_path / "in.jsonl"),
                   "parquet": lambda: write_parquet(samples, tmp_path / "in.parquet"),
                   "memory": lambda: samples}[kind]()
    config = _config(judge, metrics, batch_size=32)
    local = evaluate_local(read_samples(write_jsonl(samples, tmp_path / "local.jsonl")), config,
                           progress=False)
    remote = evaluate_ray(source, config, output=tmp_path / "out", progress=False)
    assert remote.to_dict() == local.to_dict()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())["summary"]
    assert summary == local.to_dict()["summary"]
    pandas = pytest.importorskip("pandas")
    shards = pandas.concat(pandas.read_parquet(p) for p in sorted((tmp_path / "out").glob("part-*.parquet")))
    assert shards["id"].tolist() == local.ids


@pytest.mark.slow
def test_killed_actor_still_gives_complete_results(ray_local: Any, tiny_nli: Path, tmp_path: Path) -> None:
    from ray._private import state

    from ragjudge.engines.ray_engine import evaluate_ray

    samples = make_samples(200, seed=1)
    config = _config({"name": "nli", "options": {"model": str(tiny_nli), "threads": 1}}, ["faithfulness"], batch_size=5,
                     batches_per_task=1)
    killed: list[tuple[int, int]] = []

    def kill_one_actor(done: int) -> None:
        if killed or done >= len(samples):
            return
        actors = [a for a in state.actors().values() if "ScoreActor" in a["ActorClassName"]
                  and a["State"] == "ALIVE" and a["Pid"]]
        if actors:
            os.kill(actors[0]["Pid"], signal.SIGKILL)
            killed.append((actors[0]["Pid"], done))

    remote = evaluate_ray(samples, config, progress=False, on_progress=kill_one_actor)
    assert killed and killed[0][1] < len(samples), "no actor was killed mid-run"
    local = evaluate_local(samples, config, progress=False)
    assert remote.to_dict() == local.to_dict()


def test_failed_records_are_recorded_not_lost() -> None:
    built = build_metrics(parse_config({"metrics": ["faithfulness"]}))
    records = [{"id": "a", "answer": "the cat sat.", "contexts": ["the cat sat."]},
               {"id": "b", "contexts": 3}, ValueError("not JSON")]
    out = ray_worker.score_records(built, records)
    assert out["id"] == ["a", "b", None]
    found = [ray_worker.decode_outcome(json.loads(o)["faithfulness"]) for o in out["outcomes"]]
    assert [o.status for o in found] == [Status.OK, Status.FAILED, Status.FAILED]
    assert "invalid record" in (found[1].reason or "")


def test_outcome_round_trip_is_exact() -> None:
    from ragjudge.metrics.base import Outcome
    from ragjudge.records import Usage

    outcome = Outcome(1 / 3, components={"precision": 2 / 7}, usage=Usage(requests=2, cost=0.1 + 0.2))
    assert ray_worker.decode_outcome(json.loads(json.dumps(ray_worker.encode_outcome(outcome)))) == outcome


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjudge.engines.ray_engine import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragjudge\[ray\]'"):
        import_ray()


@pytest.mark.parametrize("data", [{"engine": "spark"}, {"ray": {"actor_pool_size": 0}},
                                  {"ray": {"bogus": 1}}], ids=["unknown-engine", "empty-pool", "unknown-key"])
def test_bad_engine_config_is_rejected(data: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        parse_config(data)


@pytest.mark.slow
def test_cli_engine_ray_writes_what_local_writes(ray_local: Any, tmp_path: Path) -> None:
    import argparse

    from ragjudge.cli import evaluate as cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers())
    data = write_jsonl(make_samples(70, seed=2), tmp_path / "in.jsonl")
    for engine in ("local", "ray"):
        args = parser.parse_args(["evaluate", str(data), "-m", "faithfulness", "-q", "--batch-size", "16",
                                  "--engine", engine, "-o", str(tmp_path / f"{engine}.json")])
        assert args.func(args) == 0
    assert (tmp_path / "ray.json").read_bytes() == (tmp_path / "local.json").read_bytes()


class _FakeRay:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)


@pytest.mark.parametrize(("address", "env", "expected"), [
    ("ray://head:10001", None, {"address": "ray://head:10001"}),
    (None, "10.0.0.1:6379", {"address": "10.0.0.1:6379"}),
    (None, None, {"num_cpus": 3, "include_dashboard": False}),
], ids=["config-address", "env-address", "start-local"])
def test_connect_joins_a_cluster_or_starts_one(address: str | None, env: str | None, expected: dict[str, Any],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjudge.engines.ray_engine import connect
    from ragjudge.engines.settings import RaySettings

    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    fake = _FakeRay()
    assert connect(fake, RaySettings(address=address, num_cpus=3)) is True
    assert fake.calls == [expected]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_shards_hold_every_row_in_order(fmt: str, tmp_path: Path) -> None:
    from ragjudge.engines.shards import ShardWriter

    samples = make_samples(250, seed=3)
    config = parse_config({"metrics": ["faithfulness", "context_precision"]})
    result = evaluate_local(samples, config, progress=False)
    writer = ShardWriter(tmp_path, build_metrics(config), fmt, rows_per_shard=100)
    for start in range(0, 250, 64):
        writer.write(result.ids[start:start + 64], {m: o[start:start + 64] for m, o in result.outcomes.items()})
    writer.close(result)
    parts = sorted(tmp_path.glob(f"part-*.{fmt}"))
    assert len(parts) == 3
    if fmt == "jsonl":
        rows = [json.loads(line) for p in parts for line in p.read_text().splitlines()]
    else:
        pandas = pytest.importorskip("pandas")
        frame = pandas.concat(pandas.read_parquet(p) for p in parts)
        rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    assert rows == json.loads(json.dumps(result.rows()))
