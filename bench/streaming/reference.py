#!/usr/bin/env python3
"""The float64 reference of a streaming benchmark's result, and how close the result must be.

    bench/streaming/reference.py PROGRAM N      prints "REFERENCE TOLERANCE", or "none"

TOLERANCE is relative. A printed result has 15 significant digits (%.14e), so every tolerance
includes 1e-14 for the printing. The sums of logarithms are left-to-right float64 sums of
positive terms: such a sum of m terms is within (m - 1) * 2^-53 of the exact sum (relative), and
each ln is within one ulp (2^-52), so (m + 2) * 2^-52 for the longest sum m bounds the error; the
runs at several threads regroup the sum and use the vectorized ln, still within that bound.
"""
import math
import sys

PRINTED = 1e-14  # the printed result's last digit


def logsum(n):
    # ln(n!) = lgamma(n + 1): a float64 with a few ulps of error, far inside the tolerance.
    return math.lgamma(n + 1), (n + 2) * 2.0**-52 + PRINTED


def sumlogsum(n):
    total = math.fsum(math.lgamma(j * j + 1) for j in range(1, n + 1))
    return total, (n * n + n + 2) * 2.0**-52 + PRINTED


def matmul(n):
    # The matrix of the benchmark: a[i][j] = (7i + 3j) mod 11, and b the same. The sum of every
    # entry of a b is the sum over k of (column k of a summed) * (row k of b summed), exact in
    # integers; the benchmark's float sums of small integers are exact too.
    column = [sum((i * 7 + k * 3) % 11 for i in range(n)) for k in range(n)]
    row = [sum((k * 7 + j * 3) % 11 for j in range(n)) for k in range(n)]
    return float(sum(c * r for c, r in zip(column, row))), PRINTED


REFERENCES = {"logsum": logsum, "sumlogsum": sumlogsum, "matmul": matmul}


def main():
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        sys.exit("usage: reference.py PROGRAM N")
    program, n = sys.argv[1], int(sys.argv[2])
    if program not in REFERENCES:
        print("none")
        return
    value, tolerance = REFERENCES[program](n)
    print(f"{value!r} {tolerance:.3g}")


if __name__ == "__main__":
    main()
