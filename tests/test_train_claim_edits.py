"""``ragjudge train --claim-edits``: an entailed claim beside the same claim with one wrong detail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjudge.errors import ConfigError
from ragjudge.train_claim_edits import SOURCE, edit_claims
from ragjudge.train_data import Example

PREMISE = ("Jerome Patrick Flynn (born 16 March 1963) is an English actor and singer. He played Bronn in "
           "Game of Thrones and toured with Robson Green in the nineties.")
CLAIMS = ["Jerome Flynn was born in 1963.", "Flynn acted in Game of Thrones.", "Flynn is a singer as well.",
          "Robson Green toured with Flynn.", "Flynn is English by birth and by career."]


def _corpus() -> list[Example]:
    positives = [Example(PREMISE, claim, 1, "fever") for claim in CLAIMS]
    negatives = [Example(PREMISE, "Flynn was born in Paris in 1970.", 0, "fever")]
    return positives + negatives


def test_each_pair_is_the_entailed_claim_then_the_claim_with_one_edit() -> None:
    made = edit_claims(_corpus(), 1.0, seed=0, first_pair=7)
    assert made and len(made) % 2 == 0
    for index in range(0, len(made), 2):
        positive, negative = made[index], made[index + 1]
        assert positive.hypothesis in CLAIMS and positive.label == 1 and negative.label == 0
        assert positive.premise == negative.premise == PREMISE
        assert negative.hypothesis != positive.hypothesis
        assert positive.source == negative.source == SOURCE
        assert positive.pair == negative.pair == 7 + index // 2  # numbered on from first_pair


def test_the_number_edit_changes_the_number_of_the_claim() -> None:
    made = edit_claims([Example(PREMISE, "Jerome Flynn was born in 1963.", 1)], 1.0, seed=0, edits=("number",))
    assert [e.hypothesis for e in made][0] == "Jerome Flynn was born in 1963."
    edited = made[1].hypothesis
    assert edited.startswith("Jerome Flynn was born in ") and "1963" not in edited


def test_only_entailed_claims_of_the_corpus_give_pairs() -> None:
    corpus = [Example(PREMISE, "Flynn was born in Paris in 1970.", 0, "fever"),  # not entailed
              Example(PREMISE, "Flynn sings.", 1, "fever"),  # under MIN_WORDS
              Example(PREMISE, "Flynn was born in 1963.", 1, "augment", 0),  # made by --augment
              Example(PREMISE, "Flynn was not born in 1963.", 0, "augment", 0)]
    assert edit_claims(corpus, 1.0, seed=0) == []


def test_a_name_that_only_grows_is_no_wrong_detail() -> None:
    # The name edit may put "Joseph Nocera" for "Nocera": the claim still holds, so it is no negative.
    corpus = [Example("the column by Joseph Nocera ran on Monday.", "the column was written by Nocera.", 1)]
    assert edit_claims(corpus, 1.0, seed=0, edits=("name",)) == []


def test_the_fraction_and_the_seed_fix_which_claims_are_edited() -> None:
    corpus = [Example(f"{PREMISE} Entry {i}.", f"Flynn was born in {1900 + i} or so.", 1) for i in range(200)]
    assert edit_claims(corpus, 0.0, seed=0) == []
    half = edit_claims(corpus, 0.5, seed=3)
    assert 60 <= len(half) // 2 <= 140
    assert half == edit_claims(corpus, 0.5, seed=3)
    assert half != edit_claims(corpus, 0.5, seed=4)


def test_the_lexical_edit_needs_a_lexicon() -> None:
    with pytest.raises(ValueError, match="lexicon"):
        edit_claims(_corpus(), 1.0, seed=0, edits=("lexical",))


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_a_fraction_outside_zero_to_one_is_refused(tmp_path: Path, value: float) -> None:
    from ragjudge.train import TrainConfig, check_config

    with pytest.raises(ConfigError, match="--claim-edits") as caught:
        check_config(TrainConfig(data=[], output=str(tmp_path), claim_edits=value))
    assert caught.value.key == "claim_edits"


def test_pair_loss_accepts_the_pairs_of_claim_edits_alone(tmp_path: Path) -> None:
    from ragjudge.train import TrainConfig, check_config, recipe

    check_config(TrainConfig(data=[], output=str(tmp_path), claim_edits=0.3, pair_loss=0.5))
    assert "claim_edits" not in recipe(TrainConfig(data=[], output=str(tmp_path)))
    assert recipe(TrainConfig(data=[], output=str(tmp_path), claim_edits=0.3))["claim_edits"] == 0.3


def test_the_training_set_gets_claim_edit_pairs_numbered_after_the_augment_pairs(tmp_path: Path) -> None:
    from ragjudge.train import TrainConfig, _examples

    rows = [{"premise": f"{PREMISE} Entry {i}.", "hypothesis": f"Flynn was born in {1900 + i} or so.",
             "label": "entailment" if i % 2 == 0 else "neutral"} for i in range(40)]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    config = TrainConfig(data=[str(data)], output=str(tmp_path / "out"), val_size=4, augment=1.0,
                         claim_edits=1.0)
    train_set, val_set = _examples(config)
    augmented = [e for e in train_set if e.source == "augment"]
    edited = [e for e in train_set if e.source == SOURCE]
    assert augmented and edited and len(val_set) == 4
    assert min(e.pair for e in edited) > max(e.pair for e in augmented)
    entailed = {e.hypothesis for e in train_set if e.source not in ("augment", SOURCE) and e.label == 1}
    assert {e.hypothesis for e in edited if e.label == 1} == entailed  # fraction 1: every entailed claim


def test_the_flag_reaches_the_training_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import ragjudge.train
    from ragjudge.cli import build_parser

    seen: list[ragjudge.train.TrainConfig] = []

    def record(config: ragjudge.train.TrainConfig) -> dict[str, object]:
        seen.append(config)
        return {}

    monkeypatch.setattr(ragjudge.train, "train", record)
    args = build_parser().parse_args(["train", "--data", "x.jsonl", "--output", str(tmp_path),
                                      "--claim-edits", "0.3", "--no-progress"])
    assert args.func(args) == 0
    assert seen[0].claim_edits == 0.3
