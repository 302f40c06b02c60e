r"""The Bayesian bootstrap of rank metrics: Dirichlet weights drawn in the kernel.

A posterior draw of the Bayesian bootstrap (:mod:`sigtest._engine.bayesian`)
of a rank metric (ROC AUC, average precision) is a vector of Dirichlet unit
weights, and the metric under it is one pass over each system's order
sorted once (:func:`sigtest._engine.rank_metrics._value`, as the bootstrap's
counts). Drawing the weights in NumPy (``standard_exponential`` on one
sequential stream) and handing them to the kernel cost more than the passes
themselves and kept the draws on one thread; here every draw ``b`` draws its
own weights from its own counter-based stream, inside the kernel:

* the key of draw ``b`` is word ``b`` of
  ``SeedSequence(seed, spawn_key=(7,)).generate_state(B, uint64)`` (the
  Bayesian bootstrap's stream, :data:`sigtest._engine.bayesian.POSTERIOR_STREAM`);
* its ``t``-th unit (``t = 0, 1, ...``) takes the ``t``-th word
  ``x_t = splitmix64(key + (t + 1) * GOLDEN)`` of that stream
  (:mod:`sigtest._engine.rng`) and the standard exponential
  :math:`E_t = -\log\big((\lfloor x_t / 2^{11} \rfloor + 1/2)\, 2^{-53}\big)`
  (the uniform is in ``(0, 1)``: never 0, never 1);
* the units are taken in the order of the rank kernels: the relabelled
  items (positions in A's first sorted component) or the clusters with
  ``groups=``; with ``strata=``, stratum after stratum (in the order of the
  stratum codes), the units of a stratum in the order of their original
  index (item, or cluster), one stream for all;
* unit ``t`` of stratum ``h`` (``n_h`` units) weighs
  :math:`E_t \cdot (n_h / \sum_{t' \in h} E_{t'})`, the exponentials summed in
  draw order: a Dirichlet(1, ..., 1) vector scaled to ``n_h`` (Rubin 1981),
  and an item weighs its unit's weight times its ``sample_weight``.

Draws belong to resamples, never to threads: the scores are bit-identical
for any thread count and any split of the draws (:func:`split_rows`).
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import _GOLDEN, _jit, _splitmix
from sigtest._engine.rank_metrics import _strata_layout, _value
from sigtest._engine.rng import GOLDEN, splitmix64
from sigtest._engine.threads import split_rows

__all__ = ["dirichlet_unit_weights", "rank_dirichlet_scores", "unit_draw_order"]

_U11 = np.uint64(11)
_TWO_M53 = 2.0 ** -53


@_jit
def _rank_dirichlet(keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                    strat_units, strat_starts, direct, unit_of_item, item_weight, plain):
    B = keys.shape[0]
    out = np.empty((B, 2))
    g = np.empty(strat_units.shape[0])
    q = g if plain else np.empty(item_weight.shape[0])
    scratch = np.zeros((3, n_units))
    for b in range(B):
        z = keys[b]
        for h in range(strat_starts.shape[0] - 1):
            lo = strat_starts[h]
            hi = strat_starts[h + 1]
            total = 0.0
            for t in range(lo, hi):
                z = z + _GOLDEN
                e = -np.log((np.float64(_splitmix(z) >> _U11) + 0.5) * _TWO_M53)
                g[t if direct else strat_units[t]] = e
                total += e
            scale = (hi - lo) / total
            for t in range(lo, hi):
                g[t if direct else strat_units[t]] *= scale
        if not plain:
            for i in range(item_weight.shape[0]):
                q[i] = g[unit_of_item[i]] * item_weight[i]
        for s in range(2):
            out[b, s] = _value(kind, items[s], pos[s], ties[s], starts, unit, weighting, q,
                               scratch)
    return out


def unit_draw_order(ranked):
    """The unit (relabelled item, or cluster) of every draw ``t``, and the strata bounds.

    Parameters
    ----------
    ranked : RankedPair

    Returns
    -------
    units : ndarray of shape (n_resampling_units,), int64
        ``units[t]``: the unit (an index of ``ranked.unit_of_item``'s values)
        of the ``t``-th exponential of a draw.
    bounds : ndarray of shape (H + 1,), int64
        Draws ``bounds[h] .. bounds[h + 1] - 1`` form stratum ``h`` (one
        stratum without ``strata=``).
    """
    U = ranked.n_resampling_units
    if ranked.unit_strata is None:
        return np.arange(U, dtype=np.int64), np.array([0, U], dtype=np.int64)
    strat_units, strat_starts, _ = _strata_layout(ranked, None)
    return strat_units, strat_starts


def rank_dirichlet_scores(ranked, keys, parallel=True):
    """Bayesian-bootstrap scores of A and B of a rank metric, the weights drawn per draw.

    Parameters
    ----------
    ranked : RankedPair
    keys : ndarray of shape (B,), uint64
        One key per posterior draw (see the module text).
    parallel : bool, default=True
        Parts of the draws in threads; the result is identical.

    Returns
    -------
    scores : ndarray of shape (B, 2)
        A's score (column 0) and B's under each draw's weights.
    """
    rp = ranked
    units, bounds = unit_draw_order(rp)
    direct = rp.unit_strata is None
    n = rp.n_items
    # items are their own units and weigh 1: the unit weights are the item weights
    plain = (rp.n_resampling_units == n
             and np.array_equal(rp.unit_of_item, np.arange(n))
             and bool(np.all(rp.item_weight == 1.0)))
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    args = (rp.kind, rp.items, rp.positive_weight, rp.ties, rp.starts, rp.unit, rp.weighting,
            rp.n_units, units, bounds, direct, rp.unit_of_item, rp.item_weight, plain)
    return split_rows(lambda s, e: _rank_dirichlet(keys[s:e], *args), keys.shape[0], parallel)


def dirichlet_unit_weights(ranked, keys):
    """The kernel's unit weights in NumPy (its twin, for tests and inspection).

    Parameters
    ----------
    ranked : RankedPair
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    weights : ndarray of shape (B, n_resampling_units)
        Weight of every unit (relabelled item, or cluster) in each draw;
        equal to the kernel's up to the last bits of ``log`` and of the
        order of the sums.
    """
    units, bounds = unit_draw_order(ranked)
    t = np.arange(1, units.shape[0] + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = splitmix64(np.asarray(keys, dtype=np.uint64)[:, None] + t[None, :] * GOLDEN)
    E = -np.log(((words >> _U11).astype(np.float64) + 0.5) * _TWO_M53)
    W = np.empty_like(E)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        W[:, units[lo:hi]] = E[:, lo:hi] * ((hi - lo) / E[:, lo:hi].sum(axis=1, keepdims=True))
    return W
