"""Hard negatives made from the premise itself, for ``ragjudge train --augment``.

NLI corpora rarely contain the near-copy with one wrong detail that summarisation errors produce (SummEdits,
CoGenSumm: a swapped name, a changed number, a dropped negation), so a model trained on them learns "high
overlap = entailed". For a fraction of premises this module picks one sentence and emits a pair of examples:
the sentence itself, or a clause of it (label 1), and the sentence with one small edit (label 0).

Edits (the first that applies, tried in a random order), chosen by name (``--edits``): ``number`` changes a
number written in digits, ``name`` swaps a capitalised name for another name from the same premise,
``negation`` adds or drops a negation, ``word`` swaps a content word for another word of the premise (the four
of :data:`DEFAULT_EDITS`); ``number-word`` changes a number or ordinal written as a word ("fourteen" ->
"fifteen", "second" -> "third"), and ``foreign-name`` puts a name from another premise in place of one of the
sentence's (the extrinsic-entity error, a name the source never mentions, that CLIFF and FaithDial are full of),
and ``lexical`` swaps a word for a related word that means something else (an antonym, or a close neighbour in
the encoder's embedding table that WordNet does not call a synonym: :mod:`ragjudge.train_lexicon`).

Dialogue and summary errors are more often *extrinsic*: a grounded opening followed by a detail the source never
states (BEGIN, FaithDial, CLIFF, WiCE), which word overlap catches and an NLI model trained on MNLI-style pairs
half-misses. With ``extrinsic`` > 0 that fraction of the chosen premises also yields a second pair: a clause of
the premise followed by its next clause (label 1) and by a clause taken from another premise instead (label 0),
of about the same length, so length alone does not give the label away.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from ragjudge.judges.nli_windows import split_sentences
from ragjudge.train_data import Example
from ragjudge.train_lexicon import Lexicon

__all__ = ["DEFAULT_EDITS", "EDITS", "augment", "perturb"]

DEFAULT_EDITS = ("number", "name", "negation", "word")  # the edits of runs before --edits existed

_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
_WORD = re.compile(r"\b[a-z]{5,}\b")
_NEGATE = [(" is not ", " is "), (" was not ", " was "), (" are not ", " are "), (" were not ", " were "),
           (" did not ", " did "), (" not ", " "), (" never ", " always "), (" is ", " is not "),
           (" was ", " was not "), (" are ", " are not "), (" were ", " were not "), (" can ", " cannot "),
           (" will ", " will not "), (" has ", " has not "), (" had ", " had not ")]

_CLAUSE_BREAK = re.compile(r",\s+")
_LEADING_CONJUNCTION = re.compile(r"^(?:and|but|or|so|while|which|who)\s+", re.IGNORECASE)
_JOINERS = [", and ", ", while ", ", ", " and "]
_LOWER_FIRST = {"The", "A", "An", "It", "He", "She", "They", "We", "This", "That", "These", "Those", "There",
                "His", "Her", "Its", "Their", "In", "On", "At", "For", "With", "After", "Before", "During"}


def augment(examples: list[Example], fraction: float, seed: int, extrinsic: float = 0.0,
            edits: Sequence[str] = DEFAULT_EDITS, lexicon: Lexicon | None = None,
            paraphrase: float = 0.0) -> list[Example]:
    """Positive / hard-negative pairs from ``fraction`` of the distinct premises (seeded, deterministic).

    The two examples of a pair are adjacent (positive first) and share their ``pair`` number.

    ``extrinsic``: the fraction of those premises that also yield a positive / extrinsic-detail pair.
    ``edits``: the names of the edits (:data:`EDITS`) hard negatives are made with. With the default four the
    random draws are those of earlier versions, so an earlier run's training set is unchanged.
    ``lexicon``: where the ``lexical`` edit and the paraphrases take their words (:mod:`ragjudge.train_lexicon`).
    ``paraphrase``: the fraction of pairs whose sentence first gets synonym swaps; the positive and the
    negative are then both made from the paraphrase.
    """
    if ("lexical" in edits or paraphrase > 0) and lexicon is None:
        raise ValueError("the lexical edit and paraphrase need a lexicon (train_lexicon.load_lexicon)")
    rng = random.Random(seed)
    # The other premise a foreign name comes from, and the paraphrases, have their own generators: they never
    # move the draws above.
    foreign_rng = random.Random(f"{seed}:foreign")
    paraphrase_rng = random.Random(f"{seed}:paraphrase")
    premises = sorted({e.premise for e in examples})
    out: list[Example] = []
    for index, premise in enumerate(premises):
        if rng.random() >= fraction:
            continue
        sentences = [s for s in split_sentences(premise) if 6 <= len(s.split()) <= 40]
        if not sentences:
            continue
        sentence = rng.choice(sentences)
        if paraphrase > 0 and lexicon is not None and paraphrase_rng.random() < paraphrase:
            sentence = lexicon.paraphrase(sentence, paraphrase_rng)
        source = ""
        if "foreign-name" in edits and len(premises) > 1:
            source = premises[(index + foreign_rng.randrange(1, len(premises))) % len(premises)]
        negative = perturb(sentence, premise, rng, edits, source, lexicon)
        if negative is not None:
            pair = len(out) // 2  # every pair adds two examples, so this numbers the pairs 0, 1, 2, ...
            out.append(Example(premise, _positive(sentence, rng), 1, "augment", pair))
            out.append(Example(premise, negative, 0, "augment", pair))
        if extrinsic > 0 and rng.random() < extrinsic and len(premises) > 1:
            other = premises[(index + rng.randrange(1, len(premises))) % len(premises)]
            claims = _extrinsic_pair(sentence, premise, other, rng)
            if claims is not None:
                pair = len(out) // 2
                out.extend(Example(premise, claim, label, "augment", pair) for claim, label in claims)
    return out


def _positive(sentence: str, rng: random.Random) -> str:
    """The sentence, or (half the time) its first clause when that is a sentence of five words or more."""
    head = sentence.split(",")[0].strip()
    if rng.random() < 0.5 and head != sentence.strip() and len(head.split()) >= 5:
        return head + "."
    return sentence


def _clauses(sentence: str) -> list[str]:
    """Clauses (split at a comma before a space, so not inside 30,000) of three to twenty words, without their
    final punctuation."""
    parts = (part.strip().rstrip(".!?;:").strip() for part in _CLAUSE_BREAK.split(sentence))
    return [part for part in parts if 3 <= len(part.split()) <= 20]


def _extrinsic_pair(sentence: str, premise: str, other: str, rng: random.Random) -> list[tuple[str, int]] | None:
    """(two grounded clauses, 1) and (the first of them + a clause of another premise, 0), or None.

    Needs a sentence of two clauses or more; the foreign clause is no more than three words longer than the
    grounded second clause it stands in for.
    """
    own = _clauses(sentence)
    if len(own) < 2:
        return None
    limit = len(own[1].split()) + 3
    others = [c for s in split_sentences(other) for c in _clauses(s)
              if len(c.split()) <= limit and c.lower() not in premise.lower()
              and len(_LEADING_CONJUNCTION.sub("", c).split()) >= 3]
    if not others:
        return None
    foreign = _LEADING_CONJUNCTION.sub("", rng.choice(others))
    if foreign.split()[0] in _LOWER_FIRST:
        foreign = foreign[0].lower() + foreign[1:]
    return [(f"{own[0]}, {own[1]}.", 1), (f"{own[0]}{rng.choice(_JOINERS)}{foreign}.", 0)]


def perturb(sentence: str, premise: str, rng: random.Random, edits: Sequence[str] = DEFAULT_EDITS,
            other: str = "", lexicon: Lexicon | None = None) -> str | None:
    """``sentence`` with one small meaning-changing edit, or None when no edit applies.

    ``other``: another premise, where ``foreign-name`` takes its names from; ``lexicon``: the one the
    ``lexical`` edit swaps a word for a contrast with.
    """
    chosen = [lexicon.contrast_edit if name == "lexical" and lexicon is not None else EDITS[name]
              for name in edits]
    rng.shuffle(chosen)
    for edit in chosen:
        changed = edit(sentence, other if edit is _foreign_name else premise, rng)
        if changed is not None and changed != sentence:
            return changed
    return None


def _number(sentence: str, premise: str, rng: random.Random) -> str | None:
    found = list(_NUMBER.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    digits = match.group().replace(",", "")
    value = float(digits) if "." in digits else int(digits)
    new = value + rng.choice([-3, -2, -1, 1, 2, 5, 10]) if value > 10 else value + rng.choice([1, 2, 3])
    text = f"{new:g}" if isinstance(new, float) else str(new)
    return sentence[: match.start()] + text + sentence[match.end():]


def _name(sentence: str, premise: str, rng: random.Random) -> str | None:
    ours = list(_NAME.finditer(" " + sentence))
    others = sorted({m.group() for m in _NAME.finditer(" " + premise)} - {m.group() for m in ours})
    if not ours or not others:
        return None
    match = rng.choice(ours)
    start, end = match.start() - 1, match.end() - 1  # offsets in the sentence, without the added space
    return sentence[:start] + rng.choice(others) + sentence[end:]


def _negation(sentence: str, premise: str, rng: random.Random) -> str | None:
    padded = f" {sentence} "
    for old, new in _NEGATE:
        if old in padded:
            return padded.replace(old, new, 1).strip()
    return None


def _word(sentence: str, premise: str, rng: random.Random) -> str | None:
    ours = list(_WORD.finditer(sentence))
    others = sorted(set(_WORD.findall(premise)) - set(_WORD.findall(sentence)))
    if not ours or not others:
        return None
    match = rng.choice(ours)
    replacement: str = rng.choice(others)
    return sentence[: match.start()] + replacement + sentence[match.end():]


_CARDINALS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
              "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
_SCALES = [_CARDINALS, _TENS, _ORDINALS]
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(sorted({w for scale in _SCALES for w in scale}, key=len,
                                                       reverse=True)) + r")\b", re.IGNORECASE)


def _number_word(sentence: str, premise: str, rng: random.Random) -> str | None:
    """A number or ordinal written as a word moved by one to three steps on its scale ("fourteen" -> "fifteen")."""
    found = list(_NUMBER_WORD.finditer(sentence))
    if not found:
        return None
    match = rng.choice(found)
    word = match.group()
    scale = next(s for s in _SCALES if word.lower() in s)
    position = scale.index(word.lower())
    moves = [m for m in (-3, -2, -1, 1, 2, 3) if 0 <= position + m < len(scale)]
    new = scale[position + rng.choice(moves)]
    new = new.capitalize() if word[0].isupper() else new
    return sentence[: match.start()] + new + sentence[match.end():]


def _foreign_name(sentence: str, other: str, rng: random.Random) -> str | None:
    """One of the sentence's capitalised names replaced by a name of another premise (``other``) that this
    sentence does not contain: a name the source never mentions."""
    ours = list(_NAME.finditer(" " + sentence))
    theirs = [name for name in sorted({m.group() for m in _NAME.finditer(" " + other)} - _LOWER_FIRST)
              if name not in sentence]  # the sentence's own names are in it too
    if not ours or not theirs:
        return None
    match = rng.choice(ours)
    start, end = match.start() - 1, match.end() - 1
    return sentence[:start] + rng.choice(theirs) + sentence[end:]


def _lexical(sentence: str, premise: str, rng: random.Random) -> str | None:
    """The ``lexical`` edit without a lexicon: never applies. With one, :func:`perturb` uses
    :meth:`Lexicon.contrast_edit` in its place."""
    return None


EDITS: dict[str, Callable[[str, str, random.Random], str | None]] = {
    "number": _number, "name": _name, "negation": _negation, "word": _word, "number-word": _number_word,
    "foreign-name": _foreign_name, "lexical": _lexical}
