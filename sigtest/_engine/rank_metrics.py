r"""Resampling of rank metrics (ROC AUC, average precision) without sorting again.

A metric with a ``ranking`` (:class:`~sigtest.metrics.Metric`) gives each
system's scores sorted once (:class:`~sigtest.metrics._ranking.RankedScores`).
A resample is then only a vector of item weights :math:`q` over that fixed
order, and the metric is one pass over it (the formulas of
:mod:`sigtest.metrics._ranking`: the weighted Mann-Whitney sum with ties
counted one half, or the step-wise average precision over the tie groups):

* **bootstrap**: :math:`q_i = w_i\,c_{u(i)}`, the counts :math:`c` of the
  drawn units (items, or clusters with ``groups=``; within strata with
  ``strata=``) times the sample weights :math:`w`; ``O(N)`` per resample
  instead of the slow path's ``O(N log N)`` sort in ``score_func``;
* **Bayesian bootstrap**: :math:`q_i = w_i\,\pi_{u(i)}` with Dirichlet
  weights, given (:func:`rank_weighted_scores`) or drawn in the kernel
  (:mod:`sigtest._engine.rank_dirichlet`);
* **permutation**: A and B swapped per unit. The mixed system's order is a
  merge of two pre-sorted subsequences (the items kept from A's order and
  those taken from B's); that merge is done once for all permutations: A's
  and B's scores are pooled and sorted once, and a permutation is the weight
  vector that keeps, for every item, its entry of the system it takes (the
  other entry weighs 0). ``O(N)`` per permutation, no sort, no merge.

The kernels run on parts of the resamples in threads (nogil kernels,
:func:`sigtest._engine.threads.split_rows`, as the generic kernels); every
resample draws from its own counter-based SplitMix64 stream
(:mod:`sigtest._engine.rng`), so results are bit-identical for any thread
count. Item ids are relabelled once to the positions of A's first sorted
component, so that A's pass reads the weights sequentially.

The unstratified bootstrap draws its units (clusters, or items in the
relabelled order) as the generic kernel does: Lemire's multiply-shift with
rejection on the 32-bit halves of the words of resample ``b``'s stream
(``kernels_counts._count_row``, twin ``kernels_numpy._indices``); with
strata, stratum after stratum from the same stream, each stratum's draws
from a fresh word. Without clusters and sample weights the counts themselves
are the item weights: they are counted in one-byte rows of up to eight
resamples side by side and every pass serves all of them
(:mod:`sigtest._engine.rank_lanes`, bit-identical to the item kernel, which
takes the other cases and any resample whose byte counts wrap, with
``uint16`` counts when no count can reach 65535); up to
``rank_group_sums.MAX_ITEMS`` items (the default path), the counts of eight
resamples are summed per tie group in integers instead and the
floating-point work is per group (:mod:`sigtest._engine.rank_group_sums`,
bit-identical too; faster at every measured size, ties or not).

:func:`auc_placements` gives the structural components of DeLong et al.
(1988) (placement values) under item weights, the basis of the
:class:`~sigtest.DeLong` test and of the closed-form jackknife of a binary
AUC (:func:`auc_jackknife`, ``O(N)`` after the sort).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import NUMBA_ENABLED, _GOLDEN, _jit, _splitmix
from sigtest._engine.kernels_counts import _count_row
from sigtest._engine.rank_group_sums import group_bootstrap, group_layout, prefers_groups
from sigtest._engine.rank_lanes import _combine, lane_bootstrap, lanes_for
from sigtest._engine.rank_permutation_pass import pass_layout, value_pair
from sigtest._engine.rng import resample_keys
from sigtest._engine.sample_size import resolve_sample_size, stratified_sample_size
from sigtest._engine.threads import split_rows
from sigtest._engine.checks import check_n_resamples

__all__ = [
    "RankedPair",
    "uses_ranking",
    "auc_cluster_jackknife",
    "auc_jackknife",
    "auc_placements",
    "rank_bootstrap_scores",
    "rank_permutation_scores",
    "rank_weighted_scores",
    "ranked_pair",
]

_KIND_CODES = {"roc_auc": 0, "average_precision": 1}
# at most this many resamples run serially (threads start only beyond)
_BLOCK = 64
# the lane kernel's one-byte counts: at most this many draws per unit on average
# (beyond, counts above 255 would be common; the item kernel counts wide)
_LANE_MAX_DRAWS = 8
# the plain bootstrap sums the counts per tie group where that is faster
# (rank_group_sums.prefers_groups); False: always the lane kernel (the path before)
_GROUP_SUMS = True


class RankedPair:
    """Both systems' :class:`RankedScores` of a pair, stacked for the kernels.

    Attributes
    ----------
    kind : int
        0 ROC AUC, 1 average precision.
    values, items, positive : ndarray of shape (2, L)
        Row 0 system A, row 1 system B; ``items`` relabelled (see module
        docstring).
    positive_weight : ndarray of shape (2, L)
        ``positive`` as 0.0/1.0 (the kernels multiply by it).
    relabel : ndarray of shape (n_items,), int64
        The relabelled id of every original item.
    ties : ndarray of shape (2, C + 1 + G_max), int64
        The tie groups of each system (:func:`_tie_table`).
    starts, unit : ndarray
        Components (shared by A and B: they depend on ``y_true`` only).
    n_units, weighting : int
        Averaging units of the components and their weighting.
    n_items : int
    unit_of_item : ndarray of shape (n_items,), int64
        Resampling unit of every (relabelled) item: itself (units are then
        relabelled items), or its cluster.
    unit_ids : ndarray of shape (n_resampling_units,), int64
        The unit of every draw index (an original item index, or a
        cluster): ``relabel`` for items, the identity for clusters.
    n_resampling_units : int
    item_weight : ndarray of shape (n_items,)
        ``sample_weight`` of every relabelled item (ones without).
    unit_strata : ndarray or None
        Stratum of every resampling unit.
    """

    def __init__(self, ra, rb, unit_of_item, n_res_units, item_weight, unit_strata):
        if not (ra.kind == rb.kind and np.array_equal(ra.starts, rb.starts)
                and np.array_equal(ra.unit, rb.unit) and ra.weighting == rb.weighting):
            raise ValueError("The ranked scores of A and B have different structures.")
        n = ra.n_items
        first = ra.items[ra.starts[0]:ra.starts[1]]
        relabel = np.empty(n, dtype=np.int64)
        if first.shape[0] == n:
            relabel[first] = np.arange(n, dtype=np.int64)
        else:
            relabel[:] = np.arange(n, dtype=np.int64)
        self.kind = _KIND_CODES[ra.kind]
        self.values = np.ascontiguousarray(np.stack([ra.values, rb.values]))
        self.items = np.ascontiguousarray(np.stack([relabel[ra.items], relabel[rb.items]]))
        self.positive = np.ascontiguousarray(np.stack([ra.positive, rb.positive]))
        self.positive_weight = self.positive.astype(np.float64)
        self.ties = _tie_table([ra.tie_starts(), rb.tie_starts()], ra.starts)
        self.starts = np.ascontiguousarray(ra.starts, dtype=np.int64)
        self.unit = np.ascontiguousarray(ra.unit, dtype=np.int64)
        self.n_units = int(ra.n_units)
        self.weighting = int(ra.weighting)
        self.n_items = n
        self.relabel = relabel
        if unit_of_item is None:  # the items are the units, in relabelled space
            self.unit_of_item = np.arange(n, dtype=np.int64)
            self.unit_ids = relabel
        else:
            self.unit_of_item = np.empty(n, dtype=np.int64)
            self.unit_of_item[relabel] = unit_of_item
            self.unit_ids = np.arange(n_res_units, dtype=np.int64)
        self.n_resampling_units = int(n_res_units)
        w = np.empty(n)
        w[relabel] = item_weight
        self.item_weight = w
        self.unit_strata = unit_strata
        self._group_layout = None  # rank_group_sums.group_layout, built on first use

    def value(self, system, q):
        """The metric of ``system`` (0: A, 1: B) under relabelled item weights ``q``."""
        scratch = np.zeros((3, self.n_units))
        return _value(self.kind, self.items[system], self.positive_weight[system],
                      self.ties[system], self.starts, self.unit, self.weighting,
                      np.ascontiguousarray(q, dtype=np.float64), scratch)


def _tie_table(new_groups, starts):
    """The tie groups of both systems, packed for the kernels.

    Row ``s``: entries ``0 .. C`` give, for component ``c``, the position in
    the row where its group starts begin (``row[c] .. row[c + 1]``); after
    them come the entry indices at which each tie group starts. A component
    whose groups number its entries has no ties.
    """
    C = starts.shape[0] - 1
    rows = []
    for new in new_groups:
        first = np.flatnonzero(new).astype(np.int64)
        bounds = np.searchsorted(first, starts).astype(np.int64) + (C + 1)
        rows.append(np.concatenate([bounds, first]))
    width = max(r.shape[0] for r in rows)
    table = np.zeros((2, width), dtype=np.int64)
    for k, r in enumerate(rows):
        table[k, :r.shape[0]] = r
    return table


def uses_ranking(paired):
    """Whether ``paired`` takes the rank-metric kernels: a metric with a ``ranking``.

    False without statistics' raw data or with numba disabled
    (``SIGTEST_DISABLE_NUMBA=1``): the slow path (``score_func`` per
    resample) is then the path, and the reference the kernels are tested
    against.
    """
    return (NUMBA_ENABLED and getattr(paired.metric, "ranking", None) is not None
            and not paired.has_statistics and paired.data is not None)


def ranked_pair(paired):
    """The :class:`RankedPair` of prepared data whose metric has a ``ranking``.

    Parameters
    ----------
    paired : PairedData
        Slow-path data (``paired.data`` holds ``(y_true, a, b, w)``). The
        rankings the input path kept (``paired.rankings``) are used as they
        are; otherwise each system is sorted here.

    Returns
    -------
    RankedPair
    """
    y, a, b, w = paired.data
    if getattr(paired, "rankings", None) is not None:  # sorted once by the input path
        ra, rb = paired.rankings
    else:
        params = dict(paired.params)
        ra = paired.metric.ranking(y, a, **params)
        rb = paired.metric.ranking(y, b, **params)
    n = ra.n_items
    groups, strata = paired.item_groups, paired.item_strata
    if groups is None:
        unit_of_item = None
        n_units = n
        unit_strata = None if strata is None else np.asarray(strata, dtype=np.int64)
    else:
        unit_of_item = np.asarray(groups, dtype=np.int64)
        n_units = int(paired.n_groups)
        unit_strata = None
        if strata is not None:
            unit_strata = np.empty(n_units, dtype=np.int64)
            unit_strata[unit_of_item] = strata
    weight = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    return RankedPair(ra, rb, unit_of_item, n_units, weight, unit_strata)


# --------------------------------------------------------------------------
# one evaluation over the sorted order
# --------------------------------------------------------------------------
@_jit
def _value(kind, items, pos, ties, starts, unit, weighting, q, scratch):
    """Metric value under item weights ``q``; ``scratch`` (3, n_units) is overwritten.

    One pass over each component's sorted entries, tie group by tie group
    (``ties``: one row of :func:`_tie_table`); a component without ties takes
    a loop without group bookkeeping. The positive flags are 0/1 floats, so
    that a label costs a multiplication, not a mispredicted branch.
    """
    n_units = scratch.shape[1]
    for u in range(n_units):
        scratch[0, u] = 0.0
        scratch[1, u] = 0.0
        scratch[2, u] = 0.0
    for c in range(starts.shape[0] - 1):
        lo = starts[c]
        hi = starts[c + 1]
        g0 = ties[c]
        g1 = ties[c + 1]
        P = 0.0
        N0 = 0.0
        num = 0.0
        if kind == 0 and g1 - g0 == hi - lo:  # AUC without ties
            for k in range(lo, hi):
                w = float(q[items[k]])
                wp = w * pos[k]
                wn = w - wp
                num += wn * P
                P += wp
                N0 += wn
        else:
            for g in range(g0, g1):
                end = ties[g + 1] if g + 1 < g1 else hi
                gp = 0.0
                gn = 0.0
                for k in range(ties[g], end):
                    w = float(q[items[k]])
                    wp = w * pos[k]
                    gp += wp
                    gn += w - wp
                if kind == 0:
                    num += gn * (P + 0.5 * gp)
                    P += gp
                    N0 += gn
                elif gp + gn > 0.0:
                    P += gp
                    N0 += gn
                    num += gp * P / (P + N0)
        if kind == 0:
            value = num / (P * N0) if P * N0 > 0.0 else np.nan
        else:
            value = num / P if P > 0.0 else 0.0
        u = unit[c]
        scratch[0, u] += value
        scratch[1, u] += 1.0
        scratch[2, u] = P if weighting == 1 else P + N0
    return _combine(scratch, weighting)


# --------------------------------------------------------------------------
# bootstrap: unit counts -> item weights -> both systems
# --------------------------------------------------------------------------
_NO_UNITS = np.zeros(0, dtype=np.int64)  # direct draws: the index is the unit


@_jit
def _boot_block(lo_b, hi_b, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                strat_units, strat_starts, strat_draws, direct, unit_of_item, item_weight,
                plain, counts_like, out):
    n_items = item_weight.shape[0]
    # plain: the counts are the item weights (uint16 when no count can overflow it)
    cnt = np.zeros_like(counts_like)
    q = np.zeros(0 if plain else n_items)
    scratch = np.zeros((3, n_units))
    for b in range(lo_b, hi_b):
        cnt[:] = 0
        z = keys[b]
        for h in range(strat_draws.shape[0]):
            z = _count_row(cnt, z, strat_starts[h + 1] - strat_starts[h], strat_draws[h],
                           _NO_UNITS if direct else strat_units, strat_starts[h])
        if plain:
            for s in range(2):
                out[b, s] = _value(kind, items[s], pos[s], ties[s], starts, unit, weighting,
                                   cnt, scratch)
        else:
            for i in range(n_items):
                q[i] = cnt[unit_of_item[i]] * item_weight[i]
            for s in range(2):
                out[b, s] = _value(kind, items[s], pos[s], ties[s], starts, unit, weighting,
                                   q, scratch)


@_jit
def _rank_bootstrap(keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                    strat_units, strat_starts, strat_draws, direct, unit_of_item, item_weight,
                    plain, counts_like):
    B = keys.shape[0]
    out = np.empty((B, 2))
    _boot_block(0, B, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                strat_units, strat_starts, strat_draws, direct, unit_of_item, item_weight,
                plain, counts_like, out)
    return out


def _strata_layout(rp, sample_size):
    """Units grouped by stratum, and the draws per stratum (the one sample-size rule)."""
    U = rp.n_resampling_units
    if rp.unit_strata is None:
        m = resolve_sample_size(sample_size, U)
        return (np.ascontiguousarray(rp.unit_ids), np.array([0, U], dtype=np.int64),
                np.array([m], dtype=np.int64))
    fraction = stratified_sample_size(sample_size, U)
    strata = rp.unit_strata
    sizes = np.bincount(strata)
    sizes = sizes[sizes > 0]
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    draws = np.array([resolve_sample_size(fraction, int(s)) for s in sizes], dtype=np.int64)
    return (np.ascontiguousarray(rp.unit_ids[np.argsort(strata, kind="stable")]), starts,
            draws)


def rank_bootstrap_scores(paired, n_resamples, sample_size=None, seed=0, *, parallel=True,
                          ranked=None):
    """Bootstrap scores of A and B of a rank metric, ``O(N)`` per resample.

    Parameters
    ----------
    paired : PairedData
        Data of a metric with a ``ranking`` (slow-path data).
    n_resamples : int
    sample_size : int, float or None
        Units per resample (see
        :func:`~sigtest._engine.sample_size.resolve_sample_size`; a
        fraction within each stratum).
    seed : int
    parallel : bool, default=True
        Parts of the resamples in threads (:mod:`sigtest._engine.threads`);
        results identical.
    ranked : RankedPair, optional
        Reused when the caller has it.

    Returns
    -------
    scores : ndarray of shape (n_resamples, 2)
        A's score (column 0) and B's on each resample (``nan`` where the
        metric is undefined, e.g. a resample with one class for the AUC).
    """
    B = check_n_resamples(n_resamples)
    rp = ranked_pair(paired) if ranked is None else ranked
    strat_units, strat_starts, strat_draws = _strata_layout(rp, sample_size)
    # units are the (relabelled) items and no sample weights: the counts are the weights
    plain = paired.item_groups is None and paired.sample_weight is None
    # no strata: draw the units directly (relabelled items or clusters)
    direct = rp.unit_strata is None
    small = plain and int(strat_draws.max()) < np.iinfo(np.uint16).max
    counts_like = np.zeros(rp.n_resampling_units, dtype=np.uint16 if small else np.float64)
    keys = resample_keys(seed, B)
    args = (rp.kind, rp.items, rp.positive_weight, rp.ties, rp.starts, rp.unit,
            rp.weighting, rp.n_units, strat_units, strat_starts, strat_draws, direct)
    parallel = parallel and B > _BLOCK
    if plain and int(strat_draws.sum()) <= _LANE_MAX_DRAWS * rp.n_resampling_units:
        # counts of a few resamples side by side; a resample whose one-byte
        # counts wrapped is recomputed by the item kernel (same draws, wide counts)
        scores, wrapped = _counted_bootstrap(rp, keys, args, parallel)
        if wrapped.any():
            scores[wrapped] = _item_bootstrap(keys[wrapped], args, rp, plain, counts_like,
                                              False)
        return scores
    return _item_bootstrap(keys, args, rp, plain, counts_like, parallel)


def _counted_bootstrap(rp, keys, args, parallel):
    """Scores and wrapped flags of the one-byte count kernels: tie-group sums, or lanes."""
    n = rp.n_resampling_units
    if _GROUP_SUMS and prefers_groups(n):
        kind, rest = args[0], args[5:]  # the group kernel reads the layout's orders
        return group_bootstrap(group_layout(rp), keys, kind, *rest, n, parallel=parallel)
    return lane_bootstrap(lanes_for(n), keys, *args, n, parallel=parallel)


def _item_bootstrap(keys, args, rp, plain, counts_like, parallel):
    """The item kernel: one resample's weights at a time (any weights, clusters)."""
    rest = (*args, rp.unit_of_item, rp.item_weight, plain, counts_like)
    return split_rows(lambda s, e: _rank_bootstrap(keys[s:e], *rest), keys.shape[0], parallel)


# --------------------------------------------------------------------------
# given weights (Bayesian bootstrap)
# --------------------------------------------------------------------------
@_jit
def _rank_weighted(W, kind, items, pos, ties, starts, unit, weighting, n_units, unit_of_item,
                   item_weight):
    R = W.shape[0]
    out = np.empty((R, 2))
    n_items = item_weight.shape[0]
    q = np.empty(n_items)
    scratch = np.zeros((3, n_units))
    for r in range(R):
        for i in range(n_items):
            q[i] = W[r, unit_of_item[i]] * item_weight[i]
        for s in range(2):
            out[r, s] = _value(kind, items[s], pos[s], ties[s], starts, unit, weighting,
                               q, scratch)
    return out


def rank_weighted_scores(ranked, unit_weights, *, parallel=True):
    """Scores of A and B of a rank metric under given unit weights (Bayesian bootstrap).

    Parameters
    ----------
    ranked : RankedPair
    unit_weights : ndarray of shape (R, n_resampling_units)
        Weight of every resampling unit (item in its original order, or
        cluster) in each of ``R`` draws; the item weight is the unit's
        weight times the item's ``sample_weight``.
    parallel : bool, default=True
        Parts of the draws in threads (:mod:`sigtest._engine.threads`);
        results identical.

    Returns
    -------
    scores : ndarray of shape (R, 2)
    """
    rp = ranked
    # columns by draw index -> columns by unit (relabelled items, or clusters)
    W = np.ascontiguousarray(np.asarray(unit_weights, dtype=np.float64)[
        :, np.argsort(rp.unit_ids)])
    args = (rp.kind, rp.items, rp.positive_weight, rp.ties, rp.starts, rp.unit, rp.weighting,
            rp.n_units, rp.unit_of_item, rp.item_weight)
    R = W.shape[0]
    return split_rows(lambda s, e: _rank_weighted(W[s:e], *args), R, parallel and R > _BLOCK)


# --------------------------------------------------------------------------
# permutation: one pooled order of both systems' scores, weights switch entries
# --------------------------------------------------------------------------
def _pooled(rp):
    """Both systems' entries of every component in one order sorted once.

    Entry ``e`` of A's order stands for the virtual item ``i`` (its
    relabelled item), entry of B's order for ``N + i``. A mixed system that
    scores item ``i`` by B where it is swapped is the pooled order with
    weights ``w_i (1 - s_i)`` on ``i`` and ``w_i s_i`` on ``N + i``: its own
    order is the pooled one with the other system's entries at weight 0,
    and its tie groups are the pooled groups of equal value (entries of
    weight 0 add nothing). The merge of the two pre-sorted orders is done
    once, here; a permutation is then a weight vector.

    Returns ``(items, positive_weight, ties, starts)`` (as :func:`_value` reads them).
    """
    if getattr(rp, "_pooled_cache", None) is not None:
        return rp._pooled_cache
    n = rp.n_items
    values, items, pos, starts = [], [], [], [0]
    for c in range(rp.starts.shape[0] - 1):
        lo, hi = rp.starts[c], rp.starts[c + 1]
        v = np.concatenate([rp.values[0, lo:hi], rp.values[1, lo:hi]])
        it = np.concatenate([rp.items[0, lo:hi], rp.items[1, lo:hi] + n])
        p = np.concatenate([rp.positive_weight[0, lo:hi], rp.positive_weight[1, lo:hi]])
        order = np.argsort(-v, kind="stable")
        values.append(v[order])
        items.append(it[order])
        pos.append(p[order])
        starts.append(starts[-1] + order.shape[0])
    values = np.concatenate(values)
    starts = np.asarray(starts, dtype=np.int64)
    new = np.ones(values.shape[0], dtype=np.uint8)
    new[1:] = values[1:] != values[:-1]
    first = starts[:-1]
    new[first[first < values.shape[0]]] = 1
    ties = _tie_table([new], starts)[0]
    rp._pooled_cache = (np.ascontiguousarray(np.concatenate(items)),
                        np.ascontiguousarray(np.concatenate(pos)), ties, starts)
    return rp._pooled_cache


@_jit
def _perm_block(lo_b, hi_b, keys, kind, code, weight, pos, ends, groups, starts, unit,
                weighting, n_units, n_res_units, out):
    words = np.empty((n_res_units + 63) // 64, dtype=np.uint64)
    scratch = np.zeros((2, 3, n_units))
    for b in range(lo_b, hi_b):
        z = keys[b]
        for j in range(words.shape[0]):
            z = z + _GOLDEN
            words[j] = _splitmix(z)
        # column 0: B's score where swapped; column 1: the reverse (one pass for both)
        out[b, 0], out[b, 1] = value_pair(kind, code, weight, words, pos, ends, groups, starts,
                                          unit, weighting, scratch)


@_jit
def _rank_permutation(keys, kind, code, weight, pos, ends, groups, starts, unit, weighting,
                      n_units, n_res_units):
    out = np.empty((keys.shape[0], 2))
    _perm_block(0, keys.shape[0], keys, kind, code, weight, pos, ends, groups, starts, unit,
                weighting, n_units, n_res_units, out)
    return out


def rank_permutation_scores(paired, n_resamples, seed=0, *, parallel=True, ranked=None):
    """Permutation scores of a rank metric: A and B swapped per unit, ``O(N)`` each.

    Unit ``u`` (an item in the relabelled order, or a cluster with
    ``groups=``) is swapped when bit ``u % 64`` of word ``u // 64 + 1`` of
    resample ``b``'s stream is 1. The first system of a resample takes B's
    score on the swapped units and A's elsewhere; the second the reverse.
    Both are weight vectors over the pooled order of A's and B's scores
    sorted once (:func:`_pooled`): no merge or sort per permutation, and one
    pass scores both (:mod:`sigtest._engine.rank_permutation_pass`).

    Returns
    -------
    scores : ndarray of shape (n_resamples, 2)
    """
    B = check_n_resamples(n_resamples)
    rp = ranked_pair(paired) if ranked is None else ranked
    items, pos, ties, starts = _pooled(rp)
    code, weight, ends, groups, starts = pass_layout(items, ties, starts, rp.unit_of_item,
                                                     rp.item_weight)
    keys = resample_keys(seed, B)
    args = (rp.kind, code, weight, pos, ends, groups, starts, rp.unit, rp.weighting,
            rp.n_units, rp.n_resampling_units)
    return split_rows(lambda s, e: _rank_permutation(keys[s:e], *args), B,
                      parallel and B > _BLOCK)


# --------------------------------------------------------------------------
# structural components (DeLong) and the closed-form jackknife
# --------------------------------------------------------------------------
def auc_placements(ranked, weights=None):
    r"""Placement values of a binary AUC under item weights: DeLong's structural components.

    For a positive item :math:`i` and a negative :math:`j`, with
    :math:`\psi(s_i, s_j) = 1` if :math:`s_i > s_j`, :math:`1/2` if equal,
    0 otherwise, and negative (positive) weight :math:`N_0` (:math:`P`):

    .. math:: V_{10}(i) = \frac{1}{N_0} \sum_j w_j\, \psi(s_i, s_j), \qquad
              V_{01}(j) = \frac{1}{P} \sum_i w_i\, \psi(s_i, s_j),

    so that :math:`\mathrm{AUC} = \sum_i w_i V_{10}(i) / P = \sum_j w_j
    V_{01}(j) / N_0`. Computed from the one sort by tie-group sums, which
    equals Sun & Xu's (2014) midrank formula :math:`V_{10}(i) = (T_Z(i) -
    T_X(i)) / N_0` (midrank in the pooled sample minus midrank among the
    positives) in ``O(N)`` after the sort.

    Parameters
    ----------
    ranked : RankedScores
        A binary ROC AUC ranking (one component).
    weights : ndarray of shape (n_items,), optional

    Returns
    -------
    v10 : ndarray of shape (n_items,)
        ``V10`` of the positive items, ``nan`` for negatives.
    v01 : ndarray of shape (n_items,)
        ``V01`` of the negative items, ``nan`` for positives.
    """
    if ranked.n_components != 1:
        raise ValueError("Placement values are defined for a binary AUC (one component).")
    n = ranked.n_items
    q = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    w = q[ranked.items]
    pos = ranked.positive.astype(bool)
    gid = np.cumsum(ranked.tie_starts()) - 1
    G = int(gid[-1]) + 1
    gp = np.bincount(gid, weights=np.where(pos, w, 0.0), minlength=G)
    gn = np.bincount(gid, weights=np.where(pos, 0.0, w), minlength=G)
    P, N0 = gp.sum(), gn.sum()
    # descending order: negatives below group g = N0 - (negatives up to and incl. g)
    neg_below = N0 - np.cumsum(gn)
    pos_above = np.cumsum(gp) - gp
    v10 = np.full(n, np.nan)
    v01 = np.full(n, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        v10_sorted = (neg_below + 0.5 * gn)[gid] / N0
        v01_sorted = (pos_above + 0.5 * gp)[gid] / P
    v10[ranked.items[pos]] = v10_sorted[pos]
    v01[ranked.items[~pos]] = v01_sorted[~pos]
    return v10, v01


def auc_jackknife(ranked, weights=None):
    r"""Leave-one-out AUCs of a binary AUC in closed form, ``O(N)`` after the sort.

    With the placements of :func:`auc_placements` and the numerator
    :math:`T = \sum_i w_i N_0 V_{10}(i)`, leaving out a positive item
    :math:`i` gives :math:`(T - w_i N_0 V_{10}(i)) / ((P - w_i) N_0)` and a
    negative item :math:`j` gives :math:`(T - w_j P V_{01}(j)) / (P (N_0 -
    w_j))` (``nan`` when a class empties). scipy's ``jackknife`` recomputes
    the statistic ``N`` times (``O(N^2 log N)``; scipy/scipy#21882).

    Returns
    -------
    theta : ndarray of shape (n_items,)
    """
    n = ranked.n_items
    q = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    v10, v01 = auc_placements(ranked, q)
    is_pos = ~np.isnan(v10)
    P = float(q[is_pos].sum())
    N0 = float(q[~is_pos].sum())
    T = float(np.dot(q[is_pos], v10[is_pos])) * N0
    theta = np.empty(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta[is_pos] = (T - q[is_pos] * N0 * v10[is_pos]) / ((P - q[is_pos]) * N0)
        theta[~is_pos] = (T - q[~is_pos] * P * v01[~is_pos]) / (P * (N0 - q[~is_pos]))
    theta[~np.isfinite(theta)] = np.nan
    return theta


def auc_cluster_jackknife(ranked, groups, n_groups, weights=None):
    r"""Delete-one-cluster AUCs of a binary AUC in closed form, ``O(N log N)`` in all.

    Leaving out cluster :math:`g` removes its positives' and negatives'
    placement sums from the numerator :math:`T` and adds back the pairs
    inside the cluster, which were subtracted twice:

    .. math:: \theta_{(g)} = \frac{T - \sum_{i \in g^+} w_i N_0 V_{10}(i)
              - \sum_{j \in g^-} w_j P V_{01}(j)
              + \sum_{i \in g^+, j \in g^-} w_i w_j \psi(s_i, s_j)}
              {(P - P_g)(N_0 - N_{0,g})},

    the last sum from one sort of the items by (cluster, score) with the
    tie-group sums of :func:`auc_placements` inside each cluster (``nan``
    when a class empties).

    Parameters
    ----------
    ranked : RankedScores
        A binary ROC AUC ranking.
    groups : ndarray of shape (n_items,)
        Cluster code ``0 .. n_groups - 1`` of every item.
    n_groups : int
    weights : ndarray of shape (n_items,), optional

    Returns
    -------
    theta : ndarray of shape (n_groups,)
    """
    n = ranked.n_items
    q = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.int64)
    v10, v01 = auc_placements(ranked, q)
    is_pos = ~np.isnan(v10)
    P = float(q[is_pos].sum())
    N0 = float(q[~is_pos].sum())
    T = float(np.dot(q[is_pos], v10[is_pos])) * N0
    out_pos = np.bincount(groups[is_pos], weights=q[is_pos] * N0 * v10[is_pos],
                          minlength=n_groups)
    out_neg = np.bincount(groups[~is_pos], weights=q[~is_pos] * P * v01[~is_pos],
                          minlength=n_groups)
    Pg = np.bincount(groups[is_pos], weights=q[is_pos], minlength=n_groups)
    Ng = np.bincount(groups[~is_pos], weights=q[~is_pos], minlength=n_groups)
    # pairs inside each cluster: items sorted by (cluster, score descending)
    score = np.empty(n)
    score[ranked.items] = ranked.values
    order = np.lexsort((-score, groups))
    g, s, w = groups[order], score[order], q[order]
    pos = is_pos[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    tid = np.cumsum(new) - 1
    gp = np.bincount(tid, weights=np.where(pos, w, 0.0))
    gn = np.bincount(tid, weights=np.where(pos, 0.0, w))
    tg = g[new]  # cluster of every tie group
    # negatives of the same cluster strictly below each group: cluster total - cumulative
    cum_n = np.cumsum(gn)
    cluster_end = np.bincount(tg, weights=gn, minlength=n_groups)
    first_group = np.searchsorted(tg, np.arange(n_groups))
    before = np.concatenate([[0.0], cum_n])[first_group]  # cumulative before the cluster
    below = (before[tg] + cluster_end[tg]) - cum_n
    inside = np.bincount(tg, weights=gp * (below + 0.5 * gn), minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = (T - out_pos - out_neg + inside) / ((P - Pg) * (N0 - Ng))
    theta[~np.isfinite(theta)] = np.nan
    return theta
