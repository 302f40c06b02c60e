"""Paired permutation of sufficient statistics: Monte Carlo and exact enumeration.

* Paired permutation / approximate randomization (Noreen 1989;
  Fisher-Pitman): each item's A and B outputs swapped with probability 1/2.
  With ``D = stats_b - stats_a``, ``sums_a* = sum(stats_a) + sum_{swapped} D``
  and ``sums_b* = sum(stats_b) - sum_{swapped} D``; only items with
  ``D != 0`` matter (:func:`discordant_rows`). Compressed path: a
  Binomial(n_c, 1/2) number of swaps per discordant cell.
* Exact permutation: items with identical ``D`` rows are exchangeable, so the
  permutation distribution is that of ``sum_g k_g D_g`` with independent
  ``k_g ~ Binomial(n_g, 1/2)``; it is enumerated when ``prod(n_g + 1)`` is
  small (this is ``2**d`` when all ``d`` differing items are distinct).

:class:`~sigtest.PairedPermutation` computes the discordant rows once
(:func:`discordant_rows`) and passes them to the cost estimate, the exact
attempt and the Monte Carlo run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sigtest.metrics._registry import is_builtin_aggregate
from sigtest._engine import kernels as _kernels
from sigtest._engine import kernels_exact as _kernels_exact
from sigtest._engine.checks import check_allocation, check_n_resamples as _check_n_resamples
from sigtest._engine.checks import check_positive_int as _check_positive_int
from sigtest._engine.paired import PairedData
from sigtest._engine.sparse import SparseRows, sparse_difference
from sigtest._engine.resampling.rows import (
    _MEMO,
    _MEMO_MAX_ENTRIES,
    _check_paired,
    _merge_rows,
    _merge_sparse_rows,
    _use_threads,
)
from sigtest._engine.rng import check_seed, resample_keys

__all__ = [
    "DiscordantRows",
    "discordant_rows",
    "exact_groups",
    "exact_permutation_sums",
    "lattice_pmf",
    "lattice_steps",
    "monte_carlo_permutation_seconds",
    "permutation_sums",
]

# Largest number of float64 entries of one exact-permutation output array.
_MAX_EXACT_CELLS = 2**25
# Largest number of multiply-adds of the lattice (convolution) exact path.
_MAX_LATTICE_WORK = 2**27
# Measured serial costs (seconds) of one unit of work, for exact="auto"
# (2 cores, numba 0.6x; see docs/which_test.md): one swap pattern times one
# group in the enumeration kernel, one multiply-add of the lattice
# convolution, one (resample, merged cell) binomial draw, one (resample,
# discordant row, column) entry of the generic Monte Carlo kernel, and one
# aggregated row (resample or pattern) times statistic.
_COST_PATTERN_GROUP = 30e-9
_COST_LATTICE_OP = 1e-9
_COST_MC_CELL = 30e-9
_COST_MC_ENTRY = 1.2e-9
_COST_AGGREGATE = 5e-9


@dataclass(frozen=True, eq=False)
class DiscordantRows:
    """The rows of ``D = stats_b - stats_a`` that are not all zero, of one paired data.

    Made once by :func:`discordant_rows` and passed to every permutation call
    on the same data (:class:`~sigtest.PairedPermutation` makes three: the
    Monte Carlo cost estimate, the exact attempt and the Monte Carlo run).
    Read only: callers never modify its arrays.

    Attributes
    ----------
    paired : PairedData
        The data the rows come from (a call given rows of other data raises
        ``ValueError``).
    D : ndarray of shape (r, c) or SparseRows of shape (r, s)
        Dense rows: the discordant rows restricted to the columns ``cols``;
        sparse cell rows: the discordant rows, all columns.
    cols : ndarray of shape (c,) or None
        Dense rows: the columns of ``D`` that are not all zero; sparse: None.
    weights : ndarray of shape (r,) or None
        The cell counts of the rows (None for item rows).
    """

    paired: PairedData
    D: np.ndarray | SparseRows
    cols: np.ndarray | None
    weights: np.ndarray | None

    @functools.cached_property
    def merged(self):
        """Identical weighted rows merged: ``(rows, counts)`` (:func:`_merge_rows`)."""
        if isinstance(self.D, SparseRows):
            return _merge_sparse_rows(self.D, self.weights)
        return _merge_rows(self.D, self.weights)


def discordant_rows(paired):
    """The discordant rows of ``paired``, to pass to the permutation calls on it.

    Parameters
    ----------
    paired : PairedData
        With sufficient statistics.

    Returns
    -------
    DiscordantRows
    """
    _check_paired(paired)
    if isinstance(paired.stats_a, SparseRows):
        diff, nonzero = sparse_difference(paired.stats_a, paired.stats_b)
        rows = np.flatnonzero(nonzero)
        return DiscordantRows(paired, diff.take_rows(rows), None, paired.counts[rows])
    D = paired.stats_b - paired.stats_a
    rows = np.flatnonzero(np.any(D != 0, axis=1))
    cols = np.flatnonzero(np.any(D[rows] != 0, axis=0))
    weights = None if paired.counts is None else paired.counts[rows]
    return DiscordantRows(paired, np.ascontiguousarray(D[np.ix_(rows, cols)]), cols, weights)


def _discordant(paired, discordant):
    """``discordant`` checked against ``paired``, or the discordant rows of ``paired``."""
    if discordant is None:
        return discordant_rows(paired)
    if not isinstance(discordant, DiscordantRows) or discordant.paired is not paired:
        raise ValueError(
            "The 'discordant' parameter must be discordant_rows(paired) of the same paired "
            f"data. Got {type(discordant).__name__} of other data instead."
        )
    return discordant


def permutation_sums(paired, n_resamples, seed=0, *, parallel=True, discordant=None):
    """Paired-permutation (approximate randomization) column sums of A and B.

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
    seed : int
    parallel : bool, default=True
    discordant : DiscordantRows or None, default=None
        :func:`discordant_rows` of ``paired``, when the caller already has
        them (None: computed here).

    Returns
    -------
    sums_a, sums_b : ndarray of shape (n_resamples, s)

    Notes
    -----
    With ``D_i = stats_b[i] - stats_a[i]`` and swap indicators
    ``e_i ~ Bernoulli(1/2)``: ``sums_a* = sum_i stats_a[i] + sum_i e_i D_i``
    and ``sums_b* = sum_i stats_b[i] - sum_i e_i D_i`` (Noreen 1989). In the
    compressed path ``sum_{i in c} e_i ~ Binomial(n_c, 1/2)`` per cell.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> paired = prepare_paired([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], [1, 1, 0, 0, 1], acc)
    >>> sums_a, sums_b = permutation_sums(paired, 1000, seed=0)
    >>> bool(np.all(sums_a + sums_b == paired.totals()[0] + paired.totals()[1]))
    True
    """
    return _permutation_sums(paired, n_resamples, seed, parallel, shared=False,
                             discordant=discordant)


def _permutation_sums(paired, n_resamples, seed, parallel, shared, discordant=None):
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16 + 32 * paired.n_statistics)
    seed = check_seed(seed)
    discordant = _discordant(paired, discordant)
    if isinstance(paired.stats_a, SparseRows):
        swapped = _permutation_swapped_sparse(paired, discordant, B, seed, parallel)
        sums_a, sums_b = paired.totals()
        return sums_a + swapped, sums_b - swapped
    return _permutation_sums_dense(paired, discordant, B, seed, parallel, shared=shared)


def _reads_only(metric):
    """Whether ``metric.aggregate`` is a built-in one (never writes into its ``sums``).

    By identity (:func:`sigtest.metrics._registry.is_builtin_aggregate`), not by
    module name: a user aggregate may have ``__module__ = None`` (``exec``).
    """
    return is_builtin_aggregate(metric.aggregate)


def _permutation_sums_dense(paired, discordant, B, seed, parallel, shared):
    """:func:`permutation_sums` of dense rows; ``shared``: memoised read-only sums.

    With ``shared`` (and compressed rows), the two ``(B, s)`` sums are kept in
    the kernel memo under a digest of everything they are made of (the merged
    discordant cells and counts, the seed, ``B``, the discordant columns and
    the totals), so precision, recall and F1 of one pair build them once; the
    values are those of ``shared=False``. The arrays are then read-only.
    """
    D, cols, weights = discordant.D, discordant.cols, discordant.weights
    red = None
    if D.shape[0] and D.shape[1]:
        if weights is not None:
            # cells with equal D rows: one Binomial(sum n_c, 1/2) (sum of independent ones)
            D, counts = discordant.merged

            def kernel():
                return _kernels.permutation_sums_cells(
                    D, counts, resample_keys(seed, B),
                    parallel=_use_threads(parallel, B * D.shape[0] * 16),
                )

            if shared:
                totals = paired.totals()

                def both():
                    red = _MEMO.get_or_compute(
                        _MEMO.key("permutation_cells", (D, counts), seed, B), kernel)
                    out = np.empty((2, B, totals[0].shape[0]))
                    _add_swapped(totals, B, cols, red, out=(out[0], out[1]))
                    return out

                out = _MEMO.get_or_compute(
                    _MEMO.key("permutation_cells_sums", (D, counts, cols, *totals), seed, B),
                    both)
                return out[0], out[1]
            red = _MEMO.get_or_compute(
                _MEMO.key("permutation_cells", (D, counts), seed, B), kernel)
        else:
            red = _kernels.permutation_sums_generic(
                D, resample_keys(seed, B), parallel=_use_threads(parallel, B * D.size)
            )
    return _add_swapped(paired.totals(), B, cols, red)


def _add_swapped(totals, B, cols, red, out=None):
    """``sums_a + swapped, sums_b - swapped`` with ``swapped`` zero outside ``cols``.

    Bit-identical to the full ``(B, s)`` operations on a zero-filled
    ``swapped`` (``x + 0.0`` and ``x - 0.0`` are filled in once per column;
    only the ``cols`` of ``red`` are added), without building ``swapped``.
    ``out``: two ``(B, s)`` arrays to write into (default: new ones).
    """
    sums_a, sums_b = totals
    if out is None:
        out_a = np.empty((B, sums_a.shape[0]))
        out_b = np.empty((B, sums_b.shape[0]))
    else:
        out_a, out_b = out
    if red is not None and cols.shape[0] and int(cols[-1]) - int(cols[0]) + 1 == cols.shape[0]:
        # ``cols`` is sorted and distinct, so here a contiguous range: each
        # entry is written once, through slices (no column scatter)
        lo, hi = int(cols[0]), int(cols[-1]) + 1
        np.add(sums_a[lo:hi], red, out=out_a[:, lo:hi])
        np.subtract(sums_b[lo:hi], red, out=out_b[:, lo:hi])
        for part in (slice(0, lo), slice(hi, None)):
            out_a[:, part] = sums_a[part] + 0.0
            out_b[:, part] = sums_b[part] - 0.0
        return out_a, out_b
    out_a[...] = sums_a + 0.0
    out_b[...] = sums_b - 0.0
    if red is not None:
        out_a[:, cols] = sums_a[cols] + red
        out_b[:, cols] = sums_b[cols] - red
    return out_a, out_b


def _permutation_swapped_sparse(paired, discordant, B, seed, parallel):
    """Swapped sums of sparse cell rows: the draws and sums of the dense path."""
    s = paired.n_statistics
    if discordant.D.shape[0] == 0:
        return np.zeros((B, s))
    D, counts = discordant.merged

    def run():
        return _kernels.permutation_sums_cells_sparse(
            D.indptr, D.indices, D.data, s, counts, resample_keys(seed, B),
            parallel=_use_threads(parallel, B * (D.shape[0] + D.nnz) * 4),
        )

    if B * s > _MEMO_MAX_ENTRIES:
        return run()
    return _MEMO.get_or_compute(
        _MEMO.key("permutation_cells_sparse", (D.indptr, D.indices, D.data, counts), seed, B,
                  s),
        run,
    ).copy()


def monte_carlo_permutation_seconds(paired, n_resamples, *, discordant=None):
    """Estimated serial time of a Monte Carlo permutation run (seconds).

    ``n_resamples x merged discordant cells x 30 ns`` for compressed hard
    labels, ``n_resamples x discordant rows x (columns + 4) x 1.2 ns`` for
    the generic kernel, plus ``n_resamples x s x 5 ns`` for the aggregation;
    the constants were measured on the kernels (see ``docs/which_test.md``).

    Parameters
    ----------
    paired : PairedData
    n_resamples : int
    discordant : DiscordantRows or None, default=None
        :func:`discordant_rows` of ``paired`` (None: computed here).

    Returns
    -------
    float
    """
    _check_paired(paired)
    B = _check_n_resamples(n_resamples)
    discordant = _discordant(paired, discordant)
    agg = B * paired.n_statistics * _COST_AGGREGATE
    if isinstance(paired.stats_a, SparseRows):
        if discordant.D.shape[0] == 0:
            return agg
        return B * discordant.merged[0].shape[0] * _COST_MC_CELL + agg
    D, weights = discordant.D, discordant.weights
    if D.shape[0] == 0 or D.shape[1] == 0:
        return agg
    if weights is not None:
        rows = discordant.merged[0].shape[0]
        return B * rows * _COST_MC_CELL + agg
    return B * D.shape[0] * (D.shape[1] + 4) * _COST_MC_ENTRY + agg


def exact_permutation_sums(paired, max_patterns=2**20, *, parallel=True, max_seconds=None,
                           discordant=None):
    """The exact paired-permutation distribution of the column sums, if small.

    Parameters
    ----------
    paired : PairedData
    max_patterns : int, default=2**20
        Largest number of distinct swap patterns to enumerate. The limit is
        further capped at ``2**25 // s`` so that each returned array stays
        below 256 MiB.
    parallel : bool, default=True
    max_seconds : float or None, default=None
        If given, return None when the estimated serial time of the
        enumeration (``patterns x groups x 30 ns`` or ``lattice
        multiply-adds x 1 ns``, plus ``patterns x s x 5 ns`` to aggregate)
        exceeds it: :class:`~sigtest.PairedPermutation` with ``exact="auto"``
        passes the estimated time of the Monte Carlo run.
    discordant : DiscordantRows or None, default=None
        :func:`discordant_rows` of ``paired`` (None: computed here).

    Returns
    -------
    (sums_a, sums_b, prob) or None
        ``sums_*`` of shape (P, s) and ``prob`` of shape (P,) summing to 1:
        the permutation distribution is ``P(sums = sums_*[p]) = prob[p]``
        (patterns may repeat values). ``None`` when ``P > max_patterns``.
        A p-value is ``sum(prob[|delta*| >= |delta|])`` (with a tolerance).

    Notes
    -----
    Items whose difference rows ``D_i`` are equal are exchangeable, so they
    are grouped; with group sizes ``n_g`` the swapped sum is
    ``sum_g k_g D_g`` with independent ``k_g ~ Binomial(n_g, 1/2)`` and
    ``P = prod_g (n_g + 1)`` patterns (``2**d`` when all ``d`` differing
    items are distinct). When a single integer statistic varies (accuracy,
    micro scores), the distribution is instead computed by convolving the
    scaled binomial pmfs on the integer lattice (one row per reachable
    value), which handles thousands of discordant items. For accuracy this is
    the exact McNemar (sign) test.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> acc = get_metric("accuracy")  # statistics [correct, 1]
    >>> y = np.zeros(10, int); a = y.copy(); b = y.copy()
    >>> a[:4] = 1; b[8:] = 1   # A wrong on 4 items, B wrong on 2 others
    >>> sums_a, sums_b, prob = exact_permutation_sums(prepare_paired(y, a, b, acc))
    >>> delta = 0.8 - 0.6
    >>> d = (sums_b[:, 0] - sums_a[:, 0]) / 10
    >>> round(float(prob[np.abs(d) >= delta - 1e-12].sum()), 4)  # sign test, 6 discordant
    0.6875
    """
    _check_paired(paired)
    _check_positive_int(max_patterns, "max_patterns")
    discordant = _discordant(paired, discordant)
    s = paired.n_statistics
    limit = min(int(max_patterns), _MAX_EXACT_CELLS // max(s, 1))
    budget = np.inf if max_seconds is None else float(max_seconds)
    cells = exact_groups(paired, discordant, limit, budget)
    if cells is None:
        return None
    groups, counts, cols = cells
    sums_a, sums_b = paired.totals()
    if groups.shape[0] == 0:
        return sums_a[None, :].copy(), sums_b[None, :].copy(), np.ones(1)
    from scipy.stats import binom  # lazy: scipy.stats is slow to import

    lattice = _lattice_distribution(groups, counts, limit, binom, budget=budget, s=s)
    if lattice is not None:
        red, prob = lattice
    else:
        if not _enumeration_fits(counts, limit, budget, s):
            return None
        n_patterns = int(np.prod(counts + 1))
        pmf = np.concatenate([binom.pmf(np.arange(c + 1), c, 0.5) for c in counts.tolist()])
        offsets = np.concatenate([[0], np.cumsum(counts + 1)[:-1]]).astype(np.int64)
        red, prob = _kernels_exact.exact_swap_sums(
            np.ascontiguousarray(groups), counts, pmf, offsets,
            parallel=_use_threads(parallel, n_patterns * groups.size),
        )
    swapped = np.zeros((red.shape[0], s))
    swapped[:, cols] = red
    return sums_a + swapped, sums_b - swapped, prob


def exact_groups(paired, discordant, limit, budget):
    """The merged discordant rows the exact enumeration runs over.

    Parameters
    ----------
    paired : PairedData
    discordant : DiscordantRows
        :func:`discordant_rows` of ``paired``.
    limit : int
        Largest number of swap patterns (sparse rows, several varying columns).
    budget : float
        Largest estimated time of the enumeration of several varying
        columns, in seconds (``inf``: no limit).

    Returns
    -------
    (groups, counts, cols) or None
        The distinct difference rows ``groups`` of shape (G, c) restricted to
        the varying columns ``cols``, with their integer multiplicities
        ``counts``; ``G = 0`` when no item is discordant. ``None`` when the
        patterns exceed ``limit`` or ``budget`` (one varying column is left
        to the lattice shortcut, checked by the caller).
    """
    s = paired.n_statistics
    if isinstance(paired.stats_a, SparseRows):
        # the distinct difference rows decide the pattern count: densify only
        # when few enough of them remain to enumerate (2**G <= limit)
        D, weights = discordant.D, discordant.weights
        if D.shape[0]:
            merged = discordant.merged[0]
            if 1 << min(merged.shape[0], 64) > limit:
                return None
        cols = np.unique(D.indices)
        D = np.ascontiguousarray(D.toarray()[:, cols])
    else:
        D, cols, weights = discordant.D, discordant.cols, discordant.weights
    if D.shape[0] == 0 or D.shape[1] == 0:
        return np.zeros((0, D.shape[1])), np.zeros(0, dtype=np.int64), cols
    if D.shape[1] > 1 and not _patterns_within(discordant, D, weights, limit, budget, s):
        return None
    groups, inverse = np.unique(D, axis=0, return_inverse=True)
    w = np.ones(D.shape[0]) if weights is None else weights
    sizes = np.bincount(inverse.ravel(), weights=w, minlength=groups.shape[0])
    counts = np.rint(sizes).astype(np.int64)
    if not np.allclose(sizes, counts):  # pragma: no cover - counts are integers
        raise ValueError("Cell counts must be integers.")
    return groups, counts, cols


def _patterns_within(discordant, D, weights, limit, budget, s):
    """Whether the enumeration of several varying columns fits ``limit`` and ``budget``.

    The checks of the pattern enumeration in :func:`exact_permutation_sums`
    (``prod_g (n_g + 1) <= limit`` and its estimated time within
    ``budget``), made on the merged rows before anything is built: both
    are products and sums over the groups, so the order in which the groups
    are found does not matter.
    """
    if weights is None:
        groups, counts = _merge_rows(D, np.ones(D.shape[0]))
    elif isinstance(discordant.D, SparseRows):  # D: the densified rows
        groups, counts = _merge_rows(D, weights)
    else:
        groups, counts = discordant.merged
    return _enumeration_fits(counts, limit, budget, s)


def _enumeration_fits(counts, limit, budget, s):
    """``prod_g (n_g + 1) <= limit`` and ``patterns x (G x 30 ns + s x 5 ns) <= budget``."""
    n_patterns = 1
    for c in counts.tolist():
        n_patterns *= c + 1
        if n_patterns > limit:
            return False
    seconds = n_patterns * (counts.shape[0] * _COST_PATTERN_GROUP + s * _COST_AGGREGATE)
    return seconds <= budget


def lattice_steps(groups, counts, limit):
    """Whether the lattice shortcut applies: ``(d, work, length)`` or None.

    It applies when a single column varies and its differences ``d_g`` are
    integers (at most ``2**20`` in size), the lattice has at most ``limit``
    cells (``length``) and the convolution at most ``_MAX_LATTICE_WORK``
    multiply-adds (``work``).
    """
    if groups.shape[1] != 1:
        return None
    d = groups[:, 0]
    if not np.all(d == np.rint(d)) or np.any(np.abs(d) > 2**20):
        return None
    d = np.rint(d).astype(np.int64)
    spans = np.abs(d) * counts
    if int(spans.sum()) + 1 > limit:
        return None
    work, length = 0, 1
    for span in spans.tolist():
        work += length * (span + 1)
        length += span
    if work > _MAX_LATTICE_WORK:
        return None
    return d, work, length


def _lattice_distribution(groups, counts, limit, binom, *, budget=np.inf, s=1):
    """Exact swapped-sum distribution when one integer column varies.

    With a single varying statistic taking integer values ``d_g`` (accuracy,
    micro scores: a count of correct items), ``sum_g k_g d_g`` lives on an
    integer lattice and its pmf is the convolution of the scaled
    Binomial(n_g, 1/2) pmfs: ``O(sum_g L_g * n_g |d_g|)`` instead of
    ``prod_g (n_g + 1)`` patterns. Returns ``(values (L, 1), prob (L,))`` or
    None when the shortcut does not apply or would exceed ``limit`` cells or
    ``_MAX_LATTICE_WORK`` multiply-adds.
    """
    steps = lattice_steps(groups, counts, limit)
    if steps is None:
        return None
    d, work, length = steps
    if work * _COST_LATTICE_OP + length * s * _COST_AGGREGATE > budget:
        return None
    low, pmf = lattice_pmf(d, counts, binom)
    values = low + np.flatnonzero(pmf > 0)
    return values[:, None].astype(np.float64), pmf[pmf > 0]


def lattice_pmf(d, counts, binom, q=None):
    r"""The pmf of :math:`S = \sum_g d_g K_g` on its integer lattice, by convolution.

    :math:`K_g \sim \mathrm{Binomial}(n_g, q_g)` independent, ``q``
    :math:`= 1/2` (the permutation distribution) unless given per group (a
    tilted distribution, :mod:`sigtest._engine.resampling.exact_log`).

    Returns
    -------
    low : int
        The lowest value :math:`\sum_g \min(0, d_g n_g)`; ``pmf[i]`` is
        :math:`P(S = \mathrm{low} + i)`.
    pmf : ndarray of shape (L,)
    """
    pmf = np.ones(1)
    low = 0
    qs = [0.5] * len(d) if q is None else list(q)
    for dg, ng, qg in zip(d.tolist(), counts.tolist(), qs):
        k = np.arange(ng + 1)
        low_g = min(0, dg * ng)
        grid = np.zeros(abs(dg) * ng + 1)
        grid[k * dg - low_g] = binom.pmf(k, ng, qg)
        pmf = np.convolve(pmf, grid)
        low += low_g
    return low, pmf
