"""Premises among related sentences of other premises, for ``ragjudge train --dilute`` (ragjudge.train_dilute)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from ragjudge.errors import ConfigError
from ragjudge.train_data import Example
from ragjudge.train_dilute import dilute

PREMISES = [
    "The orchestra played a symphony by Brahms in the old concert hall.",
    "A violinist from Vienna joined the orchestra for its winter season.",
    "The concert hall was rebuilt after a fire destroyed its wooden roof.",
    "Brahms wrote four symphonies and many pieces for the piano.",
    "The symphony orchestra of Vienna played Brahms in the concert hall on Sunday evening.",  # says it all
    "Farmers in the valley grow apples and pears on small family plots.",
    "The museum opened a new wing for modern sculpture last spring.",
]
HYPOTHESIS = "The orchestra of Vienna played a symphony by Brahms."


def examples() -> list[Example]:
    return [Example(PREMISES[0], HYPOTHESIS, 1, "mnli"), Example(PREMISES[5], "Farmers grow apples.", 1, "mnli"),
            *(Example(p, "Something unrelated happened somewhere else today.", 0, "mnli") for p in PREMISES[1:])]


def test_the_premise_stays_whole_among_related_sentences_of_other_premises() -> None:
    before = examples()
    after = dilute(before, 1.0, seed=0)
    assert len(after) == len(before)
    assert [(e.hypothesis, e.label, e.source) for e in after] == [(e.hypothesis, e.label, e.source) for e in before]
    first = after[0].premise
    assert PREMISES[0] in first and first != PREMISES[0]  # the premise whole, with sentences around it
    # Related: the sentences that share a content word with the hypothesis (orchestra, Vienna; Brahms), and
    # nothing else; the one that holds half or more of its content words (it might entail it) is never added.
    added = first.replace(PREMISES[0], " ").split()
    assert sorted(added) == sorted((PREMISES[1] + " " + PREMISES[3]).split())
    assert len(first.split()) <= 140


def test_seeded_and_fractional() -> None:
    many = [Example(p, HYPOTHESIS, i % 2, "mnli") for i, p in enumerate(PREMISES[:4]) for _ in range(50)]
    assert dilute(many, 0.5, seed=3) == dilute(many, 0.5, seed=3)
    assert dilute(many, 0.5, seed=3) != dilute(many, 0.5, seed=4)
    changed = sum(a.premise != b.premise for a, b in zip(many, dilute(many, 0.5, seed=3), strict=True))
    assert 60 <= changed <= 140
    assert dilute(many, 0.0, seed=3) == many


def test_long_premises_and_hypotheses_without_related_sentences_are_left_alone() -> None:
    long_premise = " ".join(PREMISES[1:])  # six sentences already: what a window would show
    kept = [Example(long_premise, HYPOTHESIS, 1, "fever"),
            Example(PREMISES[6], "Sculpture.", 0, "mnli"),  # one content word: every related sentence holds half
            Example(PREMISES[2], "Zebras are striped.", 1, "mnli")]  # no sentence mentions zebras
    assert dilute(kept + examples(), 1.0, seed=0)[:3] == kept
    assert dilute(examples(), 1.0, seed=0, max_words=len(PREMISES[0].split()))[0].premise == PREMISES[0]


def test_word_budget_is_kept() -> None:
    for budget in (25, 40, 80):
        for example in dilute(examples(), 1.0, seed=1, max_words=budget):
            original = next(e for e in examples() if e.premise in example.premise)
            assert example.premise == original.premise or len(example.premise.split()) <= budget


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_out_of_range_dilute_is_refused(tmp_path: Path, value: float) -> None:
    from ragjudge.train import TrainConfig, check_config, recipe

    config = TrainConfig(data=[str(tmp_path / "never-read.jsonl")], output=str(tmp_path / "out"), dilute=value)
    with pytest.raises(ConfigError) as caught:
        check_config(config)
    assert caught.value.key == "dilute"
    with pytest.raises(ValueError, match="dilute"):
        dilute(examples(), value, seed=0)
    # The setting is part of a run's identity when used, and earlier runs' identities stay what they were.
    assert "dilute" not in recipe(TrainConfig(data=[], output=""))
    assert recipe(TrainConfig(data=[], output="", dilute=0.2))["dilute"] == 0.2


def test_training_examples_are_diluted_and_validation_is_not(tmp_path: Path) -> None:
    import json

    from ragjudge.cli import build_parser
    from ragjudge.train import TrainConfig, _examples

    rows = [{"premise": e.premise, "hypothesis": e.hypothesis, "label": "entailment" if e.label else "neutral"}
            for e in examples()] * 3
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    train_set, val_set = _examples(TrainConfig(data=[str(path)], output=str(tmp_path / "out"), val_size=4,
                                               dilute=1.0))
    assert all(e.premise in PREMISES for e in val_set)  # validation measures the task as it is
    assert any(e.premise not in PREMISES for e in train_set)
    args = build_parser().parse_args(["train", "--data", "x.jsonl", "--output", "out", "--dilute", "0.2"])
    assert args.dilute == 0.2


def test_the_benchmark_command_line_parses(train_nli_benchmark: ModuleType) -> None:
    """benchmarks/train_nli.py's TRAIN_ARGS is the documented training run: every flag in it must exist."""
    from ragjudge.cli import build_parser

    args = build_parser().parse_args(["train", *train_nli_benchmark.TRAIN_ARGS, "--output", "out"])
    assert (args.dilute, args.augment, args.bf16) == (0.2, 0.4, True)
