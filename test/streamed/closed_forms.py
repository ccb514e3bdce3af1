#!/usr/bin/env python3
"""The expected output of a program here, from closed forms (no loop over the elements).

usage: closed_forms.py [wide_sums | wide_float_extremes | nan_fold_borders | wide_nan_fold]
(default wide_sums)
"""
import math
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


def log_extremes(descriptors):
    """FLOAT MAX of log(x (x + 0.5) - 0.0375), then MIN of log(x (x + 0.25) - 0.0375), for x = start
    + i in each segment, per descriptor (lengths, starts). The argument is negative, so its log
    NaN, at x = 0 only; it falls for x <= -1 and rises for x >= 1. A NaN resets the fold: max(s,
    NaN) is NaN but max(NaN, y) is y, so the fold continues from the elements after it."""
    def extremes(start, length, h):
        def value(x):
            x = float(x)
            return math.log(x * (x + h) - 0.0375)
        first, last = start, start + length - 1
        if first <= 0 <= last:
            if last == 0:
                return math.nan, math.nan
            first = 1  # what follows the NaN, rising
        ends = [value(first), value(last)]
        return max(ends), min(ends)

    def floats(xs):  # the C library's NaN from a log has its sign bit set, printed "-nan"
        return "( %s )" % " ".join("-nan" if math.isnan(x) else "%.14e" % x for x in xs)

    for lengths, starts in descriptors:
        print(floats(extremes(s, n, 0.5)[0] for s, n in zip(starts, lengths)))
        print(floats(extremes(s, n, 0.25)[1] for s, n in zip(starts, lengths)))


def nan_fold_borders():
    log_extremes([([3500000, 1200000, 3688614], [-2796205, -694307, -400000]),
                  ([5, 8388604, 5], [-4, -4194302, 0]),
                  ([2097153, 4194307, 2097154], [1, -100, -1000000]),
                  ([2797205, 2796204, 2795205], [1, -2796209, 1000]),
                  ([2796208, 1398102, 4194304], [-2796206, -1398100, 1])])


def wide_nan_fold():
    log_extremes([([900000000, 300000000, 947483654], [-715827885, -173741827, -100000000])])


{"wide_sums": wide_sums, "wide_float_extremes": wide_float_extremes,
 "nan_fold_borders": nan_fold_borders,
 "wide_nan_fold": wide_nan_fold}[(sys.argv[1:] or ["wide_sums"])[0]]()
