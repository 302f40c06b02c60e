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

Cost: one resample costs ``O(N)`` draws and ``O(C (R_A + R_B) s)``
multiply-adds (the counts of the ``C <= N`` distinct rows of statistics, or
cells, times the per-run statistics, then the run weights), never a gather
of ``N x R`` predictions; the item draws are exactly those of the
uncompressed computation. Random numbers come from the counter generator of
:mod:`sigtest._engine.kernels_numpy`: resample ``b`` draws its items with key
``resample_keys(seed, B)[b]``, its runs of A with stream 1 and of B with
stream 2, so the output does not depend on chunking, threads or ``n_jobs``.
The sums use ``np.einsum`` without BLAS (no thread-dependent summation order).

References
----------
A. B. Owen (2007). The pigeonhole bootstrap. Annals of Applied Statistics
1(2), 386-411.
A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
Application, sec. 3.8 (hierarchical data).
"""

import numpy as np

from .kernels_numpy import _bounded, _draws
from .rng import check_seed, resample_keys

__all__ = ["nested_bootstrap_sums"]

# Items counted per vectorised chunk (bounds the temporary memory).
_CHUNK_CELLS = 1 << 21


def _counts(keys, n, cell_of=None, n_cells=None):
    """(len(keys), n) float64 counts of ``n`` draws with replacement from ``range(n)``.

    With ``cell_of`` (the cell of every item), the counts of the ``n_cells``
    cells instead: the sum of the counts of their items.
    """
    idx = _bounded(_draws(keys, n), n)
    if cell_of is not None:
        idx = cell_of[idx]
    else:
        n_cells = n
    b = idx.shape[0]
    flat = (idx + (np.arange(b, dtype=np.intp) * n_cells)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_cells).reshape(b, n_cells).astype(np.float64)


def _compress(flat_a, flat_b):
    """Merge the items whose statistics agree in every run of A and B.

    Returns ``(cell_of, cells_a, cells_b)`` (the cell of every item and the
    statistics of every cell) when that at least halves the rows, else
    ``(None, flat_a, flat_b)``. Hard-label metrics with a few classes have
    few distinct rows (accuracy: at most ``2 ** (R_A + R_B)``), so a
    resample then costs ``O(N)`` draws plus ``O(cells (R_A + R_B) s)``.
    """
    both = np.concatenate([flat_a, flat_b], axis=1)
    cells, cell_of = np.unique(both, axis=0, return_inverse=True)
    if 2 * cells.shape[0] > both.shape[0]:
        return None, flat_a, flat_b
    k = flat_a.shape[1]
    return (np.ascontiguousarray(cell_of.reshape(-1).astype(np.intp)),
            np.ascontiguousarray(cells[:, :k]), np.ascontiguousarray(cells[:, k:]))


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
    # (N, R * s) views: item counts times these give the per-run sums
    flat_a = np.ascontiguousarray(stats_a.transpose(1, 0, 2).reshape(n, ra * s))
    flat_b = np.ascontiguousarray(stats_b.transpose(1, 0, 2).reshape(n, rb * s))
    cell_of, flat_a, flat_b = _compress(flat_a, flat_b)
    n_cells = flat_a.shape[0]
    keys_items = resample_keys(seed, B)
    keys_a = resample_keys(seed, B, stream=1)
    keys_b = resample_keys(seed, B, stream=2)
    sums_a = np.empty((B, s))
    sums_b = np.empty((B, s))
    chunk = max(1, _CHUNK_CELLS // max(n, 1))
    for lo in range(0, B, chunk):
        hi = min(B, lo + chunk)
        c = _counts(keys_items[lo:hi], n, cell_of, n_cells)
        per_run_a = np.einsum("bn,nk->bk", c, flat_a).reshape(hi - lo, ra, s)
        per_run_b = np.einsum("bn,nk->bk", c, flat_b).reshape(hi - lo, rb, s)
        ka = _counts(keys_a[lo:hi], ra)
        kb = _counts(keys_b[lo:hi], rb)
        sums_a[lo:hi] = np.einsum("br,brs->bs", _run_weights(ka, ra, expand), per_run_a)
        sums_b[lo:hi] = np.einsum("br,brs->bs", _run_weights(kb, rb, expand), per_run_b)
    return sums_a, sums_b
