"""Transcript premises, for ``ragjudge train --transcript``: a story told by its own character, as a chat log.

Dialogue summarisation (SAMSum, meetings, sales calls, podcasts) asks a judge whether "Mary will bring the
cake" follows from "Mary: I'll bring the cake". nli_all has no such pair: its premises are narration, so the
trained MiniLM judge under-trusts every faithful summary of a transcript (on SummEdits its mean score for
faithful SAMSum summaries, 0.24, is below that of the edited news summaries, 0.36; benchmarks/results/train_nli.md).
For a fraction of the examples whose premise opens with a named character ("Oliver is a cat. He has a sister
called Spike. ..."), this module adds a copy whose premise is a transcript: the character's sentences
rewritten in the first person as the character's turns ("Oliver: I am a cat. I have a sister called Spike."),
every other sentence unchanged as the turn of a second speaker, the hypothesis and the label unchanged.

The rewriting is rule-based and conservative, because a wrong pronoun would make a false label: a sentence is
the character's only when it opens with the character's name followed by a verb, or opens with the character's
pronoun right after such a sentence, and names nobody else (who might be the "he" or "her" in it). In it the
name becomes "I" or "me", the pronouns of the character's gender "I", "me", "my", "myself", and the verb after a
new "I" agrees ("is" -> "am", "has" -> "have", "likes" -> "like"). Every other sentence is left as it is.
"""

from __future__ import annotations

import random
import re

from ragjudge.train_data import Example

__all__ = ["OTHER_SPEAKERS", "transcribe", "transcript"]

OTHER_SPEAKERS = ("Anna", "Ben", "Chloe", "Dev", "Emma", "Felix", "Grace", "Hugo", "Iris", "Jonas", "Kate", "Liam",
                  "Maya", "Noah", "Olga", "Pablo", "Rosa", "Sam", "Tara", "Victor")

_SENTENCE = re.compile(r"(?<=[.!?])[\"')]*\s+(?=[\"'(]?[A-Z])")
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Inc|Co|Ltd|vs|No))\.$")
_CAPITALISED = re.compile(r"[A-Z][a-z]+")
# Words that open a sentence capitalised without naming anyone, and words that cannot follow a subject as its verb.
_NOT_NAMES = frozenset(
    "The A An It Its This That These Those There Then When After Before While Once One Some Many Most Every Each "
    "He She His Her Him They Their Them We Our Us I My You Your In On At By For From With Of To As If But And Or "
    "So Yet Also Even Still Today Yesterday Tomorrow Mr Mrs Ms Dr Monday Tuesday Wednesday Thursday Friday Saturday "
    "Sunday January February March April May June July August September October November December "
    "Christmas Easter God".split())
_NOT_VERBS = frozenset(
    "the a an and or but nor of in on at to with without for from by as than that which who whom whose where "
    "when while if because so not too also very".split())
_ADVERBS = frozenset("always never often also usually still just really sometimes finally then quickly slowly "
                     "soon already even only once again suddenly".split())
# After "her": a word that ends the object ("told her that", "gave her a book") rather than a possessed noun.
_AFTER_OBJECT = _NOT_VERBS | frozenset("up out away down off again too about into over under around there "
                                       "home here now today yesterday something anything everything".split())
_AGREE = {"is": "am", "isn't": "am not", "has": "have", "hasn't": "haven't", "does": "do",
          "doesn't": "don't", "was": "was", "wasn't": "wasn't"}
_PRONOUNS = {"he": ("he", "him", "his", "himself"), "she": ("she", "her", "her", "herself")}
_GENDER_OF = {"he": "he", "his": "he", "she": "she", "her": "she"}


def transcript(examples: list[Example], fraction: float, seed: int) -> list[Example]:
    """Copies of ``fraction`` of the examples whose premise the rules can tell as its character's transcript."""
    rng = random.Random(f"{seed}:transcript")
    told: dict[str, str | None] = {}
    out = []
    for example in examples:
        if rng.random() >= fraction:
            continue
        if example.premise not in told:
            told[example.premise] = transcribe(example.premise, OTHER_SPEAKERS[len(told) % len(OTHER_SPEAKERS)])
        premise = told[example.premise]
        if premise is not None:
            out.append(Example(premise, example.hypothesis, example.label, "transcript"))
    return out


def transcribe(premise: str, other: str) -> str | None:
    """The premise as a transcript of its opening character and ``other``, or None when the rules find no
    character (a name that a sentence opening with "he" or "she" follows), when the character says nothing, or
    when ``other`` is named in the premise."""
    sentences = _sentences(premise)
    if len(sentences) < 2 or other in premise:
        return None
    name = _character(sentences[0])
    if name is None:
        return None
    gender = _gender(sentences, name)
    if gender is None:
        return None  # no "he" or "she" follows the name: a film, a receptor, a season, not a person to speak
    turns: list[tuple[str, str]] = []
    previous_mine = False
    for sentence in sentences:
        mine = _rewrite(sentence, name, gender, previous_mine)
        previous_mine = mine is not None
        speaker, text = (name, mine) if mine is not None else (other, sentence)
        if turns and turns[-1][0] == speaker:
            turns[-1] = (speaker, f"{turns[-1][1]} {text}")
        else:
            turns.append((speaker, text))
    if not any(speaker == name for speaker, _ in turns):
        return None
    return "\n".join(f"{speaker}: {text}" for speaker, text in turns)


def _sentences(text: str) -> list[str]:
    """Sentences, not cut after an initial or a title ("U.S. Open", "Mr. Brown")."""
    out: list[str] = []
    for piece in (p.strip() for p in _SENTENCE.split(text.strip())):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        elif piece:
            out.append(piece)
    return out


def _character(sentence: str) -> str | None:
    """The name a sentence opens with ("Oliver", "Hannah Harvey"), if a verb-like word follows it."""
    words = sentence.split()
    run: list[str] = []
    for word in words[:3]:
        if not _CAPITALISED.fullmatch(word) or (not run and word in _NOT_NAMES):
            break
        run.append(word)
    if not run or len(words) <= len(run) or words[len(run)].lower() in _NOT_VERBS:
        return None
    following = words[len(run)]
    if not following[:1].islower() and not following.startswith("("):
        return None
    return " ".join(run)


def _gender(sentences: list[str], name: str) -> str | None:
    """"he" or "she": the gender of the pronoun ("he", "his", "she", "her") that opens the first sentence after
    one that opens with the name."""
    for before, sentence in zip(sentences, sentences[1:], strict=False):
        first = _split(sentence.split(" ", 1)[0].lower())[0]  # "She's" -> "she"
        if before.startswith(name + " ") and first in _GENDER_OF:
            return _GENDER_OF[first]
    return None


def _rewrite(sentence: str, name: str, gender: str, chained: bool) -> str | None:
    """The sentence in the character's first person, or None if it is not the character's to say."""
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(sentence)]
    texts = [w for _, _, w in words]
    names = [name.split()] + ([name.split()[:1]] if " " in name else [])  # "Hannah Harvey", then "Hannah"
    if not _theirs(sentence, texts, names, gender, chained):
        return None
    pronouns = _PRONOUNS[gender]
    new: list[str] = []  # per word, what replaces it ("" drops it with the space before it)
    i = 0
    while i < len(words):
        match = _match(texts, i, names)
        if match:
            if _inside_longer_name(texts, i, match):
                return None  # "the Buffy the Vampire Slayer franchise" is no one's "me"
            i = _name(words, sentence, i, match, new)
            continue
        stem, clitic = _split(texts[i].lower())
        following = texts[i + 1] if i + 1 < len(texts) else ""
        if stem in pronouns:
            mine = _first_person(stem, following, gender)
            new.append(mine + _clitic(clitic, following.lower()))
            i += 1
            if mine == "I" and not clitic:
                i = _agree(words, sentence, i, new)
            continue
        lower = texts[i].lower()
        agrees = lower in _AGREE and i and texts[i - 1].lower() in ("and", "but", "or") and "I" in new
        new.append(_AGREE[lower] if agrees else texts[i])  # "I am big and has grey fur" -> "and have"
        i += 1
    out, end = [], 0
    for (start, stop, _), text in zip(words, new, strict=True):
        out.append(sentence[end:start] + text if text else "")
        end = stop
    text = "".join(out) + sentence[end:]
    return text[0].upper() + text[1:] if text else text


def _theirs(sentence: str, texts: list[str], names: list[list[str]], gender: str, chained: bool) -> bool:
    """Whether the sentence is the character's to say: it opens with the name and a verb, or (``chained``: the
    sentence before was theirs) with their pronoun, and no one else named in it could be a "he" or "her" in it."""
    pronouns = _PRONOUNS[gender]
    opens_with_name = _character(sentence) in (" ".join(names[0]), names[-1][0])
    opens_with_pronoun = chained and bool(texts) and _split(texts[0].lower())[0] in pronouns
    if not (opens_with_name or opens_with_pronoun):
        return False
    name_words = {w for n in names for w in n}
    stems = [_split(w)[0] for w in texts[1:]]
    others = any(_CAPITALISED.fullmatch(s) and s not in _NOT_NAMES and s not in name_words for s in stems)
    inner = {_split(w.lower())[0] for w in texts[1:]}
    return not (others and inner & set(pronouns))  # "Oliver told Max that he ...": whose "he"?


def _inside_longer_name(texts: list[str], i: int, match: int) -> bool:
    if not i:
        return False
    after = texts[i + match] if i + match < len(texts) else ""
    return bool(_CAPITALISED.fullmatch(texts[i - 1]) or texts[i - 1].lower() in ("the", "a", "an")
                or _CAPITALISED.fullmatch(after))


def _name(words: list[tuple[int, int, str]], sentence: str, i: int, match: int, new: list[str]) -> int:
    """The ``match`` words of the name at ``i`` as "my", "I" (and its verb agreeing) or "me"; the index after."""
    last = i + match - 1
    before = " " + sentence[: words[i][0]].rstrip().lower()
    if words[last][2].endswith("'s"):
        mine = "my"
    elif i == 0 or before.endswith((",", " and", " then", " but")):
        mine = "I"
    else:
        mine = "me"
    new.extend([mine] + [""] * (match - 1))
    return _agree(words, sentence, last + 1, new) if mine == "I" else last + 1


def _split(word: str) -> tuple[str, str]:
    """"she's" -> ("she", "'s"); "his" -> ("his", "")."""
    stem, mark, rest = word.partition("'")
    return stem, mark + rest


def _clitic(clitic: str, following: str) -> str:
    """"she's" -> "I'm", "she's been" -> "I've"; "'d" and "'ll" stay."""
    if clitic == "'s":
        return "'ve" if following in ("been", "got") else "'m"
    return clitic


def _first_person(pronoun: str, following: str, gender: str) -> str:
    subject, obj, _, reflexive = _PRONOUNS[gender]
    if pronoun == subject:
        return "I"
    if pronoun == reflexive:
        return "myself"
    if gender == "he":
        return "me" if pronoun == obj else "my"
    # "her": a possessive before a noun ("her friends"), an object before anything else ("greeted her.").
    return "my" if following[:1].isalpha() and following.lower() not in _AFTER_OBJECT else "me"


def _match(texts: list[str], i: int, names: list[list[str]]) -> int:
    """How many words from ``i`` on are one of the names ("Oliver's" included), or 0."""
    for name in names:
        n = len(name)
        here = texts[i: i + n]
        if len(here) == n and here[:-1] == name[:-1] and here[-1] in (name[-1], name[-1] + "'s"):
            return n
    return 0


def _agree(words: list[tuple[int, int, str]], sentence: str, i: int, new: list[str]) -> int:
    """Copy what stands between a new "I" and its verb (a parenthesis, adverbs), then the verb agreeing with "I";
    the index after them."""
    if i < len(words) and "(" in sentence[words[i - 1][1]: words[i][0]]:
        while i < len(words) and ")" not in sentence[words[i][1]: words[i + 1][0] if i + 1 < len(words) else None]:
            new.append(words[i][2])
            i += 1
        if i < len(words):
            new.append(words[i][2])
            i += 1
    while i < len(words) and words[i][2].lower() in _ADVERBS:
        new.append(words[i][2])
        i += 1
    if i < len(words):
        new.append(_verb(words[i][2]))
        i += 1
    return i


def _verb(word: str) -> str:
    """A third-person present verb in the first person: "is" -> "am", "likes" -> "like"; other words as they are."""
    lower = word.lower()
    if lower in _AGREE:
        return _AGREE[lower]
    if not word.islower() or len(lower) < 3 or not lower.endswith("s") or lower.endswith(("ss", "us", "is", "'s")):
        return word
    if lower.endswith("ies") and len(lower) > 4:
        return lower[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        return lower[:-2]
    return lower[:-1]
