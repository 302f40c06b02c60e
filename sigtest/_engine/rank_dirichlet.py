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
* its units take standard exponentials one after the other from that
  stream (word ``j`` is ``splitmix64(key + j * GOLDEN)``, ``j = 1, 2, ...``;
  :mod:`sigtest._engine.rng`) by the ziggurat method of Marsaglia & Tsang
  (2000) with 256 layers (:func:`_exponential`): a word's low 8 bits pick a
  layer ``k``, its high 53 bits ``j`` a point ``x = j X_k / 2^53`` of it,
  returned when ``j`` is below the layer's inner threshold (98.9 % of the
  draws: one word, no logarithm); otherwise the base layer returns
  :math:`r - \log U` (the tail beyond ``r``, by memorylessness) and the other
  layers accept ``x`` when a uniform height of the wedge falls under
  :math:`e^{-x}`, else draw again, each uniform ``U = ((w >> 11) + 1/2)
  2^{-53}`` from the next word;
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

References
----------
Marsaglia, G. and Tsang, W. W. (2000). The ziggurat method for generating
random variables. Journal of Statistical Software 5(8), 1-7.
Rubin (1981). The Bayesian bootstrap. The Annals of Statistics 9(1), 130-134.
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine.kernels import _GOLDEN, _jit, _splitmix
from sigtest._engine.rank_metrics import _strata_layout, _value
from sigtest._engine.rng import GOLDEN, splitmix64
from sigtest._engine.threads import split_rows

__all__ = ["dirichlet_unit_weights", "rank_dirichlet_scores", "unit_draw_order"]

_U11 = np.uint64(11)
_LAYER = np.uint64(0xFF)
_TWO_M53 = 2.0 ** -53


def _ziggurat_tables(layers=256, r=7.69711747013104972, v=3.949659822581572e-3):
    r"""Layer widths ``X`` (``X[k] / 2^53``), inner thresholds and heights of the ziggurat.

    ``r`` is the right edge of the base layer and ``v`` the common area of
    the layers (Marsaglia & Tsang 2000, 256 layers of :math:`e^{-x}`):
    ``X[0] = v / e^{-r}`` (the base layer with its tail), ``X[1] = r``,
    ``X[k + 1] = -\log(e^{-X[k]} + v / X[k])`` and ``X[layers] = 0``. Layer
    ``k`` is the box ``[0, X[k]] x [e^{-X[k]}, e^{-X[k + 1]}]``; a point
    ``x < X[k + 1]`` of it lies under the curve.
    """
    X = [v / math.exp(-r), r]
    for k in range(1, layers - 1):
        X.append(-math.log(math.exp(-X[k]) + v / X[k]))
    X.append(0.0)
    width = np.array([x * 2.0 ** -53 for x in X[:-1]])
    inner = np.array([int(2.0 ** 53 * (X[k + 1] / X[k])) for k in range(layers)],
                     dtype=np.uint64)
    height = np.array([math.exp(-x) for x in X])
    height[0] = 0.0  # the base layer starts at 0 (the tail is handled apart)
    return width, inner, height


_Z_WIDTH, _Z_INNER, _Z_HEIGHT = _ziggurat_tables()
_Z_R = 7.69711747013104972


@_jit
def _exponential(z):
    """``(E, z)``: a standard exponential from the stream after counter ``z``, and the counter.

    The ziggurat of :func:`_ziggurat_tables` (see the module text).
    """
    while True:
        z = z + _GOLDEN
        w = _splitmix(z)
        k = np.int64(w & _LAYER)
        j = w >> _U11
        x = np.float64(j) * _Z_WIDTH[k]
        if j < _Z_INNER[k]:
            return x, z
        z = z + _GOLDEN
        u = (np.float64(_splitmix(z) >> _U11) + 0.5) * _TWO_M53
        if k == 0:
            return _Z_R - np.log(u), z
        if _Z_HEIGHT[k] + u * (_Z_HEIGHT[k + 1] - _Z_HEIGHT[k]) < np.exp(-x):
            return x, z


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
                e, z = _exponential(z)
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
    """The kernel's unit weights, draw by draw in Python (its twin, for tests; slow).

    Parameters
    ----------
    ranked : RankedPair
    keys : ndarray of shape (B,), uint64

    Returns
    -------
    weights : ndarray of shape (B, n_resampling_units)
        Weight of every unit (relabelled item, or cluster) in each draw,
        equal to the kernel's up to the last bits of ``exp`` and ``log``.
    """
    units, bounds = unit_draw_order(ranked)
    keys = np.asarray(keys, dtype=np.uint64)
    W = np.empty((keys.shape[0], units.shape[0]))
    mask = (1 << 64) - 1
    golden = int(GOLDEN)

    def word(z):
        with np.errstate(over="ignore"):
            return int(splitmix64(np.uint64(z)))

    for b in range(keys.shape[0]):
        z = int(keys[b])
        E = np.empty(units.shape[0])
        for t in range(units.shape[0]):
            while True:
                z = (z + golden) & mask
                w = word(z)
                k, j = w & 0xFF, w >> 11
                x = j * float(_Z_WIDTH[k])
                if j < int(_Z_INNER[k]):
                    break
                z = (z + golden) & mask
                u = ((word(z) >> 11) + 0.5) * _TWO_M53
                if k == 0:
                    x = _Z_R - math.log(u)
                    break
                if _Z_HEIGHT[k] + u * (_Z_HEIGHT[k + 1] - _Z_HEIGHT[k]) < math.exp(-x):
                    break
            E[t] = x
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            W[b, units[lo:hi]] = E[lo:hi] * ((hi - lo) / E[lo:hi].sum())
    return W
