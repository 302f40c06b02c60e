"""NumPy's summation orders as programs that a numba kernel can follow, for bit-equal sums.

NumPy sums a contiguous run of ``n`` floats *pairwise*
(``pairwise_sum`` in ``numpy/_core/src/umath/loops_utils.h.src``): up to 8
terms one after the other from 0; up to 128 terms in 8 partial sums
(``r[q]`` starts at term ``q`` and adds every 8th term), combined as
``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the last
``n % 8`` terms one after the other; above 128 terms, the sum of the first
``n2 = n // 2 - (n // 2) % 8`` terms plus the sum of the rest. A reduction
along an axis that is not the contiguous one adds the terms one after the
other instead. Which of the two a reduction takes depends on the memory
layout of the array.

:func:`pairwise_program` writes the pairwise tree of ``n`` terms as leaves
(runs of terms summed as above) and a post-order sequence of operations on
a stack of partial sums; :func:`sequential_program` is one leaf summed one
term after the other. A kernel that runs a program over many sums at once
(each with its own partial sums) gives each the bits NumPy gives it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Program", "pairwise_program", "sequential_program"]

#: Leaves of at most this many terms are summed in 8 partial sums (NumPy's ``PW_BLOCKSIZE``).
BLOCK = 128


class Program:
    """Leaves ``(lo, n, sequential)`` and post-order ``ops`` (leaf index, or -1: add the two
    partial sums on top of the stack); ``depth``: the largest stack needed."""

    def __init__(self, lo, n, seq, ops):
        self.lo = np.asarray(lo, dtype=np.int64)
        self.n = np.asarray(n, dtype=np.int64)
        self.seq = np.asarray(seq, dtype=np.bool_)
        self.ops = np.asarray(ops, dtype=np.int64)
        depth = size = 0
        for op in self.ops:
            size += 1 if op >= 0 else -1
            depth = max(depth, size)
        self.depth = max(1, depth)


def pairwise_program(n):
    """The pairwise summation of ``n`` contiguous terms, as NumPy makes it."""
    lo, cnt, seq, ops = [], [], [], []

    def visit(start, m):
        if m <= BLOCK:
            ops.append(len(lo))
            lo.append(start)
            cnt.append(m)
            seq.append(m < 8)
            return
        m2 = m // 2
        m2 -= m2 % 8
        visit(start, m2)
        visit(start + m2, m - m2)
        ops.append(-1)

    visit(0, int(n))
    return Program(lo, cnt, seq, ops)


def sequential_program(n):
    """The sum of ``n`` terms one after the other from 0 (a reduction along a strided axis)."""
    return Program([0], [int(n)], [True], [0])
