"""Decimal text to the nearest double, as Python's ``float()`` gives it, compiled.

A number of at most 19 significant digits is ``w * 10**q``, ``w < 2**64``
exact: Clinger's fast path reads it when ``w < 2**53`` and ``|q| <= 22`` (one
correctly rounded IEEE operation), else the Eisel-Lemire method (D. Lemire,
"Number Parsing at a Gigabyte per Second", 2021: a 128-bit product with
``5**q``, always correct for normal results). Anything else is reported as not
read, for ``float()``.
"""

import math

import numpy as np

from .._native._jit import jit

_SMALLEST_Q, _LARGEST_Q = -342, 308


def _powers_of_five():
    """High and low 64 bits of 5**q scaled to 128 bits, q from -342 to 308."""
    hi, lo = [], []
    for q in range(_SMALLEST_Q, _LARGEST_Q + 1):
        if q >= 0:
            c = 5**q
        else:
            p = 5**-q
            z = p.bit_length()
            b = z + 127 if q >= -27 else 2 * z + 128
            c = (1 << b) // p + 1
        shift = c.bit_length() - 128  # to 128 bits; a right shift truncates
        c = c >> shift if shift > 0 else c << -shift
        hi.append(c >> 64)
        lo.append(c & ((1 << 64) - 1))
    return np.array(hi, dtype=np.uint64), np.array(lo, dtype=np.uint64)


_P5_HI, _P5_LO = _powers_of_five()
_POW10 = np.array([10.0**e for e in range(23)])  # exact doubles
_M32 = np.uint64(0xFFFFFFFF)
_PRECISION_MASK = np.uint64(0xFFFFFFFFFFFFFFFF >> 55)


@jit(inline="always")
def _mul128(a, b):  # pragma: no cover - compiled
    """(high, low) 64-bit halves of the 128-bit product of two uint64."""
    a_lo, a_hi = a & _M32, a >> np.uint64(32)
    b_lo, b_hi = b & _M32, b >> np.uint64(32)
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (p0 >> np.uint64(32)) + (p1 & _M32) + (p2 & _M32)
    low = (p0 & _M32) | (mid << np.uint64(32))
    high = p3 + (p1 >> np.uint64(32)) + (p2 >> np.uint64(32)) + (mid >> np.uint64(32))
    return high, low


@jit(inline="always")
def _eisel_lemire(w, q):  # pragma: no cover - compiled
    """(value, ok): the double nearest to w * 10**q, for 0 < w < 2**64."""
    if q < _SMALLEST_Q or q > _LARGEST_Q:
        return 0.0, False
    lz = 0
    while (w >> np.uint64(63)) == 0:
        w <<= np.uint64(1)
        lz += 1
    index = q - _SMALLEST_Q
    high, low = _mul128(w, _P5_HI[index])
    if (high & _PRECISION_MASK) == _PRECISION_MASK:
        high2, _ = _mul128(w, _P5_LO[index])
        low += high2
        if high2 > low:
            high += np.uint64(1)
    upper = np.int64(high >> np.uint64(63))
    shift = np.uint64(upper + 9)
    mantissa = high >> shift
    # floor(log2(10**q)) + 63 as fast_float computes it, then the bias
    power2 = (((152170 + 65536) * q) >> 16) + 63 + upper - lz + 1023
    if power2 <= 0:
        return 0.0, False  # subnormal: float() reads it
    if (
        low <= np.uint64(1)
        and q >= -4
        and q <= 23
        and (mantissa & np.uint64(3)) == np.uint64(1)
        and (mantissa << shift) == high
    ):
        mantissa &= ~np.uint64(1)  # exactly halfway: round to even, down
    mantissa += mantissa & np.uint64(1)
    mantissa >>= np.uint64(1)
    if mantissa >= np.uint64(1 << 53):
        mantissa = np.uint64(1 << 52)
        power2 += 1
    if power2 >= 0x7FF:
        return 0.0, False  # overflows to infinity
    return math.ldexp(np.float64(mantissa), power2 - 1023 - 52), True


@jit(inline="always")
def read_float(data, i, end):  # pragma: no cover - compiled
    """(value, ok): the plain decimal number in data[i:end], read exactly."""
    neg = False
    if data[i] == 45 or data[i] == 43:  # '-' or '+'
        neg = data[i] == 45
        i += 1
    w = np.uint64(0)
    n_digits = 0
    q = 0
    seen = False
    point = False
    while i < end:
        c = data[i]
        if c >= 48 and c <= 57:
            seen = True
            if w != 0 or c != 48:
                if n_digits == 19:
                    return 0.0, False
                w = w * np.uint64(10) + np.uint64(c - 48)
                n_digits += 1
            if point:
                q -= 1
        elif c == 46 and not point:  # '.'
            point = True
        else:
            break
        i += 1
    if not seen:
        return 0.0, False
    if i < end and (data[i] == 101 or data[i] == 69):  # 'e' or 'E'
        i += 1
        sign = 1
        if i < end and (data[i] == 45 or data[i] == 43):
            sign = -1 if data[i] == 45 else 1
            i += 1
        if i == end:
            return 0.0, False
        e = 0
        while i < end and data[i] >= 48 and data[i] <= 57 and e < 10000:
            e = e * 10 + (data[i] - 48)
            i += 1
        q += sign * e
    if i != end:
        return 0.0, False
    if w == 0:
        return -0.0 if neg else 0.0, True
    if w <= np.uint64(1 << 53) and q >= -22 and q <= 22:
        value = np.float64(w)
        value = value / _POW10[-q] if q < 0 else value * _POW10[q]
        ok = True
    else:
        value, ok = _eisel_lemire(w, q)
    return -value if neg else value, ok
