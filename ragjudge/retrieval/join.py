"""Match every retrieved (topic, document) row to its judgement, exactly, with one numpy sort.

Each row of both tables becomes one 64-bit key: topic index, then the high bits of a hash of the document id,
then the row number. One in-place sort groups equal (topic, hash) keys with rows in order inside a group; as
rows usually arrive grouped by topic in topic order, the keys are already sorted block by block and a stable
(merging) sort finishes them in a fraction of a full sort's time. A shared key is only a candidate: every pair
is then compared on the real topic and id, so a hash collision can cost time but never a wrong match. Two
judgements, or two retrieved rows, for the same (topic, document) are an error, as in trec_eval ("duplicate
docs"); pytrec_eval refuses them too (its parsers assert).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.errors import DataError

__all__ = ["doc_hash", "match_judgements"]

IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
_K1, _K2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9)
_CHUNK = 1 << 20
MIN_HASH_BITS = 20  # fewer hash bits beside topic and row: hash the topic in instead


class _Rows:
    """Judgement rows followed by retrieved rows, indexed as one table without copying either."""

    def __init__(self, topics: tuple[IntArray, IntArray], docs: tuple[npt.NDArray[Any], npt.NDArray[Any]]):
        self.topics, self.docs, self.split = topics, docs, len(topics[0])

    def topic(self, rows: IntArray) -> IntArray:
        """Topic index of each row."""
        return self._take(self.topics, rows)

    def doc(self, rows: IntArray) -> npt.NDArray[Any]:
        """Document id of each row."""
        return self._take(self.docs, rows)

    def _take(self, columns: tuple[npt.NDArray[Any], npt.NDArray[Any]], rows: IntArray) -> npt.NDArray[Any]:
        out = np.empty(len(rows), dtype=np.result_type(*columns))
        first = rows < self.split
        out[first] = columns[0][rows[first]]
        out[~first] = columns[1][rows[~first] - self.split]
        return out


def doc_hash(doc: npt.NDArray[Any]) -> U64:
    """A 64-bit hash of each document id whose high bits depend on every byte: multiply-shift hashing of the
    ids' 8-byte words (bytes ids) or Python's hash (str ids)."""
    if doc.dtype.kind != "S":
        return np.fromiter(map(hash, doc), dtype=np.int64, count=len(doc)).view(np.uint64)
    width = doc.dtype.itemsize
    raw = doc.view(np.uint8).reshape(len(doc), width)
    if width % 8:
        raw = np.concatenate((raw, np.zeros((len(doc), 8 - width % 8), dtype=np.uint8)), axis=1)
    words = raw.view(np.uint64)
    h: U64 = words[:, 0] * _K1
    for column in range(1, words.shape[1]):
        h ^= h >> np.uint64(29)
        h ^= words[:, column]
        h *= _K2
    return h


def match_judgements(
    run_topic: IntArray, run_doc: npt.NDArray[Any], qrels_topic: IntArray, qrels_doc: npt.NDArray[Any],
    topic_names: npt.NDArray[Any], sources: tuple[str | None, str | None] = (None, None),
) -> IntArray:
    """For each run row, the index of the qrels row with the same topic and document, or -1.

    ``topic_names`` names the topic indices in error messages; ``sources`` are the qrels and run file names.
    """
    n_qrels = len(qrels_topic)
    both = _Rows((qrels_topic, run_topic), _same_kind(qrels_doc, run_doc))
    rows, groups = _grouped(both)
    first, second = _equal_pairs(rows, groups, both)
    duplicate = _duplicate(first, second, n_qrels)
    if duplicate is not None:
        what, row = duplicate
        doc = both.doc(np.array([row]))[0]
        name = doc.decode(errors="replace") if isinstance(doc, bytes) else doc
        raise DataError(f"duplicate {what} for topic {topic_names[both.topic(np.array([row]))[0]]!r}, "
                        f"document {name!r} (trec_eval refuses duplicates too)",
                        path=sources[what == "retrieved document"], field="docno")
    match = np.full(len(run_topic), -1, dtype=np.int64)
    hit = (first < n_qrels) & (second >= n_qrels)
    match[second[hit] - n_qrels] = first[hit]
    return match


def _same_kind(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Both id columns as bytes, or both as str when one side is str."""
    if (a.dtype.kind == "S") != (b.dtype.kind == "S"):
        return _as_str(a), _as_str(b)
    return a, b


def _as_str(ids: npt.NDArray[Any]) -> npt.NDArray[np.object_]:
    if ids.dtype.kind == "S":
        return np.array([x.decode("utf-8", errors="surrogateescape") for x in ids.tolist()], dtype=object)
    return np.array([x if isinstance(x, str) else str(x) for x in ids.tolist()], dtype=object)


def _grouped(both: _Rows) -> tuple[IntArray, U64]:
    """Row numbers ordered by (topic, document hash), ties by row, and each row's (topic, hash) group key.

    Topic, hash high bits and row number share one 64-bit integer, sorted in place. Rows usually come grouped by
    topic in increasing topic order (from the run's order of first appearance), so the keys are sorted block by
    block already and a stable (merging) sort finishes them several times faster than a quicksort would.
    """
    n = both.split + len(both.topics[1])
    row_bits = max(1, (n - 1).bit_length())
    topic_bits = max(1, max(int(t.max(initial=0)) for t in both.topics).bit_length())
    if 64 - row_bits - topic_bits < MIN_HASH_BITS:
        topic_bits = 0  # too many rows and topics to spare the bits: hash the topic in, sort it all
    key = np.empty(n, dtype=np.uint64)
    _fill_keys(key[: both.split], both.topics[0], both.docs[0], 0, row_bits, topic_bits)
    _fill_keys(key[both.split :], both.topics[1], both.docs[1], both.split, row_bits, topic_bits)
    key.sort(kind="stable" if topic_bits else "quicksort")
    rows = (key & np.uint64((1 << row_bits) - 1)).view(np.int64)
    key >>= np.uint64(row_bits)
    return rows, key


def _fill_keys(key: U64, topic: IntArray, doc: npt.NDArray[Any], offset: int, row_bits: int,
               topic_bits: int) -> None:
    """Write per row [topic | hash high bits | row number] (or [hash of topic and doc | row number] without
    ``topic_bits``) into ``key``, reusing the hash array and small chunks of row numbers (no big temporary)."""
    h = doc_hash(doc)
    if topic_bits:
        np.left_shift(topic.view(np.uint64), np.uint64(64 - topic_bits), out=key)  # topic indices are >= 0
        h >>= np.uint64(row_bits + topic_bits)
        h <<= np.uint64(row_bits)
    else:
        np.multiply(topic.view(np.uint64), _K2, out=key)
        h ^= key
        h >>= np.uint64(row_bits)
        h <<= np.uint64(row_bits)
        key[:] = 0
    key |= h
    for start in range(0, len(key), _CHUNK):
        part = key[start : start + _CHUNK]
        part |= np.arange(offset + start, offset + start + len(part), dtype=np.uint64)


def _equal_pairs(rows: IntArray, groups: U64, both: _Rows) -> tuple[IntArray, IntArray]:
    """Pairs (a, b), a < b, of rows with equal topic and document."""
    same = np.flatnonzero(groups[1:] == groups[:-1])
    if not len(same):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    in_big_group = np.zeros(len(same), dtype=bool)
    in_big_group[1:] |= same[1:] == same[:-1] + 1
    in_big_group[:-1] |= same[1:] == same[:-1] + 1
    a, b = rows[same[~in_big_group]], rows[same[~in_big_group] + 1]
    equal = (both.topic(a) == both.topic(b)) & (both.doc(a) == both.doc(b))
    big_a, big_b = _big_groups(rows, same[in_big_group], both)
    return np.concatenate((a[equal], big_a)), np.concatenate((b[equal], big_b))


def _big_groups(rows: IntArray, links: IntArray, both: _Rows) -> tuple[IntArray, IntArray]:
    """Exact pairs inside groups of three or more equal hashes (duplicates or collisions; rare): each row is
    paired with the latest earlier row of the same (topic, doc), so a judgement pairs with the first
    retrieved copy and retrieved copies pair with each other."""
    seen: dict[tuple[int, Any], int] = {}
    pairs: list[tuple[int, int]] = []
    members = np.sort(rows[np.unique(np.concatenate((links, links + 1)))]) if len(links) else links
    for row, topic, doc in zip(members.tolist(), both.topic(members).tolist(), both.doc(members).tolist(),
                               strict=True):
        key = (topic, doc)
        if key in seen:
            pairs.append((seen[key], row))
        seen[key] = row
    found = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return found[:, 0], found[:, 1]


def _duplicate(first: IntArray, second: IntArray, n_qrels: int) -> tuple[str, int] | None:
    """What is duplicated ("judgement" or "retrieved document") and one duplicated row, if anything is."""
    for dup, what in ((second < n_qrels, "judgement"), (first >= n_qrels, "retrieved document")):
        if dup.any():
            return what, int(second[np.flatnonzero(dup)[0]])
    return None
