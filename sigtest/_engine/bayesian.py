r"""The Bayesian bootstrap (Rubin 1981) of paired data: Dirichlet-weighted sums.

The Bayesian bootstrap replaces the multinomial counts of the ordinary
bootstrap by continuous Dirichlet weights: with ``N`` exchangeable units
(items, or clusters with ``groups=``) and statistics rows :math:`s_i`, one
posterior draw of the column sums is

.. math:: S^* = N \sum_{i=1}^{N} \pi_i\, s_i, \qquad
          \pi \sim \operatorname{Dirichlet}(1, \dots, 1),

the posterior of the sums under a multinomial model on the observed support
with the non-informative (Haldane) limit of the Dirichlet prior (Rubin 1981;
Gelman et al. 2013, ch. 23). The weights :math:`N\pi` have mean 1, so the
sums have the observed totals as their mean, and the metric of a draw is
``aggregate(S*)`` as for any resample.

**Compressed rows.** A Dirichlet(1, ..., 1) vector is a vector of
independent ``Exp(1)`` variables divided by their sum, and a sum of ``n``
independent ``Exp(1)`` variables is ``Gamma(n, 1)``. A row that stands for
``n_c`` identical units (a cell ``(true, A, B)`` of hard labels, or ``n_c``
identical cluster rows merged) therefore receives the total weight

.. math:: N\,\frac{G_c}{\sum_{c'} G_{c'}}, \qquad G_c \sim \operatorname{Gamma}(n_c, 1)
          \text{ independent},

which is exactly the distribution of the summed Dirichlet weights of its
``n_c`` units (the aggregation property of the Dirichlet). The cost is
``O(B R)`` for ``R`` rows, independent of ``N``.

**Clusters** (``groups=``): the rows are clusters, so the weights are a
Dirichlet over clusters (the Bayesian cluster bootstrap), scaled to the
number of clusters ``G``. **Strata** (``strata=``): an independent Dirichlet
within each stratum, scaled to the stratum's number of units ``n_h``, so
every draw keeps the strata in their observed proportions (the Bayesian
analogue of R's ``boot(strata=)``).

**Random numbers.** ``numpy.random.default_rng(SeedSequence(seed,
spawn_key=(7,)))`` draws the Gamma variables resample after resample, row
after row, in chunks of resamples bounded in memory. Rank metrics (ROC AUC,
average precision, with numba) draw their exponentials in the kernel instead,
one counter-based stream per draw keyed from the same ``SeedSequence``
(:mod:`sigtest._engine.rank_dirichlet`). The draws depend only on
``seed`` and the rows, never on threads, so the results are identical for
any ``n_jobs``.

Metrics without statistics (the slow path) call ``score_func(y_true, y_pred,
sample_weight=w)`` once per draw and system, with the item weights ``w``
(the unit's Dirichlet weight times any ``sample_weight``); a metric whose
function takes no ``sample_weight`` cannot be Bayesian-bootstrapped
(``ValueError``).

References
----------
Rubin (1981). The Bayesian bootstrap. The Annals of Statistics 9(1), 130-134.
Gelman, Carlin, Stern, Dunson, Vehtari, Rubin (2013). Bayesian Data Analysis,
3rd ed., ch. 23.
"""

from __future__ import annotations

import inspect

import numpy as np

from sigtest._engine.checks import check_allocation
from sigtest._engine.kernels_exact import weighted_sums
from sigtest._engine.paired import resample_params_of
from sigtest._engine.rank_dirichlet import rank_dirichlet_scores
from sigtest._engine.rank_metrics import ranked_pair, uses_ranking
from sigtest._engine.checks import check_n_resamples as _check_n_resamples
from sigtest._engine.rng import check_seed

__all__ = ["dirichlet_scores", "dirichlet_sums", "posterior_deltas", "posterior_keys",
           "posterior_rng"]

#: ``spawn_key`` of the Bayesian bootstrap's stream (other schemes use other keys).
POSTERIOR_STREAM = 7
#: Weights drawn per chunk of resamples (``chunk * rows``; 2**21 float64 = 16 MiB).
_CHUNK_ELEMENTS = 1 << 21


def posterior_keys(seed, n_resamples):
    """One uint64 key per posterior draw of a rank metric (its counter-based stream).

    Parameters
    ----------
    seed : int
        Non-negative integer seed.
    n_resamples : int

    Returns
    -------
    ndarray of shape (n_resamples,), uint64
        ``SeedSequence(seed, spawn_key=(7,)).generate_state(n_resamples, uint64)``
        (see :mod:`sigtest._engine.rank_dirichlet`).
    """
    return np.random.SeedSequence(check_seed(seed), spawn_key=(POSTERIOR_STREAM,)).generate_state(
        int(n_resamples), dtype=np.uint64)


def posterior_rng(seed):
    """The generator of the Bayesian bootstrap for an integer ``seed``.

    Parameters
    ----------
    seed : int
        Non-negative integer seed (as the base class passes to ``evaluate``).

    Returns
    -------
    numpy.random.Generator
        ``default_rng(SeedSequence(seed, spawn_key=(7,)))``.
    """
    return np.random.default_rng(
        np.random.SeedSequence(check_seed(seed), spawn_key=(POSTERIOR_STREAM,)))


class _DirichletDesign:
    """Row multiplicities and strata: draws the scaled Dirichlet weights of the rows.

    Parameters
    ----------
    shapes : ndarray of shape (R,)
        Number of units each row stands for (1, a cell count, or the number
        of merged identical clusters).
    strata : ndarray of shape (R,) or None
        Stratum code of every row.
    """

    def __init__(self, shapes, strata):
        self.shapes = np.ascontiguousarray(shapes, dtype=np.float64)
        self.rows = self.shapes.shape[0]
        self.unit_shapes = bool(np.all(self.shapes == 1.0))
        if strata is None:
            self.strata = None
            self.sizes = np.array([self.shapes.sum()])
        else:
            codes, strata = np.unique(np.asarray(strata), return_inverse=True)
            self.strata = strata.ravel().astype(np.int64)
            H = codes.shape[0]
            self.sizes = np.bincount(self.strata, weights=self.shapes, minlength=H)
            self.indicator = np.zeros((self.rows, H))
            self.indicator[np.arange(self.rows), self.strata] = 1.0

    def chunk(self):
        """Resamples per chunk: at most ``_CHUNK_ELEMENTS`` weights at a time."""
        return max(1, _CHUNK_ELEMENTS // max(1, self.rows))

    def weights(self, rng, size):
        """``(size, R)`` row weights: Gamma(shape) normalised within each stratum.

        Row ``r`` of stratum ``h`` gets ``n_h G_r / sum_{r' in h} G_r'``.
        """
        if self.unit_shapes:  # Gamma(1, 1) = Exp(1): the faster sampler, same law
            G = rng.standard_exponential((size, self.rows))
        else:
            G = rng.standard_gamma(self.shapes, size=(size, self.rows))
        if self.strata is None:
            G *= self.sizes[0] / G.sum(axis=1, keepdims=True)
        else:
            totals = G @ self.indicator  # (size, H)
            G *= (self.sizes / totals)[:, self.strata]
        return G


def dirichlet_sums(paired, n_resamples, seed=0):
    r"""Bayesian-bootstrap draws of the column sums of the statistics of A and B.

    Parameters
    ----------
    paired : PairedData
        Prepared paired data with sufficient statistics (items, cells or
        clusters as rows; ``counts`` their multiplicities; ``row_strata``).
    n_resamples : int
        Number of posterior draws ``B``.
    seed : int, default=0
        Integer seed (see :func:`posterior_rng`).

    Returns
    -------
    sums_a, sums_b : ndarray of shape (B, s)
        ``W @ stats_a`` and ``W @ stats_b`` with the same Dirichlet row
        weights ``W`` (paired): ``paired.values(sums_b) -
        paired.values(sums_a)`` are draws from the posterior of the
        difference.

    Raises
    ------
    ValueError
        For a metric without statistics (use :func:`dirichlet_scores`) or a
        bad ``n_resamples``.

    Notes
    -----
    Row ``r`` standing for :math:`n_r` units (``counts``, else 1) of stratum
    :math:`h` (one stratum without ``strata=``) gets the weight
    :math:`n_h G_r / \sum_{r' \in h} G_{r'}` with independent
    :math:`G_r \sim \operatorname{Gamma}(n_r, 1)` and :math:`n_h` the units of
    the stratum: the summed Dirichlet(1, ..., 1) weights of its units,
    exactly in distribution. Memory is bounded by drawing at most
    ``2**21`` weights at a time.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest._engine import prepare_paired
    >>> from sigtest._engine.bayesian import dirichlet_sums
    >>> paired = prepare_paired([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], [0, 1, 1, 1, 1], "accuracy")
    >>> sums_a, sums_b = dirichlet_sums(paired, 4, seed=0)
    >>> sums_a.shape, np.allclose(sums_a[:, 1], 5.0)  # the weights sum to N = 5
    ((4, 2), True)
    """
    if not paired.has_statistics:
        raise ValueError(f"Metric {paired.metric.name!r} has no sufficient statistics; "
                         "use dirichlet_scores.")
    B = _check_n_resamples(n_resamples)
    check_allocation(B, 16 * paired.n_statistics)
    stats_a, stats_b = paired.stats_a, paired.stats_b
    R, s = stats_a.shape
    shapes = paired.counts if paired.counts is not None else np.ones(R)
    design = _DirichletDesign(shapes, paired.row_strata)
    stats = np.ascontiguousarray(np.hstack([stats_a, stats_b]))
    rng = posterior_rng(seed)
    out = np.empty((B, 2 * s))
    step = design.chunk()
    for lo in range(0, B, step):
        hi = min(B, lo + step)
        # summed in row order, not by BLAS, whose thread count changes the last bit
        out[lo:hi] = weighted_sums(design.weights(rng, hi - lo), stats)
    return np.ascontiguousarray(out[:, :s]), np.ascontiguousarray(out[:, s:])


def _accepts_sample_weight(func):
    """Whether ``func`` takes a ``sample_weight`` keyword (``True`` when unknown)."""
    accepts = getattr(func, "accepts", None)
    if accepts is not None:
        return bool(accepts("sample_weight"))
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # no readable signature: let the call decide
        return True
    return any(p.kind == p.VAR_KEYWORD for p in params) or any(
        p.name == "sample_weight" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in params)


def _slow_units(paired):
    """``(unit of each item or None, number of units, stratum of each unit or None)``."""
    groups, strata = paired.item_groups, paired.item_strata
    if groups is None:
        return None, int(paired.n_samples), strata
    G = int(paired.n_groups)
    unit_strata = None
    if strata is not None:
        unit_strata = np.empty(G, dtype=np.int64)
        unit_strata[groups] = strata
    return groups, G, unit_strata


def dirichlet_scores(paired, n_resamples, seed=0):
    r"""Bayesian-bootstrap scores of A and B for a metric without statistics (slow path).

    Each draw gives every unit (item, or cluster with ``groups=``) a
    Dirichlet(1, ..., 1) weight scaled to the number of units (within each
    stratum with ``strata=``, as :func:`dirichlet_sums`) and calls
    ``score_func(y_true, y_pred, sample_weight=w)`` for A and for B with the
    item weights ``w`` (the weight of the item's unit, times any
    ``sample_weight``). A rank metric (ROC AUC, average precision) with
    numba enabled is sorted once and draws its Dirichlet weights inside the
    kernel, from one counter-based stream per draw
    (:mod:`sigtest._engine.rank_dirichlet`, ``O(N)`` per draw, in threads):
    the same law, other random numbers than NumPy's Gamma draws of the
    other metrics (and of rank metrics with ``SIGTEST_DISABLE_NUMBA=1``).

    Parameters
    ----------
    paired : PairedData
        Prepared paired data of the slow path (``paired.data`` holds the
        raw arrays).
    n_resamples : int
        Number of posterior draws ``B``.
    seed : int, default=0
        Integer seed (see :func:`posterior_rng`).

    Returns
    -------
    scores : ndarray of shape (B, 2)
        Weighted scores of A (column 0) and B (column 1), same weights per row.

    Raises
    ------
    ValueError
        If the metric's function does not accept ``sample_weight`` (the
        Bayesian bootstrap is a weighted score), or ``paired`` holds no raw
        data.
    """
    B = _check_n_resamples(n_resamples)
    func = paired.metric.score_func
    if not _accepts_sample_weight(func):
        raise ValueError(
            f"The Bayesian bootstrap needs a weighted score: the function of metric "
            f"{paired.metric.name!r} ({getattr(func, '__name__', func)!r}) does not accept "
            "'sample_weight'. Register the metric with sufficient statistics, or with a "
            "score function taking sample_weight."
        )
    if paired.data is None:
        raise ValueError("The slow path needs the raw data; this PairedData holds only "
                         "statistics.")
    y, a, b, w = paired.data
    # an unset zero_division stays unset: the function may not take the keyword
    params = resample_params_of(paired.params, fill_unset=False)
    unit_of_item, n_units, unit_strata = _slow_units(paired)
    if uses_ranking(paired):  # rank metrics: sorted once, weights drawn in the kernel
        return rank_dirichlet_scores(ranked_pair(paired), posterior_keys(seed, B))
    design = _DirichletDesign(np.ones(n_units), unit_strata)
    rng = posterior_rng(seed)
    out = np.empty((B, 2))
    step = min(design.chunk(), 256)
    for lo in range(0, B, step):
        hi = min(B, lo + step)
        weights = design.weights(rng, hi - lo)
        if unit_of_item is not None:
            weights = weights[:, unit_of_item]
        if w is not None:
            weights = weights * w
        for k in range(hi - lo):
            out[lo + k, 0] = float(func(y, a, sample_weight=weights[k], **params))
            out[lo + k, 1] = float(func(y, b, sample_weight=weights[k], **params))
    return out


def posterior_deltas(paired, n_resamples, seed=0):
    """Posterior draws of the raw difference ``score_b - score_a`` (Bayesian bootstrap).

    Parameters
    ----------
    paired : PairedData
        Prepared paired data (fast path with statistics, else the slow path).
    n_resamples : int
        Number of posterior draws ``B``.
    seed : int, default=0
        Integer seed (see :func:`posterior_rng`).

    Returns
    -------
    deltas : ndarray of shape (B,)
        ``values(sums_b) - values(sums_a)`` of :func:`dirichlet_sums`, or the
        difference of the weighted scores of :func:`dirichlet_scores`; not
        oriented (see :meth:`PairedData.orient`), non-finite draws kept.
    """
    if paired.has_statistics:
        sums_a, sums_b = dirichlet_sums(paired, n_resamples, seed)
        return paired.deltas(sums_a, sums_b)
    scores = dirichlet_scores(paired, n_resamples, seed)
    return scores[:, 1] - scores[:, 0]
