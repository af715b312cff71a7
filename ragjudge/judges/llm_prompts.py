"""Prompt templates for the ``llm`` judge, and the fencing that keeps untrusted text inert.

Templates are package data (``ragjudge/judges/prompts/*.txt``). Each starts with a ``# version: N`` line; the
version and a hash of the text go into the judge fingerprint and the cache key, so editing a prompt never
serves answers given to the old one.

Untrusted text (claim, premises, question, answer) is placed in blocks::

    <data-3f9a0c2b71de name="claim">
    ...text...
    </data-3f9a0c2b71de>

The boundary token is derived from a hash of all the data in the request, so a text cannot contain the token
that closes its own block (it would have to contain a hash of itself). The token is named at the top of the
user message, before any data; the system prompt, identical for every request (so a server's prompt cache
can reuse it), says the blocks are data, not instructions. Anything inside the data that merely looks like a
block marker is escaped as well.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any

__all__ = [
    "CLAIMS_SCHEMA",
    "VERDICT_SCHEMA",
    "PromptTemplate",
    "claims_messages",
    "escape_data",
    "load_template",
    "merge_system",
    "relevance_messages",
    "repair_message",
    "support_messages",
    "template_versions",
]

Message = dict[str, Any]

TEMPLATE_NAMES = ("system", "fence", "support", "relevance", "claims", "repair")

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["yes", "no"]},
        "rationale": {"type": "string"},
    },
    "required": ["verdict", "rationale"],
    "additionalProperties": False,
}

CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
    "required": ["claims"],
    "additionalProperties": False,
}

_VERSION_LINE = re.compile(r"\A#\s*version:\s*(\S+)\s*\n")
# Anything shaped like one of our markers (<data-..., </data-..., with stray spaces) inside untrusted text.
_MARKER_LOOKALIKE = re.compile(r"<(?=\s*/?\s*data\b)", re.IGNORECASE)


@dataclass(frozen=True)
class PromptTemplate:
    """One template: its name, declared version, body and a short hash of the file's text."""

    name: str
    version: str
    body: Template
    digest: str

    @property
    def ident(self) -> str:
        """``name@version:hash``, the form that goes into fingerprints and cache keys."""
        return f"{self.name}@{self.version}:{self.digest}"

    def render(self, **values: str) -> str:
        """The template with ``values`` substituted; a missing value is a bug, so it raises."""
        return self.body.substitute(values)


@cache
def load_template(name: str) -> PromptTemplate:
    """Read the packaged template ``name``: ``support``, ``relevance``, ``claims``, ``system``, ``repair``."""
    text = files("ragjudge.judges").joinpath(f"prompts/{name}.txt").read_text(encoding="utf-8")
    match = _VERSION_LINE.match(text)
    if match is None:
        raise ValueError(f"prompt template {name!r} does not start with a '# version: N' line")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return PromptTemplate(name, match.group(1), Template(text[match.end():].strip("\n")), digest)


def template_versions() -> dict[str, str]:
    """Every template's ``name@version:hash``, for the judge fingerprint."""
    return {name: load_template(name).ident for name in TEMPLATE_NAMES}


def escape_data(text: str) -> str:
    """Neutralise marker look-alikes in untrusted text, so they cannot open or close a block."""
    return _MARKER_LOOKALIKE.sub("&lt;", text)


def _boundary(texts: Sequence[str]) -> str:
    """A token no text in ``texts`` contains: a hash of them all, salted again in the absurd case of a hit."""
    h = hashlib.sha256("\x00".join(texts).encode("utf-8"))
    while True:
        token = h.hexdigest()[:16]
        if not any(token in t for t in texts):
            return token
        h.update(b"\x00")


def _fence(boundary: str, name: str, text: str) -> str:
    return f'<data-{boundary} name="{name}">\n{escape_data(text)}\n</data-{boundary}>'


def _messages(template: str, fields: Sequence[tuple[str, str, str]]) -> list[Message]:
    """System + user message for ``template``; ``fields`` are (placeholder, block name, untrusted text)."""
    boundary = _boundary([text for _, _, text in fields])
    blocks: dict[str, list[str]] = {}
    for placeholder, name, text in fields:
        blocks.setdefault(placeholder, []).append(_fence(boundary, name, text))
    values = {placeholder: "\n\n".join(parts) for placeholder, parts in blocks.items()}
    # The system prompt is the same for every request (servers with a prompt cache reuse it); the boundary
    # is named at the top of the user message, before any untrusted text.
    fence = load_template("fence").render(boundary=boundary)
    return [
        {"role": "system", "content": load_template("system").render()},
        {"role": "user", "content": f"{fence}\n\n{load_template(template).render(**values)}"},
    ]


def support_messages(claim: str, premises: Sequence[str]) -> list[Message]:
    """Messages asking whether ``premises`` support ``claim``."""
    fields = [("premises", f"premise {i}", p) for i, p in enumerate(premises, 1)]
    if not fields:
        fields = [("premises", "premises", "(no premises were given)")]
    return _messages("support", [*fields, ("claim", "claim", claim)])


def relevance_messages(query: str, text: str) -> list[Message]:
    """Messages asking whether ``text`` is relevant to ``query``."""
    return _messages("relevance", [("query", "question", query), ("text", "text", text)])


def claims_messages(answer: str) -> list[Message]:
    """Messages asking for the atomic claims of ``answer``."""
    return _messages("claims", [("answer", "answer", answer)])


def merge_system(messages: list[Message]) -> list[Message]:
    """The system message folded into the top of the first user message, for templates that drop it."""
    if len(messages) < 2 or messages[0]["role"] != "system" or messages[1]["role"] != "user":
        return messages
    merged = {"role": "user", "content": f"{messages[0]['content']}\n\n{messages[1]['content']}"}
    return [merged, *messages[2:]]


def repair_message(error: str) -> Message:
    """The one follow-up turn that quotes why the previous reply could not be parsed."""
    return {"role": "user", "content": load_template("repair").render(error=error)}
