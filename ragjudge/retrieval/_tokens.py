"""Split whitespace-separated TREC lines into fields with numpy, a block of lines at a time (no per-line
Python).

The common layout (one separator byte between fields, ``\\n`` line ends) is split directly from the separator
positions; anything else (runs of blanks, tabs, ``\\r\\n``, blank lines, leading blanks) is first squeezed to
that layout. As in trec_eval, a line whose first field starts with ``#`` is a comment, and every byte <= 32
(space and control characters) separates fields. Malformed lines are found again by a plain Python scan so
that the error can name the physical line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

__all__ = ["Block", "PAD", "first_bad_line", "split_block", "to_bytes_array"]

PAD = 256  # zero bytes kept after every buffer so fixed-width gathers never read past its end
_CHUNK = 1 << 20  # rows per step of a gather
_NL, _HASH = 10, 35

Bytes = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Block:
    """Fields of the lines in one block: ``starts[j]``/``ends[j]`` delimit field j of every content line."""

    buf: Bytes  # the bytes the positions refer to, followed by PAD zero bytes
    starts: list[Ints]
    ends: list[Ints]
    ok: bool  # False when some line has the wrong number of fields


def split_block(buf: Bytes, n: int, fields: tuple[int, ...], min_fields: int, max_fields: int | None
                ) -> Block:
    """Fields ``fields`` of each content line of ``buf[:n]`` (which ends with a newline and is followed by
    PAD bytes)."""
    data = buf[:n]
    blank = data <= 32
    sep = np.flatnonzero(blank)
    if max_fields == min_fields or max_fields is None:
        fast = _same_count(data, sep, fields, min_fields)
        if fast is not None:
            return Block(buf, fast[0], fast[1], True)
    if len(sep) and (sep[0] == 0 or bool((blank[1:] & blank[:-1]).any())):
        buf = _squeeze(data, sep)
        data = buf[: len(buf) - PAD]
        sep = np.flatnonzero(data <= 32)
    return _any_count(buf, data, sep, fields, min_fields, max_fields)


def _any_count(buf: Bytes, data: Bytes, sep: Ints, fields: tuple[int, ...], min_fields: int,
               max_fields: int | None) -> Block:
    """Fields of lines with any number of fields (one blank byte between fields): line by line positions."""
    line_end = np.flatnonzero(data[sep] == _NL)
    first = np.empty_like(line_end)
    first[:1] = 0
    first[1:] = line_end[:-1] + 1
    line_start = _line_starts(sep, first)
    content = data[line_start] != _HASH
    if not content.all():
        first, line_end, line_start = first[content], line_end[content], line_start[content]
    count = line_end - first + 1
    ok = bool((count >= min_fields).all()) and (max_fields is None or bool((count <= max_fields).all()))
    if not ok:
        return Block(buf, [], [], False)
    starts = [line_start if j == 0 else sep[first + (j - 1)] + 1 for j in fields]
    ends = [sep[first + j] for j in fields]
    return Block(buf, starts, ends, True)


def _same_count(data: Bytes, sep: Ints, fields: tuple[int, ...], count: int
                ) -> tuple[list[Ints], list[Ints]] | None:
    """The usual file: every line has exactly ``count`` fields, one blank byte between them, no comment. Then
    the separators form a ``(lines, count)`` table and each field is one of its columns (no index arithmetic).
    None when the file is not like that."""
    if len(sep) % count or not len(sep):
        return None
    table = sep.reshape(-1, count)
    if not bool((data[table[:, -1]] == _NL).all()):
        return None
    line_start = np.empty(len(table), dtype=np.int64)
    line_start[0] = 0
    line_start[1:] = table[:-1, -1] + 1
    if bool((table[:, 0] == line_start).any()) or bool((data[line_start] == _HASH).any()):
        return None  # an empty first field (a leading blank) or a comment
    for j in range(1, count):
        if bool((table[:, j] - table[:, j - 1] == 1).any()):
            return None  # two blanks in a row
    starts = [line_start if j == 0 else table[:, j - 1] + 1 for j in fields]
    return starts, [table[:, j] for j in fields]


def _line_starts(sep: Ints, first: Ints) -> Ints:
    """Where each line's first token starts: just after the previous separator (byte 0 for the first line)."""
    out = sep[np.maximum(first - 1, 0)] + 1
    if len(first) and first[0] == 0:
        out[0] = 0
    return out


def _squeeze(data: Bytes, sep: Ints) -> Bytes:
    """Rewrite ``data`` so fields are separated by one byte: a blank run holding a newline becomes ``\\n``,
    any other becomes a space, a blank run at the very start disappears (so blank and leading-blank lines
    go)."""
    new_run = np.ones(len(sep), dtype=bool)
    new_run[1:] = np.diff(sep) > 1
    run_id = np.cumsum(new_run) - 1
    has_newline = np.bincount(run_id, weights=data[sep] == _NL) > 0
    run_first = sep[new_run]
    out = data.copy()
    out[run_first] = np.where(has_newline, _NL, 32)
    keep = data > 32
    keep[run_first] = True
    if run_first[0] == 0:
        keep[0] = False
    squeezed = out[keep]
    return np.concatenate((squeezed, np.zeros(PAD, dtype=np.uint8)))


def to_bytes_array(buf: Bytes, starts: npt.NDArray[np.integer[Any]], ends: npt.NDArray[np.integer[Any]]
                   ) -> npt.NDArray[np.bytes_]:
    """The byte strings ``buf[starts[i]:ends[i]]`` as a fixed-width numpy ``S`` array (one gather, no loop).

    Each gather reads ``width`` bytes from a start; the few strings too close to the buffer's end for that are
    gathered from a zero-padded copy of the tail. Work goes in chunks of rows, so temporaries stay small."""
    lengths = ends - starts
    width = max(int(lengths.max()) if len(lengths) else 1, 1)
    last = len(buf) - width  # the last start a full window fits after
    if last < 0:
        buf, last = np.concatenate((buf, np.zeros(width, dtype=np.uint8))), len(buf)
    windows = _windows(buf, width)
    out = np.empty((len(starts), width), dtype=np.uint8)
    ragged = not bool((lengths == width).all())
    for a in range(0, len(starts), _CHUNK):
        chunk = slice(a, a + _CHUNK)
        out[chunk] = windows[np.minimum(starts[chunk], last)]
        if ragged:
            out[chunk] *= np.arange(width) < lengths[chunk, None]
    near = np.flatnonzero(starts > last)
    if len(near):
        base = int(starts[near].min())
        tail = np.concatenate((buf[base:], np.zeros(width, dtype=np.uint8)))
        out[near] = _windows(tail, width)[starts[near] - base]
        out[near] *= np.arange(width) < lengths[near, None]
    return out.view(f"S{width}").ravel()


def _windows(buf: Bytes, width: int) -> npt.NDArray[np.uint8]:
    """Every ``width``-byte window of ``buf``, as rows of a read-only strided view (no copy)."""
    return as_strided(buf, shape=(len(buf) - width + 1, width), strides=(1, 1), writeable=False)


def first_bad_line(data: bytes, min_fields: int, max_fields: int | None, numeric: tuple[int, ...]
                   ) -> tuple[int, str]:
    """The first malformed content line of ``data`` (1-based physical number) and what is wrong with it."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        parts = line.split()
        if not parts or parts[0].startswith(b"#"):
            continue
        if len(parts) < min_fields or (max_fields is not None and len(parts) > max_fields):
            expected = str(min_fields) if max_fields == min_fields else f"at least {min_fields}"
            return number, f"expected {expected} whitespace-separated fields, found {len(parts)}"
        for index in numeric:
            try:
                float(parts[index])
            except ValueError:
                return number, f"field {index + 1} is not a number: {parts[index].decode(errors='replace')!r}"
    return 0, "malformed content"
