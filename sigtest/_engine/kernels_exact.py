"""Numba kernels without random draws: the exact swap enumeration and weighted sums.

:func:`exact_swap_sums` enumerates every combination of per-group swap
counts of the exact (lattice) permutation test with its probability;
:func:`weighted_sums` gives ``weights @ stats`` summed in a fixed order (the
Bayesian bootstrap's Dirichlet weights), bit-identical for any thread count.
Each has its NumPy twin in :mod:`sigtest._engine.kernels_numpy`, used when
numba is disabled. The random-draw kernels live in
:mod:`sigtest._engine.kernels`.
"""

import numpy as np

from sigtest._engine import kernels_numpy as _py
from sigtest._engine.kernels import NUMBA_ENABLED, _jit
from sigtest._engine.threads import split_rows

__all__ = ["exact_swap_sums", "weighted_sums"]


# --------------------------------------------------------------------------
# exact permutation: every combination of per-group swap counts
# --------------------------------------------------------------------------
@_jit
def _exact_one(diff, counts, pmf, offsets, p, row, swapped, prob):
    G, s = diff.shape
    rest = np.int64(p)
    pr = 1.0
    for g in range(G):
        radix = counts[g] + 1
        k = rest % radix
        rest = rest // radix
        fk = float(k)
        for j in range(s):
            swapped[row, j] = swapped[row, j] + fk * diff[g, j]
        pr = pr * pmf[offsets[g] + k]
    prob[row] = pr


@_jit
def _exact_swap_sums(diff, counts, pmf, offsets, start, stop):
    """Patterns ``start .. stop - 1`` (rows ``0 .. stop - start - 1`` of the output)."""
    swapped = np.zeros((stop - start, diff.shape[1]))
    prob = np.empty(stop - start)
    for p in range(start, stop):
        _exact_one(diff, counts, pmf, offsets, p, p - start, swapped, prob)
    return swapped, prob


@_jit
def _weighted_one(weights, stats, out, b):
    for r in range(stats.shape[0]):
        w = weights[b, r]
        for j in range(stats.shape[1]):
            out[b, j] += w * stats[r, j]


@_jit
def _weighted_sums(weights, stats):
    out = np.zeros((weights.shape[0], stats.shape[1]))
    for b in range(weights.shape[0]):
        _weighted_one(weights, stats, out, b)
    return out


# --------------------------------------------------------------------------
# dispatch (same signatures as the twins, plus ``parallel``: the serial kernel
# on parts of the patterns or resamples in threads)
# --------------------------------------------------------------------------
def exact_swap_sums(diff, counts, pmf, offsets, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.exact_swap_sums`."""
    if not NUMBA_ENABLED:
        return _py.exact_swap_sums(diff, counts, pmf, offsets)
    n_patterns = int(np.prod(counts + 1)) if counts.shape[0] else 1
    return split_rows(lambda s, e: _exact_swap_sums(diff, counts, pmf, offsets, np.int64(s),
                                                    np.int64(e)), n_patterns, parallel)


def weighted_sums(weights, stats, parallel=False):
    """Jitted :func:`sigtest._engine.kernels_numpy.weighted_sums`."""
    if not NUMBA_ENABLED:
        return _py.weighted_sums(weights, stats)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    return split_rows(lambda s, e: _weighted_sums(weights[s:e], stats), weights.shape[0],
                      parallel)
