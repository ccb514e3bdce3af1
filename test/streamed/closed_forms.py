#!/usr/bin/env python3
"""The expected output of a program here, from closed forms (no loop over the elements).

usage: closed_forms.py [wide_sums | wide_float_extremes]   (default wide_sums)
"""
import sys

LENGTHS = [700000000, 800000000, 700000001]
STARTS = [0, 5, -7]


def wrap(x):  # to a 32-bit INT, as VCODE's INT arithmetic wraps
    x %= 2**32
    return x - 2**32 if x >= 2**31 else x


def masked_sum(start, length):  # sum of (j AND 1023) for j in [start, start + length)
    def prefix(n):  # sum of (j mod 1024) for j in [0, n)
        return n // 1024 * (1023 * 1024 // 2) + (n % 1024) * (n % 1024 - 1) // 2
    r = start % 1024
    return prefix(r + length) - prefix(r)


def least(start, length, stride):  # min of wrap(start + stride * i), i < length
    if start + stride * (length - 1) < 2**31:
        return start
    first_wrapped = -(-(2**31 - start) // stride)
    return wrap(start + stride * first_wrapped)


def wide_sums():
    total = sum(masked_sum(s, n) for s, n in zip(STARTS, LENGTHS))
    assert total < 2**53  # every partial sum is exact in a double
    print("( %.14e )" % total)
    print("( %s )" % " ".join(str(wrap(n * s + n * (n - 1) // 2)) for s, n in zip(STARTS, LENGTHS)))
    print("( %s )" % " ".join(str(wrap(s + n - 1)) for s, n in zip(STARTS, LENGTHS)))
    print("( %s )" % " ".join(str(least(s, n, 3)) for s, n in zip(STARTS, LENGTHS)))


def wide_float_extremes():
    lengths, starts = [2**30, 2**30, 5], [5, -100, -1]
    floats = lambda xs: "( %s )" % " ".join("%.14e" % x for x in xs)
    print(floats(float(s + n - 1) for s, n in zip(starts, lengths)))
    print(floats(float(s) for s in starts))
    # The middle segment is log(-1.0): the C library's NaN has its sign bit set, printed "-nan".
    print("( %.14e -nan %.14e )" % (2.5, -1.5))


{"wide_sums": wide_sums, "wide_float_extremes": wide_float_extremes}[(sys.argv[1:] or ["wide_sums"])[0]]()
