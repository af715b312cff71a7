"""Parse decimal numbers straight from a byte buffer, all rows at once, rounding exactly as ``strtod`` does.

Each field is gathered right-aligned into a fixed-width byte matrix, with the bytes left of it set to ``'0'``
(a leading zero changes nothing). Rows sharing the same number of decimals then have every digit at a fixed
place value, so their digit integer is one matrix-vector product. With at most 15 digits that integer and the
power of ten are exact doubles and the one division is correctly rounded: the double C's ``strtod``
(trec_eval's ``atof``) returns. Other fields (exponents, ``inf``, more digits) go through numpy's own
conversion, only those rows."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from ragjudge.retrieval._tokens import to_bytes_array

__all__ = ["parse_numbers"]

_MAX_DIGITS = 15  # 10**15 < 2**53: the digit integer is exact in a double
_POWERS = np.array([float(10**k) for k in range(_MAX_DIGITS + 2)])  # exact doubles
_EXACT = float(2**53)
_ZERO, _DOT, _MINUS, _PLUS = 48, 46, 45, 43

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def parse_numbers(buf: npt.NDArray[np.uint8], starts: Ints, ends: Ints) -> Floats:
    """The numbers written in ``buf[starts[i]:ends[i]]``; raises ValueError if one is not a number."""
    lengths = ends - starts
    width = int(lengths.max()) if len(lengths) else 1
    value = np.zeros(len(starts), dtype=np.float64)
    done: npt.NDArray[np.bool_] | None = None
    if len(starts) and width <= _MAX_DIGITS + 2 and int(ends.min()) >= width:
        windows = as_strided(buf, shape=(len(buf) - width + 1, width), strides=(1, 1), writeable=False)
        matrix = windows[ends - width]  # right-aligned; the bytes left of each field are not its own
        done = _uniform(matrix, lengths, value)
        if done is None:
            done = _fixed_place(_zero_filled(matrix, lengths), value)
    if done is None:
        done = np.zeros(len(starts), dtype=bool)
    if not done.all():
        rest = np.flatnonzero(~done)
        value[rest] = to_bytes_array(buf, starts[rest], ends[rest]).astype(np.float64)
    return value


def _zero_filled(matrix: npt.NDArray[np.uint8], lengths: Ints) -> npt.NDArray[np.uint8]:
    """The right-aligned rows with the bytes before each field replaced by ``'0'``."""
    width = matrix.shape[1]
    if not (lengths == width).all():
        outside = np.arange(width) < (width - lengths)[:, None]
        np.copyto(matrix, np.uint8(_ZERO), where=outside)
    return matrix


def _uniform(matrix: npt.NDArray[np.uint8], lengths: Ints, value: Floats) -> npt.NDArray[np.bool_] | None:
    """The usual case, checked column by column: unsigned, every row's dot (or none) in one column. The matrix
    is transposed once so that each character position is one contiguous pass; only the first few columns,
    where some fields have not started yet, need a mask."""
    n, width = matrix.shape
    if not n:
        return None
    columns = np.ascontiguousarray(matrix.T)
    dot = _dot_column(columns[:, 0], width - int(lengths[0]))
    ragged = width - int(lengths.min())  # the columns before this one are outside some fields
    integer = np.zeros(n, dtype=np.int64)
    for j in range(width):
        digit = columns[j] - np.uint8(_ZERO)
        if j < ragged:
            digit[lengths < width - j] = 0  # outside the field: a leading zero
        if j == dot:
            if not bool((digit == np.uint8(_DOT - _ZERO + 256)).all()):
                return None
            continue
        if not bool((digit < 10).all()):
            return None  # a sign, an exponent, a dot elsewhere: the general path
        integer *= 10
        integer += digit
    if int(integer.max()) >= 2**53:
        return None
    np.divide(integer, _POWERS[max(width - dot - 1, 0)], out=value)
    return np.ones(n, dtype=bool)


def _dot_column(first_row: npt.NDArray[np.uint8], start: int) -> int:
    """The column of the first row's dot (the row's field starts at ``start``); the width when it has none."""
    dots = np.flatnonzero(first_row[start:] == _DOT)
    return start + int(dots[0]) if len(dots) else len(first_row)


def _fixed_place(matrix: npt.NDArray[np.uint8], value: Floats) -> npt.NDArray[np.bool_]:
    """Fill ``value`` for plain decimals (sign, digits, at most one dot); return which rows were filled."""
    n, width = matrix.shape
    first = np.argmax(matrix != _ZERO, axis=1)  # leftmost byte of the field that is not a (padding) zero
    lead = matrix[np.arange(n), first]
    negative = lead == _MINUS
    signed = negative | (lead == _PLUS)
    if signed.any():
        matrix[np.flatnonzero(signed), first[signed]] = _ZERO
    is_dot = matrix == _DOT
    digits = matrix - np.uint8(_ZERO)
    plain = ((digits < 10) | is_dot).all(axis=1) & (is_dot.sum(axis=1) <= 1)
    dot_at = np.where(is_dot.any(axis=1), np.argmax(is_dot, axis=1), width)
    done = np.zeros(n, dtype=bool)
    for column in np.unique(dot_at[plain]).tolist():
        rows = np.flatnonzero(plain & (dot_at == column))
        integer, decimals = _digits_value(digits[rows], int(column))
        exact = integer < _EXACT  # below 2**53 every partial sum was exact
        value[rows] = integer / _POWERS[decimals]
        done[rows] = exact
    value[negative & done] *= -1.0
    return done


def _digits_value(digits: npt.NDArray[np.uint8], dot: int) -> tuple[Floats, int]:
    """Digit integer of rows whose dot (if any, else ``dot == width``) sits at column ``dot``, and their
    decimals."""
    width = digits.shape[1]
    places = np.zeros(width, dtype=np.float64)
    decimals = max(width - dot - 1, 0)
    exponents = np.arange(width - 1, -1, -1) - (1 if dot < width else 0)
    exponents[dot + 1 :] += 1 if dot < width else 0
    places[:] = _POWERS[np.clip(exponents, 0, _MAX_DIGITS + 1)]
    if dot < width:
        places[dot] = 0.0
    return digits.astype(np.float64) @ places, decimals
