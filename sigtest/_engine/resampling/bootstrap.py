"""Paired bootstrap of sufficient statistics: :func:`bootstrap_sums`.

Paired bootstrap (Efron & Tibshirani 1993; Berg-Kirkpatrick et al. 2012):
``m`` items drawn with replacement, the same items for A and B. Generic path:
``O(B * m * s)`` time and ``O(B * s)`` memory, no ``B x N`` index matrix.
Compressed path: a Multinomial(m, counts / N) draw over the ``C <= K**3``
occupied cells, ``O(B * C * s)``, independent of ``N``; sparse cell rows add
only their nonzero entries. Strata are resampled one at a time, each keeping
its size.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine import kernels as _kernels
from sigtest._engine.checks import check_allocation, check_n_resamples as _check_n_resamples
from sigtest._engine.sparse import SparseRows
from sigtest._engine.resampling.rows import (
    _MEMO,
    _MEMO_MAX_ENTRIES,
    _check_paired,
    _expand,
    _merge_rows,
    _merge_sparse_rows,
    _reduce_columns,
    _sparse_constant_columns,
    _sparse_joint,
    _use_threads,
)
from sigtest._engine.rng import check_seed, resample_keys
from sigtest._engine.sample_size import resolve_sample_size, stratified_sample_size

__all__ = ["bootstrap_sums"]

# Item statistics larger than this (bytes per system) are bootstrapped one
# system at a time, without the joined (N, 2s) copy.
_JOINT_MAX_BYTES = 1 << 26


def bootstrap_sums(paired, n_resamples, sample_size=None, seed=0, *, parallel=True):
    """Paired-bootstrap column sums of A and B.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
        Number of resamples ``B``.
    sample_size : int, float or None, default=None
        Items per resample: ``None`` = ``N``, a float in (0, 1] = that
        fraction of ``N``, an int = that many.
    seed : int
        Integer seed (see :func:`sigtest.utils.validation.check_random_state_seed`).
    parallel : bool, default=True
        Use the multi-threaded kernel variant. Results are identical.

    Returns
    -------
    sums_a, sums_b : ndarray of shape (n_resamples, s)

    Notes
    -----
    Resample ``b`` sums the statistics of ``m`` items ``i_1..i_m`` drawn
    uniformly with replacement: ``sums_a[b] = sum_j stats_a[i_j]`` and the
    same indices for B (Efron & Tibshirani 1993; Berg-Kirkpatrick et al.
    2012). Constant columns (e.g. a count) are returned as ``m * value``.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> a = np.where(rng.random(500) < 0.7, y, (y + 1) % 3)
    >>> b = np.where(rng.random(500) < 0.8, y, (y + 1) % 3)
    >>> sums_a, sums_b = bootstrap_sums(prepare_paired(y, a, b, acc), 2000, seed=1)
    >>> sums_a.shape, float(sums_a[0, 1])
    ((2000, 2), 500.0)
    """
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16 + 32 * paired.n_statistics)
    seed = check_seed(seed)
    if paired.stratified:
        return _stratified_bootstrap_sums(paired, B, sample_size, seed, parallel)
    m = resolve_sample_size(sample_size, paired.n_units)
    return _bootstrap_sums(paired, B, m, seed, 0, parallel)


def _stratum(paired, rows):
    """The rows of one stratum as unstratified, unclustered paired data."""
    import dataclasses

    counts = None if paired.counts is None else paired.counts[rows]
    units = rows.size if counts is None else int(np.rint(counts.sum()))
    return dataclasses.replace(
        paired, stats_a=np.ascontiguousarray(paired.stats_a[rows]),
        stats_b=np.ascontiguousarray(paired.stats_b[rows]), counts=counts, n_samples=units,
        n_groups=None, n_strata=None, row_strata=None, item_groups=None, item_strata=None,
        data=None, sample_weight=None,
    )


def _stratified_bootstrap_sums(paired, B, sample_size, seed, parallel):
    r"""Stratified bootstrap: each stratum resampled on its own, keeping its size.

    Stratum :math:`h` (its :math:`n_h` units: items or clusters) draws
    :math:`m_h = n_h` units with replacement (or the fraction
    ``sample_size`` of them) from the independent stream ``h`` of the seed;
    the sums of all strata are added (R ``boot(strata=)``; Davison & Hinkley
    1997, §3.7). Item rows of moderate size are joined once (``(N, 2s)``)
    and each stratum's rows taken from the join: the same rows, in the same
    order, as the join of the stratum's own rows (:func:`_bootstrap_sums`).
    """
    fraction = stratified_sample_size(sample_size, paired.n_units)
    s = paired.n_statistics
    sums_a, sums_b = np.zeros((B, s)), np.zeros((B, s))
    joint = None
    if not (paired.compressed or isinstance(paired.stats_a, SparseRows)
            or paired.stats_a.nbytes > _JOINT_MAX_BYTES or paired.stats_a.shape[0] >= 2**32):
        joint = np.hstack([paired.stats_a, paired.stats_b])
    for h, rows in enumerate(_stratum_rows(paired.row_strata, int(paired.n_strata))):
        if rows.size == 0:
            continue
        if joint is None:
            sub = _stratum(paired, rows)
            m = resolve_sample_size(fraction, sub.n_units)
            part_a, part_b = _bootstrap_sums(sub, B, m, seed, h, parallel)
        else:  # an item row per unit: the stratum's n_units is its number of rows
            m = resolve_sample_size(fraction, rows.size)
            out = _joint_sums(joint[rows], B, m, seed, h, parallel)
            part_a, part_b = out[:, :s], out[:, s:]
        sums_a += part_a
        sums_b += part_b
    return sums_a, sums_b


def _stratum_rows(row_strata, n_strata):
    """The rows of each stratum ``0 .. n_strata - 1``, ascending: ``flatnonzero(row_strata == h)``.

    One stable sort of the codes instead of a scan of all rows per stratum.
    """
    codes = np.asarray(row_strata)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_strata + 1))
    return [order[bounds[h]:bounds[h + 1]] for h in range(n_strata)]


def _joint_sums(M, B, m, seed, stream, parallel):
    """Bootstrap sums of the joined item rows ``M = [stats_a, stats_b]`` (generic kernel)."""
    red, source, const = _reduce_columns(M)
    if red.shape[1] == 0:
        sums_red = np.zeros((B, 0))
    else:
        sums_red = _kernels.bootstrap_sums_generic(
            red, m, resample_keys(seed, B, stream),
            parallel=_use_threads(parallel, B * m * red.shape[1])
        )
    return _expand(sums_red, source, const, float(m))


def _bootstrap_sums(paired, B, m, seed, stream, parallel):
    """Bootstrap sums of ``m`` units drawn from the rows, keys of ``stream``."""
    if paired.stats_a.shape[0] >= 2**32:
        raise ValueError("The generic bootstrap supports at most 2**32 - 1 rows.")
    s = paired.n_statistics
    if isinstance(paired.stats_a, SparseRows):
        return _bootstrap_sums_sparse(paired, B, m, seed, stream, parallel)
    if not paired.compressed and paired.stats_a.nbytes > _JOINT_MAX_BYTES:
        # large item rows: one kernel call per system on its own rows (the
        # same keys, hence the same draws and column sums as the joint call)
        # instead of a (N, 2s) joined copy
        out = []
        for stats in (paired.stats_a, paired.stats_b):
            red, source, const = _reduce_columns(stats)
            sums_red = np.zeros((B, 0)) if red.shape[1] == 0 else _kernels.bootstrap_sums_generic(
                red, m, resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * m * red.shape[1]))
            out.append(_expand(sums_red, source, const, float(m)))
        return out[0], out[1]
    M = np.hstack([paired.stats_a, paired.stats_b])
    if not paired.compressed:
        out = _joint_sums(M, B, m, seed, stream, parallel)
        return out[:, :s], out[:, s:]
    red, source, const = _reduce_columns(M)
    if red.shape[1] == 0:
        sums_red = np.zeros((B, 0))
    else:
        # Cells with identical joint statistics rows are merged (a multinomial
        # over merged cells is the aggregate of the finer one): accuracy has
        # at most 4 distinct rows whatever K is.
        red, counts = _merge_rows(red, paired.counts)
        sums_red = _MEMO.get_or_compute(
            _MEMO.key("bootstrap_cells", (red, counts), m, seed, B, stream),
            lambda: _kernels.bootstrap_sums_cells(
                red, counts, m, resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * red.shape[0] * 16),
            ),
        )
    out = _expand(sums_red, source, const, float(m))
    return out[:, :s], out[:, s:]


def _bootstrap_sums_sparse(paired, B, m, seed, stream, parallel):
    """:func:`_bootstrap_sums` of sparse cell rows: the same draws and sums.

    Rows are merged as in the dense path (identical joint rows, first
    occurrence order), so the multinomial draws are the same; the kernel
    adds only the nonzero entries, in the same cell order, and constant
    columns are set to ``m * value`` as :func:`_expand` does, so the output
    is bit-identical to the dense path's, in ``O(B * (C + s) + nnz)`` time
    and ``O(B * s + nnz)`` memory.
    """
    s = paired.n_statistics
    joint = _sparse_joint(paired)
    const_cols, const_vals = _sparse_constant_columns(joint)
    if const_cols.size == 2 * s:  # nothing varies: no draw is needed
        out = np.zeros((B, 2 * s))
    else:
        rows, counts = _merge_sparse_rows(joint, paired.counts)

        def run():
            return _kernels.bootstrap_sums_cells_sparse(
                rows.indptr, rows.indices, rows.data, 2 * s, counts, m,
                resample_keys(seed, B, stream),
                parallel=_use_threads(parallel, B * (rows.shape[0] + rows.nnz) * 4),
            )

        if B * 2 * s <= _MEMO_MAX_ENTRIES:
            out = _MEMO.get_or_compute(
                _MEMO.key("bootstrap_cells_sparse", (rows.indptr, rows.indices, rows.data,
                                                     counts), m, seed, B, stream, s),
                run,
            ).copy()
        else:
            out = run()
    out[:, const_cols] = float(m) * const_vals
    return out[:, :s], out[:, s:]
