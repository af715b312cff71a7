"""``ragjudge train --transcript``: a premise told by its opening character as a chat, the label unchanged."""

from __future__ import annotations

import pytest

from ragjudge.train_data import Example
from ragjudge.train_transcript import OTHER_SPEAKERS, transcribe, transcript

OLIVER = ("Oliver is a cat. He has a sister called Spike. Oliver and Spike like to play outside. Oliver is big and "
          "has grey fur. His nose is pink. Spike is small. Her nose is the same color as her fur. Oliver likes to "
          "eat. He worries when there is no food in his bowl.")


def test_the_characters_sentences_become_first_person_turns_and_the_rest_the_other_speakers() -> None:
    assert transcribe(OLIVER, "Anna") == (
        "Oliver: I am a cat. I have a sister called Spike.\n"
        "Anna: Oliver and Spike like to play outside.\n"
        "Oliver: I am big and have grey fur. My nose is pink.\n"
        "Anna: Spike is small. Her nose is the same color as her fur.\n"
        "Oliver: I like to eat. I worry when there is no food in my bowl.")


@pytest.mark.parametrize(("sentence", "said"), [
    ("She watches the birds.", "I watch the birds."),
    ("She tries again.", "I try again."),
    ("She always goes home.", "I always go home."),
    ("She doesn't like rain.", "I don't like rain."),
    ("She isn't tired.", "I am not tired."),
    ("She's been sad since.", "I've been sad since."),
    ("She's happy and she went out her back door.", "I'm happy and I went out my back door."),
    ("Her parents greeted her.", "My parents greeted me."),
    ("She gave her brother a book.", "I gave my brother a book."),
    ("She gave him her book.", "I gave him my book."),
    ("She saw herself in the mirror.", "I saw myself in the mirror."),
    ("She was hungry.", "I was hungry."),
])
def test_pronouns_become_first_person_and_the_verb_agrees(sentence: str, said: str) -> None:
    told = transcribe(f"Mary is a girl. {sentence}", "Anna")
    assert told == f"Mary: I am a girl. {said}"


def test_a_multi_word_name_answers_to_its_first_name_and_a_parenthesis_does_not_break_agreement() -> None:
    told = transcribe("Hannah Harvey (born 1990) is a gymnast. She lives in Ohio. Hannah's dog barks. "
                      "Hannah likes soccer.", "Anna")
    assert told == ("Hannah Harvey: I (born 1990) am a gymnast. I live in Ohio.\n"
                    "Anna: Hannah's dog barks.\n"
                    "Hannah Harvey: I like soccer.")


def test_sentences_whose_he_could_be_someone_else_stay_with_the_other_speaker() -> None:
    told = transcribe("Oliver is a cat. He told Max that he was hungry. He sleeps.", "Anna")
    assert told == "Oliver: I am a cat.\nAnna: He told Max that he was hungry. He sleeps."  # the chain breaks


def test_a_name_inside_a_longer_name_is_left_alone() -> None:
    told = transcribe("Buffy Summers is a character from the Buffy the Vampire Slayer series. She first appeared "
                      "in 1992.", "Anna")
    assert told == ("Anna: Buffy Summers is a character from the Buffy the Vampire Slayer series.\n"
                    "Buffy Summers: I first appeared in 1992.") or told is None
    assert transcribe("Mary is a girl. She won the U.S. Open in 2001. She was glad.", "Anna") == (
        "Mary: I am a girl. I won the U.S. Open in 2001. I was glad.")  # no sentence cut after "U.S."


@pytest.mark.parametrize("premise", [
    "Paris is the capital of France. It has many museums.",  # no "he" or "she" after the name: no one to speak
    "The cat sat on the mat. She was happy.",  # opens with no name
    "Oliver is a cat.",  # one sentence: nothing to tell apart
    "Anna is a girl. She likes tea.",  # the other speaker would share her name
])
def test_premises_the_rules_cannot_tell_as_a_chat_give_none(premise: str) -> None:
    assert transcribe(premise, "Anna") is None


def test_transcript_copies_keep_hypothesis_and_label_and_are_seeded() -> None:
    examples = [Example(OLIVER, "Oliver is a cat.", 1, "mctest-nli"),
                Example(OLIVER, "Oliver is a dog.", 0, "mctest-nli"),
                Example("The cat sat on the mat. It slept.", "The cat slept.", 1, "sick")] * 20
    out = transcript(examples, 0.5, 0)
    assert out == transcript(examples, 0.5, 0) and out != transcript(examples, 0.5, 1)
    assert 5 < len(out) < 40
    assert {(c.hypothesis, c.label) for c in out} == {("Oliver is a cat.", 1), ("Oliver is a dog.", 0)}
    assert all(c.source == "transcript" and c.premise.startswith("Oliver: I am a cat.") for c in out)
    assert all(any(f"\n{s}: " in c.premise for s in OTHER_SPEAKERS) for c in out)
    assert transcript(examples, 0.0, 0) == []
