r"""Both scores of a rank-metric permutation in one pass over the pooled order.

A permutation of :func:`sigtest._engine.rank_metrics.rank_permutation_scores`
scores two mixed systems over the pooled order of A's and B's entries
(``rank_metrics._pooled``: entry of virtual item :math:`v = i` for A's score
of item :math:`i`, :math:`v = N + i` for B's). With the swap :math:`s_u \in
\{0, 1\}` of unit :math:`u` and the sample weight :math:`w_i`, the first
system weighs the entries by

.. math:: q^{(0)}_i = w_i\,(1 - s_{u(i)}), \qquad q^{(0)}_{N+i} = w_i\,s_{u(i)},

and the second by the same with :math:`s` replaced by :math:`1 - s`, which
is exact on 0/1 (:math:`1 - (1 - s) = s`): :math:`q^{(1)}_i = q^{(0)}_{N+i}`
and :math:`q^{(1)}_{N+i} = q^{(0)}_i`, the first vector with its halves
exchanged, bit for bit.

:func:`value_pair` computes both weights of an entry from its item's
sample weight and unit (laid out once per pooled order, :func:`pass_layout`)
and the permutation's swap bits, read in place from its random words: with
:math:`f = s_u \oplus b` for an entry of side :math:`b` (0: A, 1: B), the
weights are :math:`w_i (1 - f)` and :math:`w_i f`, the same products as the
weight vectors' (the pass reads its arrays in order, and no weight vector
is written). It accumulates the two systems' sums (the weighted
Mann-Whitney numerator with ties one half, or the step-wise average
precision, per tie group; :mod:`sigtest.metrics._ranking`) in separate
variables, each with the operations of
:func:`sigtest._engine.rank_metrics._value` on its own weight vector in the
same order (an average-precision group without weight adds +0.0 instead of
being skipped, as in :mod:`sigtest._engine.rank_lanes`: unchanged bits): the
two scores are bit-identical to two calls of ``_value``
(``tests/engine/test_rank_permutation_pass.py``), from one pass over the
order instead of two. Its indices are unsigned and every tie group's end is
laid out, so that an entry costs no test of a negative index (numba wraps
negative signed indices) and a group no test of the component's end.
"""

from __future__ import annotations

import numpy as np

from sigtest._engine.kernels import _ir_inline, _jit
from sigtest._engine.rank_lanes import _combine

__all__ = ["pass_layout", "value_pair"]

_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U63 = np.uint64(63)


@_ir_inline
def _auc_group(num, P, N0, gp, gn):
    """``(num, P, N0)`` of a ROC AUC after a tie group (its negatives see half its positives)."""
    return num + gn * (P + 0.5 * gp), P + gp, N0 + gn


@_ir_inline
def _ap_group(num, P, N0, gp, gn):
    """``(num, P, N0)`` of an average precision after a tie group, without a branch.

    ``_value`` skips a group without weight; here it adds +0.0 to ``P``,
    ``N0`` and ``num`` (``0 P / (P + N0)``, or ``0 / 1`` while ``P + N0`` is
    0), all +0.0 or positive (the weights are finite and non-negative):
    unchanged bits.
    """
    P = P + gp
    N0 = N0 + gn
    d = P + N0
    return num + gp * P / (d if d > 0.0 else 1.0), P, N0


@_ir_inline
def _weights(code, weight, words, k):
    """Both systems' weights of entry ``k``: ``w (1 - f)`` and ``w f``, ``f`` its unit's
    swap bit xor its side."""
    c = code[k]
    u = c >> _U1
    f = float(((words[u >> _U6] >> (u & _U63)) & _U1) ^ (c & _U1))
    return weight[k] * (1.0 - f), weight[k] * f


@_ir_inline
def _component_pair(kind, code, weight, words, pos, ends, lo, hi, g0, g1):
    """Both systems' ``(num, P, N0)`` of the component on entries ``lo .. hi - 1``.

    A ROC AUC component without ties takes the entry loop of ``_value``;
    otherwise tie group by tie group (groups ``g0 .. g1 - 1``, group ``g``
    ending at ``ends[g]``). The indices are unsigned (numba tests every
    signed index for a negative value to wrap).
    """
    num0, P0, N00, num1, P1, N01 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    k = lo
    if kind == 0 and g1 - g0 == hi - lo:  # AUC without ties
        while k < hi:
            w0, w1 = _weights(code, weight, words, k)
            wp0 = w0 * pos[k]
            wp1 = w1 * pos[k]
            wn0 = w0 - wp0
            wn1 = w1 - wp1
            num0 += wn0 * P0
            num1 += wn1 * P1
            P0 += wp0
            P1 += wp1
            N00 += wn0
            N01 += wn1
            k += _U1
        return (num0, P0, N00), (num1, P1, N01)
    g = g0
    while g < g1:
        gp0, gn0, gp1, gn1 = 0.0, 0.0, 0.0, 0.0
        while k < ends[g]:
            w0, w1 = _weights(code, weight, words, k)
            wp0 = w0 * pos[k]
            wp1 = w1 * pos[k]
            gp0 += wp0
            gp1 += wp1
            gn0 += w0 - wp0
            gn1 += w1 - wp1
            k += _U1
        if kind == 0:
            num0, P0, N00 = _auc_group(num0, P0, N00, gp0, gn0)
            num1, P1, N01 = _auc_group(num1, P1, N01, gp1, gn1)
        else:
            num0, P0, N00 = _ap_group(num0, P0, N00, gp0, gn0)
            num1, P1, N01 = _ap_group(num1, P1, N01, gp1, gn1)
        g += _U1
    return (num0, P0, N00), (num1, P1, N01)


@_ir_inline
def _store(kind, weighting, sums, scratch, t, u):
    """Add one component's value (AUC ``num / (P N0)``, nan without both classes; AP
    ``num / P``, 0 without positives) to unit ``u``'s sums of system ``t``."""
    num, P, N0 = sums
    if kind == 0:
        value = num / (P * N0) if P * N0 > 0.0 else np.nan
    else:
        value = num / P if P > 0.0 else 0.0
    scratch[t, 0, u] += value
    scratch[t, 1, u] += 1.0
    scratch[t, 2, u] = P if weighting == 1 else P + N0


@_jit
def value_pair(kind, code, weight, words, pos, ends, groups, starts, unit, weighting, scratch):
    """Both mixed systems' metric values of one permutation, in one pass.

    Parameters
    ----------
    kind : int
        0 ROC AUC, 1 average precision.
    code, weight, ends, groups, starts : ndarray
        The pooled order's layout (:func:`pass_layout`).
    words : ndarray of shape (ceil(n_resampling_units / 64),), uint64
        The swap bits: unit ``u`` is swapped when bit ``u % 64`` of
        ``words[u // 64]`` is 1.
    pos : ndarray of shape (L,)
        The pooled entries' positive flags (0/1 floats).
    unit : ndarray of shape (n_components,), int64
        Averaging unit of every component.
    weighting : int
        0: units averaged equally; 1: weighted by positives; else by size.
    scratch : ndarray of shape (2, 3, n_units)
        Overwritten: each system's per-unit sums, counts and weights.

    Returns
    -------
    value0, value1 : float
        The system with B's scores on the swapped units, and the reverse;
        equal, bit for bit, to ``_value`` on each one's weight vector.
    """
    scratch[:, :, :] = 0.0
    for c in range(starts.shape[0] - 1):
        s0, s1 = _component_pair(kind, code, weight, words, pos, ends, starts[c],
                                 starts[c + 1], groups[c], groups[c + 1])
        _store(kind, weighting, s0, scratch, 0, unit[c])
        _store(kind, weighting, s1, scratch, 1, unit[c])
    return _combine(scratch[0], weighting), _combine(scratch[1], weighting)


def pass_layout(items, ties, starts, unit_of_item, item_weight):
    """The pooled order laid out for :func:`value_pair`, unsigned.

    Parameters
    ----------
    items, ties, starts : ndarray
        The pooled order (``rank_metrics._pooled``): virtual items (``i``
        A's entry of item ``i``, ``N + i`` B's), tie table, component starts.
    unit_of_item : ndarray of shape (N,), int64
    item_weight : ndarray of shape (N,)

    Returns
    -------
    code : ndarray of shape (L,), uint64
        ``2 u + b``: unit ``u`` of the entry's item, side ``b`` (1: B).
    weight : ndarray of shape (L,)
        The sample weight of the entry's item.
    ends : ndarray of shape (G,), uint64
        The entry after the last of every tie group (the next group's first,
        or ``L``).
    groups : ndarray of shape (C + 1,), uint64
        Component ``c`` holds groups ``groups[c] .. groups[c + 1] - 1`` (each
        non-empty component starts a group).
    starts : ndarray of shape (C + 1,), uint64
    """
    n = item_weight.shape[0]
    item = items % n
    code = 2 * unit_of_item[item] + (items >= n)
    C = starts.shape[0] - 1
    first = ties[C + 1:]
    ends = np.append(first[1:], starts[-1])
    u64 = np.uint64
    return (np.ascontiguousarray(code, dtype=u64), np.ascontiguousarray(item_weight[item]),
            ends.astype(u64), (ties[:C + 1] - (C + 1)).astype(u64), starts.astype(u64))
