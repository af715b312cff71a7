"""Config files: YAML and TOML, shorthand forms, and errors that name the file and the key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.config import build_metrics, load_config, with_overrides
from ragjudge.errors import ConfigError

YAML = """
judge: {name: overlap, options: {threshold: 0.6}}
metrics:
  - faithfulness
  - name: answer_relevance
    judge: tfidf
  - name: context_precision
    options: {use_reference: false}
seed: 3
"""

TOML = """
seed = 3
[judge]
name = "overlap"
options = {threshold = 0.6}
[[metrics]]
name = "faithfulness"
[[metrics]]
name = "answer_relevance"
judge = "tfidf"
[[metrics]]
name = "context_precision"
options = {use_reference = false}
"""


@pytest.mark.parametrize(("suffix", "text"), [(".yaml", YAML), (".toml", TOML)], ids=["yaml", "toml"])
def test_yaml_and_toml_build_the_same_run(tmp_path: Path, suffix: str, text: str) -> None:
    path = tmp_path / f"run{suffix}"
    path.write_text(text)
    config = load_config(path)
    metrics = build_metrics(config, path=path)
    assert [m.name for m in metrics] == ["faithfulness", "answer_relevance", "context_precision"]
    assert metrics[0].judge is metrics[2].judge  # one judge instance per distinct spec
    assert metrics[0].judge is not None and metrics[0].judge.fingerprint["options"]["threshold"] == 0.6
    assert metrics[1].judge is not None and metrics[1].judge.name == "tfidf"
    assert config.seed == 3


@pytest.mark.parametrize(
    ("text", "key", "message"),
    [
        ("metrics: [faithfulness]\nseeds: 3\n", "seeds", "unknown key"),
        ("metrics:\n  - name: faithfulness\n    judgee: tfidf\n", "metrics.0.judgee", "unknown key"),
        ("batch_size: 0\n", "batch_size", "greater than or equal to 1"),
        ("judge: {name: overlap, options: {threshold: 7}}\n", "judge.options", "threshold"),
        ("judge: {name: nosuchjudge}\n", "judge.name", "unknown judge 'nosuchjudge'"),
        ("metrics:\n  - name: faithfulness\n    options: {claim_scoring: median}\n",
         "metrics.0.options.claim_scoring", "label"),
        ("metrics: [nosuchmetric]\n", "metrics.0.name", "nosuchmetric"),
    ],
    ids=["top-level", "nested", "bad-value", "judge-option", "unknown-judge", "metric-option", "unknown-metric"],
)
def test_errors_name_file_and_key_path(tmp_path: Path, text: str, key: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        build_metrics(load_config(path), path=path)
    assert caught.value.key == key
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_unparseable_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("seed = = 3")
    with pytest.raises(ConfigError, match="broken.toml: cannot parse"):
        load_config(path)


def test_command_line_overrides_replace_judges_and_metrics() -> None:
    config = with_overrides(load_config_text(YAML), metrics=["faithfulness", "answer_relevance"],
                            judge="tfidf", judge_options={"threshold": 0.2}, seed=9)
    metrics = build_metrics(config)
    assert {m.judge.name for m in metrics if m.judge} == {"tfidf"}
    assert config.seed == 9 and config.judge is not None and config.judge.options == {"threshold": 0.2}


def load_config_text(text: str):  # type: ignore[no-untyped-def]
    import yaml

    from ragjudge.config import parse_config

    return parse_config(yaml.safe_load(text))


def test_cache_flags_reach_only_judges_that_declare_them() -> None:
    from ragjudge.config import RunConfig

    config = with_overrides(RunConfig(), metrics=["faithfulness", "answer_relevance"], judge="llm",
                            judge_defaults={"cache": False, "cache_path": "/tmp/x.sqlite"})
    assert config.judge is not None and config.judge.options == {"cache": False, "cache_path": "/tmp/x.sqlite"}
    plain = with_overrides(RunConfig(), judge_defaults={"cache": False})
    assert plain.judge is not None and plain.judge.options == {}  # overlap keeps no cache
