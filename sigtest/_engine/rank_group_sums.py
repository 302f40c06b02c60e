r"""The rank-metric bootstrap on tie-group sums: eight resamples per pass, integer sums.

Without clusters and sample weights, a bootstrap resample of a rank metric
(:mod:`sigtest._engine.rank_metrics`) weighs every item by its count
:math:`c_i`, and the metric only needs, for each tie group :math:`g` of a
system's sorted order (in descending order of score), the drawn positives
:math:`p_g = \sum_{i \in g^+} c_i` and negatives :math:`n_g = \sum_{i \in
g^-} c_i`:

.. math:: \mathrm{AUC} = \frac{\sum_g n_g \bigl(\sum_{h<g} p_h + p_g/2\bigr)}
          {P\,N_0}, \qquad
          \mathrm{AP} = \frac{1}{P} \sum_{g : p_g > 0} p_g
          \frac{\sum_{h \le g} p_h}{\sum_{h \le g} (p_h + n_h)}

(Hanley & McNeil 1982 with ties one half; scikit-learn's step-wise average
precision). The entries of every tie group are laid out once per system,
positives first (:func:`group_layout`), so that :math:`p_g` and :math:`n_g`
are sums of counts over two ranges of item ids.

The counts of eight consecutive resamples are drawn into eight rows of one
byte per item (:func:`sigtest._engine.rank_lanes._count_lane` on one lane:
the item kernel's random numbers; a lane's draws touch only its own row, a
core's L2 share at :math:`N = 10^5`), then interleaved into one 64-bit word
per item (byte ``r``: resample ``r``). A range sum reads one word per item
for the eight resamples and adds it in two words of four 16-bit fields
(even and odd bytes, SWAR), unpacked every 256 items (:math:`256 \cdot 255
< 2^{16}`); the floating-point work is per group, not per item, on the
eight lanes' numerators, ``P`` and ``N0`` held in tuples (registers, not
arrays: the loop over groups stores nothing and takes no array argument of
an inlined helper, whose reference counting cost more than the sums) and
without branches on the group's classes. Runs of groups that the metric
cannot tell apart are merged once (:func:`_merged_groups`).

The sums are integers, so every :math:`p_g`, :math:`n_g`, :math:`P`,
:math:`N_0` equals the item kernel's floating-point sum exactly, and so
does the AUC numerator (half-integers below :math:`2^{52}`); the per-group
operations are the item kernel's (:func:`sigtest._engine.rank_metrics._value`;
a group without positives adds :math:`+0` to the AP numerator, skipped
here; an absent class adds :math:`+0` to ``P`` or ``N0`` and to the AUC
numerator, all :math:`\ge +0`: unchanged bits), in the same order: the scores are bit-identical to it. A count above
255 wraps its byte: the draw loop records it and the caller recomputes that
resample with the item kernel.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import _ir_inline, _jit
from sigtest._engine.rank_lanes import _combine, _count_lane, _store_unit
from sigtest._engine.threads import split_rows

__all__ = ["LANES", "MAX_ITEMS", "GroupLayout", "group_bootstrap", "group_layout", "prefers_groups"]

#: Resamples per pass: the eight bytes of one word per item.
LANES = 8
_EVEN = np.uint64(0x00FF00FF00FF00FF)
_FIELD = np.uint64(0xFFFF)
_BYTE = np.uint64(0xFF)
_U8 = np.uint64(8)
#: Most items of the group kernel: 64 MiB of counts per thread at most.
MAX_ITEMS = 1 << 22
#: Items added in 16-bit fields before they are unpacked (256 * 255 < 2**16).
_FLUSH = 256


class GroupLayout:
    """Both systems' tie groups with their entries' items, positives first.

    Attributes
    ----------
    items : ndarray of shape (2, L), int64
        Row ``s``: the relabelled items of system ``s``'s entries, each tie
        group's positives (in sorted order) before its negatives.
    bounds : ndarray of shape (2, 2 G_max + 1), int64
        Row ``s``: entry ``2 g`` is where group ``g`` starts, ``2 g + 1``
        where its negatives start, ``2 G_s`` the end of the last group.
    comp_groups : ndarray of shape (2, C + 1), int64
        Component ``c`` of system ``s`` holds groups ``comp_groups[s, c] ..
        comp_groups[s, c + 1] - 1``.
    """

    def __init__(self, items, bounds, comp_groups):
        self.items = items
        self.bounds = bounds
        self.comp_groups = comp_groups


def _merged_groups(gid, positive, comp_groups, kind):
    """Tie groups merged where the metric cannot tell them apart; the new group of each.

    Consecutive groups of one label (all positive or all negative) within a
    component add the same to the AUC as their union (``P`` grows by their
    positives, or the numerator by their negatives times the same ``P``:
    exact integers); for average precision only runs of negatives merge
    (they add nothing but ``N_0``).
    """
    G = int(gid[-1]) + 1 if gid.shape[0] else 0
    n_pos = np.bincount(gid, weights=positive.astype(np.float64), minlength=G)
    size = np.bincount(gid, minlength=G)
    label = np.where(n_pos == size, 1, np.where(n_pos == 0, 0, -1))  # -1: mixed
    if kind != 0:
        label[label == 1] = -1  # AP: positive groups stay apart
    keep = np.ones(G, dtype=np.int64)
    keep[1:] = (label[1:] < 0) | (label[1:] != label[:-1])
    keep[comp_groups[comp_groups < G]] = 1  # a component starts a group
    before = np.concatenate([[0], np.cumsum(keep)])
    return (before[1:] - 1)[gid], before[comp_groups]


def _system_layout(items, pos, row, starts, kind):
    """One system's reordered items, group bounds and component group ranges."""
    C = starts.shape[0] - 1
    first = row[C + 1:row[C]]  # entry index where each tie group starts
    n_entries = int(starts[-1])
    new = np.zeros(n_entries, dtype=np.int64)
    new[first] = 1
    positive = pos > 0.0
    gid, comp_groups = _merged_groups(np.cumsum(new) - 1, positive, row[:C + 1] - (C + 1),
                                      kind)
    order = np.lexsort((~positive, gid))  # stable: positives first within each group
    G = int(gid[-1]) + 1 if n_entries else 0
    size = np.bincount(gid, minlength=G)
    n_pos = np.bincount(gid, weights=positive.astype(np.float64), minlength=G).astype(np.int64)
    bounds = np.empty(2 * G + 1, dtype=np.int64)
    bounds[0:-1:2] = np.cumsum(size) - size
    bounds[1:-1:2] = bounds[0:-1:2] + n_pos
    bounds[-1] = n_entries
    return items[order], bounds, comp_groups


def group_layout(ranked):
    """The :class:`GroupLayout` of a :class:`~sigtest._engine.rank_metrics.RankedPair` (cached).

    Parameters
    ----------
    ranked : RankedPair

    Returns
    -------
    GroupLayout
    """
    cached = getattr(ranked, "_group_layout", None)
    if cached is not None:
        return cached
    rows = [_system_layout(ranked.items[s], ranked.positive_weight[s], ranked.ties[s],
                           ranked.starts, ranked.kind) for s in range(2)]
    width = max(r[1].shape[0] for r in rows)
    bounds = np.zeros((2, width), dtype=np.int64)
    for s, r in enumerate(rows):
        bounds[s, :r[1].shape[0]] = r[1]
    layout = GroupLayout(np.ascontiguousarray(np.stack([r[0] for r in rows])), bounds,
                         np.ascontiguousarray(np.stack([r[2] for r in rows])))
    ranked._group_layout = layout
    return layout


def prefers_groups(n_items):
    """Whether the group kernel is the one-byte count kernel for ``n_items`` items.

    Measured (one thread, CPU seconds, interleaved runs, load ~7 on the
    2-core machine, 4,000 resamples): with the lanes in registers the group
    kernel is 1.6-2.6x faster than the lane kernel (:mod:`rank_lanes`) on
    ROC AUC and 1.0-1.9x on average precision at ``N`` = 2,000 to 30,000,
    with ties (0.02-0.6 groups per item) or without (0.4-0.7 after merging);
    earlier, with its lanes in memory, it lost at ``N = 10^4`` with many
    groups. Hence everywhere up to :data:`MAX_ITEMS` (a thread holds 16
    bytes per item: the eight count rows and the interleaved words).

    Parameters
    ----------
    n_items : int
    """
    return n_items <= MAX_ITEMS


@_ir_inline
def _word_lanes(w):
    """The eight bytes of word ``w`` (lane ``r``: byte ``r``) as a tuple of int64."""
    return (np.int64(w & _BYTE), np.int64((w >> _U8) & _BYTE),
            np.int64((w >> np.uint64(16)) & _BYTE), np.int64((w >> np.uint64(24)) & _BYTE),
            np.int64((w >> np.uint64(32)) & _BYTE), np.int64((w >> np.uint64(40)) & _BYTE),
            np.int64((w >> np.uint64(48)) & _BYTE), np.int64(w >> np.uint64(56)))


@_ir_inline
def _add_fields(acc, even, odd):
    """``acc`` plus the 16-bit fields of ``even`` (lanes 0, 2, 4, 6) and ``odd`` (1, 3, 5, 7)."""
    return (acc[0] + np.int64(even & _FIELD), acc[1] + np.int64(odd & _FIELD),
            acc[2] + np.int64((even >> np.uint64(16)) & _FIELD),
            acc[3] + np.int64((odd >> np.uint64(16)) & _FIELD),
            acc[4] + np.int64((even >> np.uint64(32)) & _FIELD),
            acc[5] + np.int64((odd >> np.uint64(32)) & _FIELD),
            acc[6] + np.int64(even >> np.uint64(48)), acc[7] + np.int64(odd >> np.uint64(48)))


@_ir_inline
def _auc_lane(num, P, N0, p, n):
    """One lane of an AUC tie group: ``(num, P, N0)`` after it."""
    fn = float(n)
    fp = float(p)
    return num + fn * (P + 0.5 * fp), P + fp, N0 + fn


@_ir_inline
def _ap_lane(num, P, N0, p, n):
    """One lane of an AP tie group: ``(num, P, N0)`` after it (no positives: ``num`` kept)."""
    fp = float(p)
    P = P + fp
    N0 = N0 + float(n)
    return (num + fp * P / (P + N0) if p > 0 else num), P, N0


@_ir_inline
def _group_step(kind, gp, gn, num, P, N0):
    """One tie group's update of every lane's ``(num, P, N0)`` tuples (``_value``'s).

    Without branches on the group: an absent class adds +0.0 to sums that
    are +0.0 or positive (unchanged bits), as ``_value`` skips it; an AP
    lane without positives adds nothing to its numerator. The lanes are
    tuples (registers), written out lane by lane.
    """
    if kind == 0:
        l0, l1, l2, l3 = (_auc_lane(num[0], P[0], N0[0], gp[0], gn[0]),
                          _auc_lane(num[1], P[1], N0[1], gp[1], gn[1]),
                          _auc_lane(num[2], P[2], N0[2], gp[2], gn[2]),
                          _auc_lane(num[3], P[3], N0[3], gp[3], gn[3]))
        l4, l5, l6, l7 = (_auc_lane(num[4], P[4], N0[4], gp[4], gn[4]),
                          _auc_lane(num[5], P[5], N0[5], gp[5], gn[5]),
                          _auc_lane(num[6], P[6], N0[6], gp[6], gn[6]),
                          _auc_lane(num[7], P[7], N0[7], gp[7], gn[7]))
    else:
        l0, l1, l2, l3 = (_ap_lane(num[0], P[0], N0[0], gp[0], gn[0]),
                          _ap_lane(num[1], P[1], N0[1], gp[1], gn[1]),
                          _ap_lane(num[2], P[2], N0[2], gp[2], gn[2]),
                          _ap_lane(num[3], P[3], N0[3], gp[3], gn[3]))
        l4, l5, l6, l7 = (_ap_lane(num[4], P[4], N0[4], gp[4], gn[4]),
                          _ap_lane(num[5], P[5], N0[5], gp[5], gn[5]),
                          _ap_lane(num[6], P[6], N0[6], gp[6], gn[6]),
                          _ap_lane(num[7], P[7], N0[7], gp[7], gn[7]))
    return ((l0[0], l1[0], l2[0], l3[0], l4[0], l5[0], l6[0], l7[0]),
            (l0[1], l1[1], l2[1], l3[1], l4[1], l5[1], l6[1], l7[1]),
            (l0[2], l1[2], l2[2], l3[2], l4[2], l5[2], l6[2], l7[2]))


@_jit
def _values_groups(kind, items, bounds, comp_groups, unit, weighting, cnt64, acc, scratch,
                   vals):
    """``rank_metrics._value`` of every lane from the group sums of one system.

    The lanes' numerators, ``P`` and ``N0`` are tuples within a component,
    stored in ``acc`` (3, LANES) for :func:`_store_unit`; ``scratch``
    (3, n_units, LANES) holds the per-unit sums of ``_value``.
    """
    scratch[:, :, :] = 0.0
    zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    none = _word_lanes(np.uint64(0))
    for c in range(comp_groups.shape[0] - 1):
        num, P, N0 = zero, zero, zero
        for g in range(comp_groups[c], comp_groups[c + 1]):
            mid = bounds[2 * g + 1]
            hi = bounds[2 * g + 2]
            gp, gn = none, none
            k = bounds[2 * g]
            while k < hi:  # the positives' entries, then the negatives', at most _FLUSH at once
                stop = min(mid if k < mid else hi, k + _FLUSH)
                even = np.uint64(0)  # lanes 0, 2, 4, 6 in 16-bit fields
                odd = np.uint64(0)  # lanes 1, 3, 5, 7
                for j in range(k, stop):
                    w = cnt64[items[j]]
                    even += w & _EVEN
                    odd += (w >> _U8) & _EVEN
                if k < mid:
                    gp = _add_fields(gp, even, odd)
                else:
                    gn = _add_fields(gn, even, odd)
                k = stop
            num, P, N0 = _group_step(kind, gp, gn, num, P, N0)
        for r in range(LANES):
            acc[0, r] = num[r]
            acc[1, r] = P[r]
            acc[2, r] = N0[r]
        _store_unit(kind, weighting, LANES, acc[0], acc[1], acc[2], scratch, unit[c])
    for r in range(LANES):
        vals[r] = _combine(scratch[:, :, r], weighting)


@_jit
def _interleave(rows, n_count, cnt64):
    """Word ``i`` of ``cnt64``: byte ``r`` is lane ``r``'s count of item ``i`` (rows ``r``)."""
    for i in range(n_count):
        w = np.uint64(0)
        for r in range(LANES):
            w |= np.uint64(rows[r * n_count + i]) << np.uint64(8 * r)
        cnt64[i] = w


@_jit
def _draw_lanes(rows, nb, keys, b0, strat_units, strat_starts, strat_draws, direct, n_count,
                wrapped):
    """Counts of resamples ``b0 .. b0 + nb - 1``, one row of ``n_count`` bytes each."""
    no_units = np.zeros(0, dtype=np.int64)
    rows[:] = 0
    for r in range(nb):
        row = rows[r * n_count:(r + 1) * n_count]
        z = keys[b0 + r]
        high = 0
        for h in range(strat_draws.shape[0]):
            z, wr = _count_lane(row, 1, 0, z, strat_starts[h + 1] - strat_starts[h],
                                strat_draws[h], no_units if direct else strat_units,
                                strat_starts[h])
            high |= wr
        wrapped[b0 + r] = high != 0


@_jit
def _group_block(keys, kind, items, bounds, comp_groups, unit, weighting, n_units, strat_units,
                 strat_starts, strat_draws, direct, n_count):
    B = keys.shape[0]
    out = np.empty((B, 2))
    wrapped = np.zeros(B, dtype=np.bool_)
    # a lane's draws touch its own row (a core's L2 share), the passes one word per item
    rows = np.zeros(n_count * LANES, dtype=np.uint8)
    cnt64 = np.zeros(n_count, dtype=np.uint64)
    acc = np.zeros((3, LANES))
    scratch = np.zeros((3, n_units, LANES))
    vals = np.zeros(LANES)
    for b0 in range(0, B, LANES):
        nb = min(LANES, B - b0)
        _draw_lanes(rows, nb, keys, b0, strat_units, strat_starts, strat_draws, direct,
                    n_count, wrapped)
        _interleave(rows, n_count, cnt64)
        for s in range(2):
            _values_groups(kind, items[s], bounds[s], comp_groups[s], unit, weighting, cnt64,
                           acc, scratch, vals)
            for r in range(nb):
                out[b0 + r, s] = vals[r]
    return out, wrapped


def group_bootstrap(layout, keys, kind, unit, weighting, n_units, strat_units, strat_starts,
                    strat_draws, direct, n_count, *, parallel=False):
    """Scores of A and B on the resamples of ``keys``, eight resamples per pass.

    Parameters
    ----------
    layout : GroupLayout
        :func:`group_layout` of the pair.
    keys : ndarray of shape (B,), uint64
    kind, unit, weighting, n_units
        Of the :class:`~sigtest._engine.rank_metrics.RankedPair`.
    strat_units, strat_starts, strat_draws, direct
        The draws (``rank_metrics._strata_layout``).
    n_count : int
        Items (the resampling units; relabelled).
    parallel : bool, default=False
        Parts of the resamples (whole passes of eight) in threads
        (:mod:`sigtest._engine.threads`); results identical.

    Returns
    -------
    scores : ndarray of shape (B, 2)
    wrapped : ndarray of shape (B,), bool
        Resamples whose one-byte counts wrapped: their scores are wrong and
        must be recomputed with wide counts.
    """
    rest = (kind, layout.items, layout.bounds, layout.comp_groups, unit, weighting, n_units,
            strat_units, strat_starts, strat_draws, direct, np.int64(n_count))
    return split_rows(lambda s, e: _group_block(keys[s:e], *rest), keys.shape[0], parallel,
                      align=LANES)
