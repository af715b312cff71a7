"""``ragjudge train --pair-loss``: each augmented positive and its hard negative share a batch and are ranked."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ragjudge.errors import ConfigError
from ragjudge.train_augment import augment
from ragjudge.train_data import Example
from ragjudge.train_dilute import dilute

os.environ["HF_HUB_OFFLINE"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tiny_nli.py

PREMISES = [f"Player {name} scored {n} goals for the club in {1990 + n}, and the fans were not happy about it."
            for n, name in enumerate(["Alice Smith", "Bob Jones", "Carol White", "Dan Brown", "Eve Black",
                                      "Frank Green", "Gina Gray", "Hugo Stone"], start=2)]


def _examples() -> list[Example]:
    lone = [Example(p, f"Someone scored {i} goals.", i % 2, "x") for i, p in enumerate(PREMISES)]
    return lone + augment(lone, 1.0, seed=0, extrinsic=1.0)


def test_augment_numbers_each_positive_and_its_negative_alike() -> None:
    made = augment([Example(p, "h", 1) for p in PREMISES], 1.0, seed=0, extrinsic=1.0)
    assert made and all(e.pair >= 0 for e in made)
    for first, second in zip(made[::2], made[1::2], strict=True):
        assert first.pair == second.pair and (first.label, second.label) == (1, 0)
    assert len({e.pair for e in made}) == len(made) // 2
    # Dilution gives an example another premise but keeps it in its pair.
    assert [e.pair for e in dilute(made, 1.0, seed=0)] == [e.pair for e in made]


def test_pairs_share_a_batch_and_every_example_comes_once() -> None:
    pytest.importorskip("torch")
    from tiny_nli import build_tokenizer

    from ragjudge.train_loop import Batches

    examples = _examples()
    batches = Batches(build_tokenizer(), examples, max_length=64, batch_size=5, seed=1, pairs=True)
    for epoch in (0, 1):
        order = batches.order(epoch)
        assert sorted(i for rows in order for i in rows.tolist()) == list(range(len(examples)))
        assert all(len(rows) <= 5 for rows in order)
        where = {i: b for b, rows in enumerate(order) for i in rows.tolist()}
        for i, e in enumerate(examples):
            partner = [j for j, f in enumerate(examples) if f.pair == e.pair and j != i] if e.pair >= 0 else []
            assert all(where[j] == where[i] for j in partner)
        assert [r.tolist() for r in order] == [r.tolist() for r in batches.order(epoch)]  # seeded
    batch = next(batches.epoch(0))
    rows = batch["pair_rows"].tolist()
    labels = batch["labels"].tolist()
    assert all(labels[pos] == 1 and labels[neg] == 0 for pos, neg in rows)
    in_batch = batches.order(0)[0]
    assert len(rows) == len({examples[i].pair for i in in_batch.tolist() if examples[i].pair >= 0})
    # Without pairs the order is the one earlier runs had: no pair_rows, same batches as before the option.
    plain = Batches(build_tokenizer(), examples, max_length=64, batch_size=5, seed=1)
    assert "pair_rows" not in next(plain.epoch(0))


def test_pair_loss_ranks_the_positive_above_the_negative() -> None:
    torch = pytest.importorskip("torch")
    from ragjudge.train_loop import pair_loss

    rows = torch.tensor([[0, 1]])
    good = torch.tensor([[0.0, 3.0], [3.0, 0.0]])  # positive margin +3, negative margin -3
    bad = torch.tensor([[3.0, 0.0], [0.0, 3.0]])
    assert float(pair_loss(good, rows)) == pytest.approx(float(torch.nn.functional.softplus(torch.tensor(-6.0))))
    assert float(pair_loss(bad, rows)) == pytest.approx(6.0, abs=0.01)
    assert float(pair_loss(good, torch.zeros((0, 2), dtype=torch.long))) == 0.0
    logits = bad.clone().requires_grad_()
    pair_loss(logits, rows).backward()
    assert logits.grad is not None and logits.grad[0, 1] < 0 < logits.grad[1, 1]  # pushes the right way


@pytest.mark.parametrize(("settings", "key"), [
    ({"pair_loss": 1.0}, "pair_loss"),  # no --augment, so no pairs
    ({"augment": 0.5, "pair_loss": -1.0}, "pair_loss"),
    ({"augment": 0.5, "pair_loss": float("inf")}, "pair_loss"),
], ids=["without-augment", "negative", "infinite"])
def test_pair_loss_settings_that_mean_nothing_are_refused(tmp_path: Path, settings: dict[str, object],
                                                          key: str) -> None:
    from ragjudge.train import TrainConfig, check_config

    with pytest.raises(ConfigError) as caught:
        check_config(TrainConfig(data=[], output=str(tmp_path), **settings))  # type: ignore[arg-type]
    assert caught.value.key == key


def test_pair_loss_enters_the_recipe_only_when_used(tmp_path: Path) -> None:
    from ragjudge.train import TrainConfig, recipe

    assert "pair_loss" not in recipe(TrainConfig(data=[], output=str(tmp_path), augment=0.5))
    assert recipe(TrainConfig(data=[], output=str(tmp_path), augment=0.5, pair_loss=0.5))["pair_loss"] == 0.5


@pytest.mark.slow
def test_a_run_with_pair_loss_trains_and_records_it(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from tiny_nli import save_tiny

    from ragjudge.cli import build_parser
    from ragjudge.judges.nli import METADATA_FILE

    base = save_tiny(tmp_path / "base")
    rows = [{"premise": p, "hypothesis": f"Someone scored {i} goals.", "label": i % 2}
            for i, p in enumerate(PREMISES)] * 2
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    output = tmp_path / "judge"
    args = build_parser().parse_args([
        "train", "--data", str(data), "--output", str(output), "--base", str(base), "--augment", "1.0",
        "--pair-loss", "0.5", "--batch-size", "6", "--val-size", "4", "--max-length", "64", "--threads", "1",
        "--save-every", "0", "--no-progress"])
    assert args.func(args) == 0
    metadata = json.loads((output / METADATA_FILE).read_text())
    assert metadata["pair_loss"] == 0.5 and metadata["steps"] >= 2


def test_a_pair_weighted_past_the_batch_size_goes_in_as_couples() -> None:
    pytest.importorskip("torch")
    from tiny_nli import build_tokenizer

    from ragjudge.train_data import weighted
    from ragjudge.train_loop import Batches

    # --weight augment=5 makes five copies of each example of a pair: ten members, more than a batch of 4 holds.
    made = augment([Example(p, "h", 1, "x") for p in PREMISES[:2]], 1.0, seed=0)
    examples = weighted(made, {"augment": 5.0}, 0)
    assert len(examples) == 5 * len(made)
    batches = Batches(build_tokenizer(), examples, max_length=64, batch_size=4, seed=0, pairs=True)
    order = batches.order(0)
    assert all(len(rows) <= 4 for rows in order)
    assert sorted(i for rows in order for i in rows.tolist()) == list(range(len(examples)))
    # Every batch still ranks whole (positive, negative) couples of one pair.
    for rows in order:
        tensors = batches.tensors(rows, with_labels=True)
        assert len(tensors["pair_rows"]) >= 1
