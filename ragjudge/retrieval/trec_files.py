"""Read TREC qrels (``qid iter docno rel``) and run files (``qid iter docno rank score runid [junk]``) fast.

The file is read once into memory and split into fields with numpy, block by block (see ``_tokens``);
document ids stay bytes (numpy ``S`` arrays), compared byte by byte as trec_eval's ``strcmp`` does. Lines
starting with ``#`` are comments; blank lines are skipped; the rank column is ignored; a run's name is the
runid of its last line, as in trec_eval. Grades are read as numbers (trec_eval truncates them to integers
with ``atol``: write integer grades to get its exact behaviour). A malformed line raises
:class:`~ragjudge.errors.DataError` naming file, line and field."""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from ragjudge.errors import DataError
from ragjudge.retrieval._numbers import parse_numbers
from ragjudge.retrieval._tokens import PAD, first_bad_line, split_block, to_bytes_array
from ragjudge.retrieval.data import Columns, Qrels, Run

__all__ = ["read_qrels", "read_run", "topic_codes"]

BLOCK = 1 << 22  # bytes per block: temporaries stay small (cache, allocator reuse), Python overhead negligible


@dataclass(frozen=True)
class _Layout:
    fields: tuple[int, ...]  # qid, docno, number (and runid) field positions
    min: int
    max: int | None


_QRELS = _Layout((0, 2, 3), 4, 4)
_RUN = _Layout((0, 2, 4, 5), 6, None)


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file: ``qid iter docno rel`` per line."""
    columns, _ = _read(Path(path), _QRELS)
    return Qrels(columns=columns, source=str(path))


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run file: ``qid iter docno rank score runid`` per line (more fields are ignored)."""
    columns, name = _read(Path(path), _RUN)
    return Run(columns=columns, source=str(path), name=name)


def _load(path: Path) -> npt.NDArray[np.uint8]:
    """The file's bytes, memory-mapped (read-only, no copy)."""
    try:
        if path.stat().st_size == 0:
            return np.zeros(0, dtype=np.uint8)
        with path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as error:
        raise DataError(f"cannot read: {error.strerror or error}", path=path) from None
    return np.frombuffer(mapped, dtype=np.uint8)


def _blocks(buf: npt.NDArray[np.uint8]) -> list[tuple[int, int]]:
    """[start, end) ranges of about BLOCK bytes, each ending just after a newline (the last one: at the end).
    """
    n, ranges, start = len(buf), [], 0
    while start < n:
        end = min(start + BLOCK, n)
        while end < n and buf[end - 1] != 10:
            newlines = np.flatnonzero(buf[end : min(end + 4096, n)] == 10)
            end = end + int(newlines[0]) + 1 if len(newlines) else min(end + 4096, n)
        ranges.append((start, end))
        start = end
    return ranges


def _padded(buf: npt.NDArray[np.uint8], start: int, end: int) -> tuple[npt.NDArray[np.uint8], int]:
    """Bytes from ``start`` ending with a newline and followed by PAD readable bytes: the mapped file itself
    when enough of it follows, else a padded copy of the block."""
    if end + PAD <= len(buf):
        return buf[start:], end - start
    block = np.zeros(end - start + 1 + PAD, dtype=np.uint8)
    block[: end - start] = buf[start:end]
    n = end - start
    if n and block[n - 1] != 10:
        block[n] = 10
        n += 1
    return block, n


@dataclass(frozen=True)
class _Parsed:
    """One block's fields: rows where the topic may change (and the ids there), doc ids, numbers, runid."""

    heads: npt.NDArray[np.int64]
    head_names: npt.NDArray[np.bytes_]
    docs: npt.NDArray[np.bytes_]
    values: npt.NDArray[np.float64]
    runid: str | None


def _read(path: Path, spec: _Layout) -> tuple[Columns, str | None]:
    buf = _load(path)
    parsed = [_parse(path, buf, block, spec) for block in _blocks(buf)]
    sizes = [len(p.docs) for p in parsed]
    offsets = np.cumsum([0, *sizes])[:-1].tolist()
    heads = [p.heads + offset for p, offset in zip(parsed, offsets, strict=True)]
    doc = np.concatenate([p.docs for p in parsed]) if parsed else np.zeros(0, dtype="S1")
    value = np.concatenate([p.values for p in parsed]) if parsed else np.zeros(0, dtype=np.float64)
    topic_ids, topic = topic_codes(heads, [p.head_names for p in parsed], sum(sizes))
    names = [p.runid for p in parsed if p.runid is not None]
    return Columns(topic_ids, topic, doc, value), (names[-1] if names else None)


def _parse(path: Path, buf: npt.NDArray[np.uint8], block: tuple[int, int], spec: _Layout) -> _Parsed:
    start, end = block
    fields = split_block(*_padded(buf, start, end), spec.fields, spec.min, spec.max)
    if not fields.ok:
        _raise_bad(path, buf, start, end, spec)
    data, starts, ends = fields.buf, fields.starts, fields.ends
    heads = _topic_changes(data, starts[0], ends[0])
    try:
        values = parse_numbers(data, starts[2], ends[2])
    except ValueError:
        _raise_bad(path, buf, start, end, spec)
    runid = None
    if len(starts) == 4 and len(starts[3]):
        runid = bytes(data[starts[3][-1] : ends[3][-1]]).decode(errors="replace")
    return _Parsed(heads, to_bytes_array(data, starts[0][heads], ends[0][heads]),
                   to_bytes_array(data, starts[1], ends[1]), values, runid)


def _raise_bad(path: Path, buf: npt.NDArray[np.uint8], start: int, end: int, spec: _Layout) -> NoReturn:
    line, problem = first_bad_line(bytes(buf[start:end]), spec.min, spec.max, (spec.fields[2],))
    before = int(np.count_nonzero(buf[:start] == 10))
    raise DataError(problem, path=path, line=line + before if line else None)


def _topic_changes(buf: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]
                   ) -> npt.NDArray[np.int64]:
    """Rows whose topic may differ from the previous row's (the first row always; never misses a change).

    Each row's first ``longest + 1`` bytes are compared with the previous row's, unmasked: the window always
    holds the blank that ends the topic id, so equal windows mean equal ids. Unequal windows with equal ids (the
    bytes after the blank differ) only add a repeated head, which :func:`topic_codes` merges.
    """
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    width = int((ends - starts).max()) + 1
    padded = -(-width // 8) * 8
    if padded > PAD:  # absurdly long ids: compare them whole
        ids = to_bytes_array(buf, starts, ends)
        return np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1]))).astype(np.int64)
    windows = as_strided(buf, shape=(len(buf) - padded + 1, padded), strides=(1, 1), writeable=False)[starts]
    if padded != width:
        windows[:, width:] = 0
    words = windows.view(np.uint64)
    change = np.ones(len(starts), dtype=bool)
    change[1:] = (words[1:] != words[:-1]).any(axis=1)
    return np.flatnonzero(change).astype(np.int64)


def topic_codes(heads: list[npt.NDArray[np.int64]], names: list[npt.NDArray[np.bytes_]], rows: int
                 ) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]]:
    """Topic ids (str, in order of first appearance) and each row's index into them, from the rows where the
    topic may change and the ids there."""
    if not rows:
        return np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
    head_rows = np.concatenate(heads)
    unique, first_seen, head_code = np.unique(np.concatenate(names), return_index=True, return_inverse=True)
    appearance = np.argsort(first_seen)
    renumber = np.empty(len(unique), dtype=np.int64)
    renumber[appearance] = np.arange(len(unique), dtype=np.int64)
    topic = np.repeat(renumber[head_code], np.diff(np.append(head_rows, rows)))
    # One decode for all ids (they hold no newline: it ends a field).
    text = b"\n".join(unique[appearance].tolist()).decode("utf-8", errors="surrogateescape")
    topic_ids = np.array(text.split("\n"), dtype=object)
    return topic_ids, topic
