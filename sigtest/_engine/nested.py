r"""Hierarchical (two-stage) bootstrap of two systems with several runs each.

Each system was trained several times (seeds); every run predicts the same
``N`` items. The per-run, per-item sufficient statistics form an array
``S_A`` of shape ``(R_A, N, s)`` (and ``S_B``). One resample draws

* ``R_A`` runs of A with replacement and, independently, ``R_B`` runs of B
  (the seeds of A and B are not paired);
* ``N`` items with replacement, the *same* items for A and B (paired);

and computes each system's column sums as the mean over its drawn runs of
the sums over the drawn items,

.. math::

    T_A^* = \frac{1}{R_A} \sum_{r=1}^{R_A} k_r \sum_{i=1}^{N} c_i S_A[r, i, :],

with ``k`` the run counts and ``c`` the item counts of the resample; the
score is ``aggregate(T^*)``. Run and item sampling are crossed (every run
scores every item), so this is the pigeonhole bootstrap of Owen (2007) on
the runs x items array, with the item draw shared by the two systems. It
counts the seed variance and the item variance; the run x item interaction
is counted twice (once in each stage), which makes the spread slightly too
large, i.e. the test slightly conservative (Owen 2007, sec. 3).

Cost: one resample draws ``N`` items and adds their rows of per-run
statistics, ``O(N (R_A + R_B) s)`` in the engine's generic bootstrap kernel
(:func:`sigtest._engine.kernels.bootstrap_sums_generic`, numba, or its NumPy
twin), then weights the ``R`` per-run sums, ``O((R_A + R_B) s)``. (Merging
identical item rows into cells and drawing them from a multinomial, as the
engine's cell kernel does, was slower here: with 10 runs the cells number
hundreds, each needing a binomial draw.) Random numbers come from the counter generator of
:mod:`sigtest._engine.kernels_numpy`: resample ``b`` draws its items with key
``resample_keys(seed, B)[b]``, its runs of A with stream 1 and of B with
stream 2, so the output does not depend on chunking, threads or ``n_jobs``.
The kernel sums in a fixed order (draw by draw, or row by row on its count
path) and the run weights use ``np.einsum`` without BLAS, so no summation
order depends on threads.

References
----------
A. B. Owen (2007). The pigeonhole bootstrap. Annals of Applied Statistics
1(2), 386-411.
A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
Application, sec. 3.8 (hierarchical data).
"""

import numpy as np

from sigtest._engine import kernels as _kernels
from sigtest._engine.kernels_numpy import _indices
from sigtest._engine.rng import check_seed, resample_keys

__all__ = ["nested_bootstrap_sums"]


def _counts(keys, n):
    """(len(keys), n) float64 counts of ``n`` draws with replacement from ``range(n)``."""
    idx = _indices(keys, n, n)
    b = idx.shape[0]
    flat = (idx + (np.arange(b, dtype=np.intp) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def _run_weights(counts, r, expand):
    """Weights of the runs in a resample: ``k_r / R``, or the expanded ones.

    Expanded: ``(1 + c (k_r - 1)) / R`` with ``c = sqrt(R / (R - 1))``, i.e.
    the drawn runs' mean of ``mean + c (S_r - mean)``, whose variance over
    resamples is the unbiased ``s^2 / R`` instead of ``(R - 1) s^2 / R^2``.
    """
    if not expand or r == 1:
        return counts / r
    c = np.sqrt(r / (r - 1.0))
    return (1.0 + c * (counts - 1.0)) / r


def nested_bootstrap_sums(stats_a, stats_b, n_resamples, seed=0, *, expand=True):
    """Resampled column sums of A and B under the two-stage bootstrap.

    Parameters
    ----------
    stats_a : ndarray of shape (R_A, N, s)
        Per-run, per-item sufficient statistics of A (float64).
    stats_b : ndarray of shape (R_B, N, s)
        The same for B (same ``N`` and ``s``).
    n_resamples : int
        Number ``B`` of resamples.
    seed : int or None, default=0
        Root of the resample keys (:func:`~sigtest._engine.rng.resample_keys`).
    expand : bool, default=True
        Expand the run stage: each system's runs are resampled as
        ``mean + sqrt(R / (R - 1)) (S_r - mean)`` (the weights of
        :func:`_run_weights`), so the bootstrap variance of the mean of
        ``R`` runs is unbiased (the plain bootstrap shrinks it by
        ``(R - 1) / R``: 20 % with 5 runs). The item stage is unchanged.

    Returns
    -------
    sums_a, sums_b : ndarray of shape (B, s)
        Run-averaged column sums of every resample: ``aggregate`` of a row is
        the resampled score.
    """
    stats_a = np.asarray(stats_a, dtype=np.float64)
    stats_b = np.asarray(stats_b, dtype=np.float64)
    if stats_a.ndim != 3 or stats_b.ndim != 3 or stats_a.shape[1:] != stats_b.shape[1:]:
        raise ValueError(
            "stats_a and stats_b must have shapes (R_A, N, s) and (R_B, N, s); got "
            f"{stats_a.shape} and {stats_b.shape}."
        )
    seed = check_seed(seed)
    ra, n, s = stats_a.shape
    rb = stats_b.shape[0]
    B = int(n_resamples)
    # (N, (R_A + R_B) s): one row per item, every run's statistics side by side;
    # the item stage is the engine's generic bootstrap kernel (numba, with its
    # NumPy twin) on these rows: per resample, the column sums over N drawn items
    flat = np.ascontiguousarray(np.concatenate(
        [stats_a.transpose(1, 0, 2).reshape(n, ra * s),
         stats_b.transpose(1, 0, 2).reshape(n, rb * s)], axis=1))
    per_run = _kernels.bootstrap_sums_generic(flat, n, resample_keys(seed, B), parallel=False)
    per_run_a = per_run[:, :ra * s].reshape(B, ra, s)
    per_run_b = per_run[:, ra * s:].reshape(B, rb, s)
    ka = _run_weights(_counts(resample_keys(seed, B, stream=1), ra), ra, expand)
    kb = _run_weights(_counts(resample_keys(seed, B, stream=2), rb), rb, expand)
    sums_a = np.einsum("br,brs->bs", ka, per_run_a)
    sums_b = np.einsum("br,brs->bs", kb, per_run_b)
    return sums_a, sums_b
