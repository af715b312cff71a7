"""``ragjudge train``: data formats, augmentation, and short real training runs on a tiny in-test model."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from ragjudge.errors import ConfigError, DataError
from ragjudge.train_augment import DEFAULT_EDITS, augment, perturb
from ragjudge.train_data import Example, data_fingerprint, read_examples, split_examples, weighted
from ragjudge.train_framing import PHRASES, frame

os.environ["HF_HUB_OFFLINE"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tiny_nli.py

NLI_ROWS = [
    {"premise": "the cat sat on the mat.", "hypothesis": "the cat sat", "label": "entailment",
     "source": "a"},
    {"premise": "the dog ran in the park.", "hypothesis": "the dog sat", "label": "contradiction",
     "source": "a"},
    {"premise": "paris is the capital of france.", "hypothesis": "paris is big", "label": "neutral",
     "source": "b"},
    {"premise": "the sky is blue.", "hypothesis": "the sky is red", "label": "not_entailment",
     "binary_label": 0, "source": "b"},
]
FAITH_ROWS = [
    {"id": 1, "question": "", "contexts": ["the sun is big.", "the moon is small."],
     "answer": "the sun is big", "label": 1},
    {"id": 2, "question": "", "contexts": ["the sun is big."], "answer": "the sun is small", "label": 0},
]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_reads_both_formats(tmp_path: Path) -> None:
    nli = read_examples(write_jsonl(tmp_path / "nli.jsonl", NLI_ROWS))
    assert [e.label for e in nli] == [1, 0, 0, 0] and nli[0].source == "a"
    faith = read_examples(write_jsonl(tmp_path / "faith.jsonl", FAITH_ROWS))
    assert faith[0] == Example("the sun is big.\n\nthe moon is small.", "the sun is big", 1, "faith")


@pytest.mark.parametrize(("line", "field"), [
    ("not json", None),
    ('{"premise": "p", "hypothesis": "h", "label": "maybe"}', "label"),
    ('{"question": "q"}', None),
], ids=["not-json", "bad-label", "unknown-format"])
def test_bad_line_names_file_and_line(tmp_path: Path, line: str, field: str | None) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(NLI_ROWS[0]) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        read_examples(path)
    assert caught.value.line == 2 and caught.value.field == field


def test_split_weights_and_hash_are_deterministic(tmp_path: Path) -> None:
    examples = [Example(f"p{i}", "h", i % 2, "x" if i < 10 else "y") for i in range(20)]
    assert split_examples(examples, 5, seed=1) == split_examples(examples, 5, seed=1)
    train_set, val = split_examples(examples, 5, seed=1)
    assert len(val) == 5 and not set(val) & set(train_set)
    doubled = weighted(examples, {"x": 2.0, "y": 0.0}, seed=0)
    assert len(doubled) == 20 and {e.source for e in doubled} == {"x"}
    a = write_jsonl(tmp_path / "a.jsonl", NLI_ROWS)
    assert data_fingerprint([a]) == data_fingerprint([a])
    assert data_fingerprint([a])["sha256"] != data_fingerprint([a, a])["sha256"]


@pytest.mark.parametrize("sentence", [
    "The bridge opened in 1932 and cost 40 million dollars to build.",
    "Maria Lopez met John Smith in Madrid last spring for the concert.",
    "The museum is closed on Mondays during the winter months of the year.",
], ids=["number", "name", "negation"])
def test_perturb_makes_a_small_different_sentence(sentence: str) -> None:
    premise = sentence + " Later Anna Berg visited Oslo with friends and colleagues."
    changed = perturb(sentence, premise, random.Random(0))
    assert changed is not None and changed != sentence
    assert abs(len(changed.split()) - len(sentence.split())) <= 3


def test_augment_pairs_positive_and_negative() -> None:
    premise = "The bridge opened in 1932. It cost 40 million dollars to build across the river."
    out = augment([Example(premise, "h", 1)], fraction=1.0, seed=0)
    assert [e.label for e in out] == [1, 0] and all(e.premise == premise for e in out)
    assert out == augment([Example(premise, "h", 1)], fraction=1.0, seed=0)


def test_extrinsic_pairs_continue_a_grounded_clause_with_another_premises_clause() -> None:
    premises = [
        "When the bridge opened in 1932, it was the longest in the world, and it cost 40 million dollars.",
        "The festival draws 30,000 people every summer, with bands from many countries playing on three stages.",
        "After the war ended in 1945, the factory made bicycles, and later it built small cars for export.",
        "In 1998 the river flooded the old town, destroying two hundred houses near the market square."]
    examples = [Example(p, "h", 1) for p in premises]
    plain = augment(examples, fraction=1.0, seed=3)
    out = augment(examples, fraction=1.0, seed=3, extrinsic=1.0)
    assert out == augment(examples, fraction=1.0, seed=3, extrinsic=1.0)
    pairs = [(out[i], out[i + 1]) for i in range(0, len(out), 2)]
    assert all((pos.label, neg.label) == (1, 0) and pos.premise == neg.premise for pos, neg in pairs)

    def foreign(pos: Example, neg: Example) -> str | None:
        """The clause the negative adds from another premise (None for the intrinsic edits)."""
        head = pos.hypothesis.split(", ")[0].rstrip(".")
        tail = neg.hypothesis[len(head):].removeprefix(",").strip().removeprefix("and ").removeprefix("while ")
        tail = tail.rstrip(".")
        if not neg.hypothesis.startswith(head) or not tail:
            return None
        return tail if any(tail.lower() in p.lower() for p in premises if p != pos.premise) else None

    extrinsic = [(pos, neg, tail) for pos, neg in pairs if (tail := foreign(pos, neg))]
    assert len(extrinsic) == len(premises) and len(out) - len(plain) == 2 * len(extrinsic)
    for pos, neg, tail in extrinsic:
        assert pos.hypothesis.rstrip(".") in pos.premise and tail and tail.lower() not in pos.premise.lower()
        # at most three words longer than the clause it stands in for, plus a one-word joiner
        assert len(neg.hypothesis.split()) - len(pos.hypothesis.split()) <= 4
        assert " and and " not in neg.hypothesis and "30, 000" not in neg.hypothesis + pos.hypothesis
    # Off by default: the random draws, and so an earlier run's training set, are unchanged.
    assert augment(examples, fraction=1.0, seed=3, extrinsic=0.0) == plain


@pytest.mark.parametrize(("sentence", "edit", "changed"), [
    ("Fourteen years later, Chill is freed.", "number-word", r"^(Eleven|Twelve|Thirteen|Fifteen|Sixteen|Seventeen) "),
    ("She won the race for the second time.", "number-word", r" (first|third|fourth|fifth) time"),
], ids=["cardinal", "ordinal"])
def test_number_word_edit_moves_the_number_along_its_scale(sentence: str, edit: str, changed: str) -> None:
    import re

    for seed in range(5):
        out = perturb(sentence, sentence, random.Random(seed), [edit])
        assert out is not None and re.search(changed, out), out
    assert perturb("No number here at all.", "", random.Random(0), ["number-word"]) is None


def test_foreign_name_comes_from_the_other_premise_and_never_from_this_one() -> None:
    sentence = "On Monday Anna Berg visited Oslo with her friends."
    other = "The concert in Bergen was led by Peter Smith, and Maria Lopez sang."
    for seed in range(8):
        out = perturb(sentence, sentence, random.Random(seed), ["foreign-name"], other)
        assert out is not None and out != sentence
        assert any(name in out for name in ("Bergen", "Peter Smith", "Maria Lopez"))
    assert perturb(sentence, sentence, random.Random(0), ["foreign-name"], "") is None


def test_augment_with_extra_edits_keeps_pairs_and_the_default_draws() -> None:
    premises = [f"In {1900 + i} the mayor Anna Berg opened the second bridge of Oslo, which cost {i + 3} million."
                for i in range(6)] + ["Peter Smith and Maria Lopez sang in Bergen for fourteen nights."]
    examples = [Example(p, "h", 1) for p in premises]
    assert augment(examples, 1.0, 0, edits=DEFAULT_EDITS) == augment(examples, 1.0, 0)
    out = augment(examples, 1.0, 0, edits=["foreign-name"])
    pairs = [(out[i], out[i + 1]) for i in range(0, len(out), 2)]
    assert pairs and all((pos.label, neg.label) == (1, 0) and pos.premise == neg.premise for pos, neg in pairs)
    foreign = ("Peter Smith", "Maria Lopez", "Bergen", "Anna Berg", "Oslo")
    assert all(any(n in neg.hypothesis and n not in pos.premise for n in foreign) for pos, neg in pairs)


def test_framing_copies_one_sentence_claims_with_a_dialogue_opening_and_the_same_label() -> None:
    examples = [Example("The cat sat on the mat.", "The cat sat on the mat.", 1, "a"),
                Example("The cat sat on the mat.", "A dog sat on the mat.", 0, "a"),
                Example("p", "Two sentences here. And a second one.", 1, "a"),
                Example("p", "Too short", 1, "a")] * 50
    out = frame(examples, 0.5, 0)
    assert out == frame(examples, 0.5, 0) and 20 < len(out) < 80
    for copy in out:
        phrase = next(p for p in PHRASES if copy.hypothesis.startswith(p))
        original = copy.hypothesis[len(phrase):]
        assert (copy.premise, copy.label, copy.source) in {("The cat sat on the mat.", 1, "framing"),
                                                           ("The cat sat on the mat.", 0, "framing")}
        assert original in {"the cat sat on the mat.", "a dog sat on the mat."}  # 'The' lowered after the phrase
    assert {c.label for c in out} == {0, 1}  # framing is no cue to the label
    assert frame(examples, 0.0, 0) == []


# -- real training on the tiny model ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    from tiny_nli import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tiny-base"))


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    rows = [dict(r, premise=r["premise"], hypothesis=r["hypothesis"]) for r in NLI_ROWS] * 4
    return write_jsonl(tmp_path / "train.jsonl", rows)


def _config(data: Path, output: Path, base: Path, **kwargs: object) -> object:
    from ragjudge.train import TrainConfig

    settings: dict[str, object] = dict(data=[str(data)], output=str(output), base=str(base), epochs=1,
                                       batch_size=6, val_size=4, max_length=48, progress=False, threads=1,
                                       save_every=0)
    settings.update(kwargs)
    return TrainConfig(**settings)  # type: ignore[arg-type]


@pytest.mark.slow
def test_two_step_run_saves_a_judge_that_loads_with_no_options(tmp_path: Path, tiny_base: Path,
                                                               data: Path) -> None:
    from ragjudge.judges.nli import METADATA_FILE, NLIJudge
    from ragjudge.records import Pair, Status
    from ragjudge.train import train

    output = tmp_path / "judge"
    metadata = train(_config(data, output, tiny_base, max_samples=12))  # type: ignore[arg-type]
    assert metadata["steps"] == 2 and metadata["max_length"] == 48
    assert set(metadata["val_metrics"]) >= {"auc", "balanced_accuracy", "n"}
    assert metadata["data"]["sha256"] == data_fingerprint([data])["sha256"]
    assert json.loads((output / METADATA_FILE).read_text())["label_map"] == {"0": "not_entailment",
                                                                             "1": "entailment"}
    judge = NLIJudge(model=str(output))
    assert judge.roles == {"contradiction": 0, "entailment": 1} and judge.max_length == 48
    [verdict] = judge.judge([Pair.support("the cat sat", ["the cat sat on the mat."])])
    assert verdict.status is Status.OK


@pytest.mark.slow
def test_max_steps_stops_the_run_there(tmp_path: Path, tiny_base: Path, data: Path) -> None:
    from ragjudge.train import train

    metadata = train(_config(data, tmp_path / "judge", tiny_base, epochs=3, max_steps=3))  # type: ignore[arg-type]
    assert metadata["steps"] == 3 and metadata["stop_reason"] == "step budget of 3 steps reached"
    # Resumed with a budget the checkpoint has already spent: no further step, the judge is still there.
    again = train(_config(data, tmp_path / "judge", tiny_base, epochs=3, max_steps=2))  # type: ignore[arg-type]
    assert again["steps"] == 3 and again["stop_reason"] == "step budget of 2 steps reached"
    assert (tmp_path / "judge" / "model.safetensors").is_file()
    with pytest.raises(ConfigError, match="--max-steps must be >= 1"):
        train(_config(data, tmp_path / "other", tiny_base, max_steps=0))  # type: ignore[arg-type]


@pytest.mark.slow
def test_resume_continues_from_the_checkpoint(tmp_path: Path, tiny_base: Path, data: Path) -> None:
    from ragjudge.train import train

    output = tmp_path / "judge"
    train(_config(data, output, tiny_base, max_samples=12, patience=5))  # type: ignore[arg-type]
    state = json.loads((output / "checkpoint" / "state.json").read_text())
    assert (state["epoch"], state["step"]) == (1, 2)
    again = _config(data, output, tiny_base, max_samples=12, epochs=2, patience=5)
    metadata = train(again)  # type: ignore[arg-type]
    assert metadata["steps"] == 4 and len(metadata["history"]) == 2
    other = write_jsonl(tmp_path / "other.jsonl", NLI_ROWS[:3] * 3)
    with pytest.raises(ConfigError, match="other data"):
        train(_config(other, output, tiny_base))  # type: ignore[arg-type]
    # The same data made into other examples (augmented here) is another run too: refused, naming the change.
    with pytest.raises(ConfigError, match=r"other settings \(augment 0.0 -> 0.5\)"):
        train(_config(data, output, tiny_base, max_samples=12, epochs=3, augment=0.5))  # type: ignore[arg-type]


@pytest.mark.parametrize(("settings", "key"), [
    ({"augment": 1.5}, "augment"),
    ({"augment": 0.5, "extrinsic": -0.1}, "extrinsic"),
    ({"extrinsic": 0.5}, "extrinsic"),  # would add nothing without --augment
    ({"weights": {"sick": -1.0}}, "weight"),
    ({"weights": {"sick": float("nan")}}, "weight"),
    ({"framing": 2.0}, "framing"),
    ({"transcript": -0.5}, "transcript"),
    ({"augment": 0.5, "edits": ("number", "typo")}, "edits"),
    ({"attention_dropout": 1.0}, "attention_dropout"),
    ({"attention_dropout": -0.1}, "attention_dropout"),
    ({"average_from": 1.0}, "average_from"),  # the mean of nothing
    ({"average_from": -0.5}, "average_from"),
], ids=["augment>1", "extrinsic<0", "extrinsic-alone", "negative-weight", "nan-weight", "framing>1",
        "transcript<0", "unknown-edit", "attention-dropout-1", "attention-dropout<0", "average-from-1",
        "average-from<0"])
def test_settings_that_would_do_nothing_or_nonsense_are_refused(tmp_path: Path, settings: dict[str, object],
                                                                key: str) -> None:
    from ragjudge.train import check_config, train

    config = _config(tmp_path / "never-read.jsonl", tmp_path / "out", tmp_path, **settings)
    with pytest.raises(ConfigError) as caught:
        check_config(config)  # type: ignore[arg-type]
    assert caught.value.key == key
    with pytest.raises(ConfigError):
        train(config)  # type: ignore[arg-type]  # refused before the data is read
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_same_seed_same_weights(tmp_path: Path, tiny_base: Path, data: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification

    from ragjudge.train import train

    for name in ("a", "b"):
        train(_config(data, tmp_path / name, tiny_base, max_samples=12, seed=3))  # type: ignore[arg-type]
    a, b = (AutoModelForSequenceClassification.from_pretrained(tmp_path / n).state_dict() for n in "ab")
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.slow
def test_bf16_autocast_training_keeps_float32_weights(tmp_path: Path, tiny_base: Path, data: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification

    from ragjudge.train import train

    for name, bf16 in (("fp32", False), ("bf16", True)):
        metadata = train(_config(data, tmp_path / name, tiny_base, max_samples=12, seed=3,  # type: ignore[arg-type]
                                 bf16=bf16))
        assert metadata["bf16"] is bf16 and metadata["steps"] == 2
    a, b = (AutoModelForSequenceClassification.from_pretrained(tmp_path / n).state_dict() for n in ("fp32", "bf16"))
    assert all(t.dtype == torch.float32 for t in b.values())  # the saved judge is float32 either way
    # The same seed and data: only the bf16 arithmetic of the forward passes can make the weights differ.
    differ = [k for k in a if a[k].is_floating_point() and not torch.equal(a[k], b[k])]
    assert differ and all(torch.allclose(a[k], b[k], atol=1e-2) for k in differ)


def test_bf16_training_warns_on_a_cpu_that_emulates_it(tmp_path: Path, tiny_base: Path, data: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from ragjudge.train import train

    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    with pytest.warns(RuntimeWarning, match="ragjudge train --bf16: this CPU has neither.*without --bf16"):
        metadata = train(_config(data, tmp_path / "out", tiny_base, max_samples=12, seed=3,  # type: ignore[arg-type]
                                 bf16=True, max_steps=1))
    assert metadata["bf16"] is True and metadata["steps"] == 1  # warned, and still trained as asked


@pytest.mark.slow
def test_attention_dropout_and_frozen_embeddings(tmp_path: Path, tiny_base: Path, data: Path) -> None:
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    from ragjudge.train import train

    assert AutoConfig.from_pretrained(tiny_base).attention_probs_dropout_prob == 0.1  # BERT's default
    output = tmp_path / "judge"
    metadata = train(_config(data, output, tiny_base, max_samples=12, attention_dropout=0.0,  # type: ignore[arg-type]
                             freeze_embeddings=True, patience=5))
    assert (metadata["attention_dropout"], metadata["freeze_embeddings"], metadata["steps"]) == (0.0, True, 2)
    assert AutoConfig.from_pretrained(output).attention_probs_dropout_prob == 0.0
    base = AutoModelForSequenceClassification.from_pretrained(tiny_base).state_dict()
    trained = AutoModelForSequenceClassification.from_pretrained(output).state_dict()
    key = "bert.embeddings.word_embeddings.weight"
    assert torch.equal(base[key], trained[key])  # frozen: exactly the base's
    moved = [k for k in base if k != key and "classifier" not in k and not torch.equal(base[k], trained[k])]
    assert "bert.embeddings.position_embeddings.weight" in moved and len(moved) > 10  # the rest trained
    # Both settings change the path training takes, so a resume with either changed is another run.
    with pytest.raises(ConfigError, match=r"attention_dropout 0.0 -> 0.1"):
        train(_config(data, output, tiny_base, max_samples=12, epochs=2,  # type: ignore[arg-type]
                      attention_dropout=0.1, freeze_embeddings=True))
    with pytest.raises(ConfigError, match=r"freeze_embeddings"):
        train(_config(data, output, tiny_base, max_samples=12, epochs=2,  # type: ignore[arg-type]
                      attention_dropout=0.0))
    resumed = train(_config(data, output, tiny_base, max_samples=12, epochs=2,  # type: ignore[arg-type]
                            attention_dropout=0.0, freeze_embeddings=True, patience=5))
    assert resumed["steps"] == 4
    again = AutoModelForSequenceClassification.from_pretrained(output).state_dict()
    assert torch.equal(base[key], again[key])  # still frozen after resuming from the checkpoint


def test_attention_dropout_on_a_config_without_one_names_the_model(tmp_path: Path, tiny_base: Path, data: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import ragjudge.train as train_module

    monkeypatch.setattr(train_module, "ATTENTION_DROPOUT_KEYS", ("dropout_on_attention",))
    with pytest.raises(ConfigError, match=r"--attention-dropout: the config of .*tiny-base.* \(BertConfig\) "
                                          r"has none of dropout_on_attention") as caught:
        train_module.train(_config(data, tmp_path / "out", tiny_base, attention_dropout=0.0))  # type: ignore[arg-type]
    assert caught.value.key == "attention_dropout"


def test_weight_average_is_the_running_mean_and_the_model_gets_its_own_weights_back(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from ragjudge.train_average import WeightAverage

    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    model[1].bias.requires_grad_(False)  # frozen: not averaged, left as it is
    average = WeightAverage(model)
    with average.applied(model):  # nothing averaged yet: the model's own weights
        assert torch.equal(model[0].weight, model[0].weight.detach().clone())
    seen = []
    for seed in range(3):
        torch.manual_seed(seed)
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randn_like(p))
        seen.append({n: p.detach().clone() for n, p in model.named_parameters()})
        average.update(model)
    own = {n: p.detach().clone() for n, p in model.named_parameters()}
    with average.applied(model):
        for name, p in model.named_parameters():
            expected = (torch.stack([s[name] for s in seen]).mean(0) if name != "1.bias" else own[name])
            assert torch.allclose(p, expected, atol=1e-6), name
    assert all(torch.equal(p, own[n]) for n, p in model.named_parameters())  # swapped back exactly
    average.save(tmp_path)
    again = WeightAverage(model)
    again.load(tmp_path)
    assert again.count == 3 and all(torch.equal(again.mean[n], average.mean[n]) for n in average.names)
    other = WeightAverage(torch.nn.Linear(3, 2))
    with pytest.raises(ConfigError, match=r"average.pt averages other parameters"):
        other.load(tmp_path)


@pytest.mark.slow
def test_average_from_validates_and_saves_the_mean_and_a_resumed_run_keeps_it(
        tmp_path: Path, tiny_base: Path, data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification

    from ragjudge.train import train
    from ragjudge.train_average import WeightAverage

    seen: list[dict[str, torch.Tensor]] = []
    update = WeightAverage.update

    def recording(self: WeightAverage, model: torch.nn.Module) -> None:
        seen.append({n: model.get_parameter(n).detach().clone() for n in self.names})
        update(self, model)

    monkeypatch.setattr(WeightAverage, "update", recording)
    output = tmp_path / "judge"
    # 2 steps an epoch, 4 in all: the second half of the run is the weights after steps 2, 3 and 4.
    metadata = train(_config(data, output, tiny_base, max_samples=12, epochs=2, eval_every=1,  # type: ignore[arg-type]
                             patience=10, average_from=0.5, save_every=1))
    assert metadata["steps"] == 4 and metadata["average_from"] == 0.5 and len(seen) == 3
    assert [h.get("averaged_steps") for h in metadata["history"]][:2] == [None, 1]  # step 1 raw; step 2 on, mean
    saved = AutoModelForSequenceClassification.from_pretrained(output)
    n = metadata["val_metrics"]["averaged_steps"]  # the judge saved is the mean as it was at its evaluation
    for name in ("bert.encoder.layer.0.attention.self.query.weight", "classifier.weight"):
        mean = torch.stack([s[name] for s in seen[:n]]).mean(0)
        assert torch.allclose(saved.get_parameter(name), mean, atol=1e-6)
    raw = AutoModelForSequenceClassification.from_pretrained(output / "checkpoint")
    assert torch.equal(raw.get_parameter("classifier.weight"), seen[-1]["classifier.weight"])  # resumes raw
    # Resumed for a third epoch: the mean goes on from the checkpoint's three steps, not from nothing.
    train(_config(data, output, tiny_base, max_samples=12, epochs=3, patience=10,  # type: ignore[arg-type]
                  average_from=0.5, save_every=1))
    assert torch.load(output / "checkpoint" / "average.pt", weights_only=True)["count"] == 5
    with pytest.raises(ConfigError, match=r"average_from 0.5 -> 0.25"):
        train(_config(data, output, tiny_base, max_samples=12, epochs=4, average_from=0.25))  # type: ignore[arg-type]


def test_cli_registers_train() -> None:
    from ragjudge.cli import build_parser

    args = build_parser().parse_args(["train", "--data", "x.jsonl", "--output", "out", "--weight", "sick=0.5",
                                      "--edits", "number, foreign-name", "--framing", "0.2", "--transcript", "0.5"])
    assert args.command == "train" and args.data == ["x.jsonl"] and args.weight == ["sick=0.5"]
    assert (args.edits, args.framing, args.transcript) == ("number, foreign-name", 0.2, 0.5)
    assert (args.attention_dropout, args.freeze_embeddings) == (None, False)  # the base's dropout, all trained
    args = build_parser().parse_args(["train", "--data", "x.jsonl", "--output", "out", "--attention-dropout", "0",
                                      "--freeze-embeddings"])
    assert (args.attention_dropout, args.freeze_embeddings) == (0.0, True)
    assert args.average_from is None
    args = build_parser().parse_args(["train", "--data", "x.jsonl", "--output", "out", "--average-from", "0.5"])
    assert args.average_from == 0.5
