r"""Leave-one-out values of the rank metrics in closed form, from the one sort.

The jackknife of BCa's acceleration needs the metric with each resampling
unit left out. A rank metric (:class:`~sigtest.metrics._ranking.RankedScores`)
is a combination of binary *components* (one per class for one-vs-rest, two
per pair of classes for one-vs-one; one for a binary task), each a function
of its tie groups' positive and negative weights. Leaving out one unit
changes, in every component that holds it, a few group weights; the value of
the component without it follows in ``O(1)`` per item from sums over the
groups (a prefix and a suffix), instead of a pass over the whole order per
left-out unit (``O(N)`` each, ``O(N^2)`` in all:
:func:`sigtest._engine.rank_metrics.rank_weighted_scores`, the path these
values are tested against).

* ROC AUC, one component: the Mann-Whitney numerator loses the unit's pairs
  (the placement values of :func:`sigtest._engine.rank_metrics.auc_placements`,
  :func:`_auc_items`); a cluster loses its items' pairs, and the pairs inside
  it, subtracted twice, come back (:func:`_auc_clusters`).
* Average precision, one component: :func:`_ap_items` (items; clusters keep
  the one-pass-per-cluster path).

The components' leave-one-out values are combined exactly as the metric
combines its components (:func:`ranked_jackknife`): the mean of a unit's
components (a class, or a pair of classes), then the plain mean over units
or the mean weighted by the units' positive weight (one-vs-rest
``weighted``) or item weight (one-vs-one ``weighted``), those weights
recomputed without the left-out unit. A component that does not hold an
item (one-vs-one: an item of another class) keeps its value and weight.
Cost ``O(L)`` after the sort for ``L`` sorted entries (``N K`` one-vs-rest,
``2 (K - 1) N`` one-vs-one) plus ``O(N)`` per component to combine:
``O(N K)`` one-vs-rest, ``O(N K^2)`` one-vs-one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AP_MAX_DISTINCT_WEIGHTS", "ranked_jackknife"]

#: Average precision under item weights takes the closed form up to this many
#: distinct weights (two suffix sums per weight), else ``None`` (the caller's
#: one pass per left-out item).
AP_MAX_DISTINCT_WEIGHTS = 64


def ranked_jackknife(ranked, weights=None, groups=None, n_groups=None):
    r"""Leave-one-unit-out values of one system's rank metric in closed form, or ``None``.

    Parameters
    ----------
    ranked : RankedScores
        The system's scores sorted once (binary, one-vs-rest ``macro`` or
        ``weighted``, one-vs-one ``macro`` or ``weighted``).
    weights : ndarray of shape (n_items,), optional
        ``sample_weight`` (default 1). Leaving a unit out sets its items'
        weights to 0, as the one-pass path does.
    groups : ndarray of shape (n_items,), optional
        Cluster code ``0 .. n_groups - 1`` of every item: delete-one-cluster
        values (ROC AUC only).
    n_groups : int, optional

    Returns
    -------
    theta : ndarray of shape (n_items,) or (n_groups,), or None
        ``None`` where no closed form is implemented: average precision
        with ``groups``, average precision ``micro`` (items repeated in one
        component), average precision under more than
        :data:`AP_MAX_DISTINCT_WEIGHTS` distinct weights.

    Notes
    -----
    Per averaging unit :math:`u` (a class, or a pair) with components
    :math:`c \in u` and left-out unit :math:`i`, the unit's value is
    :math:`v_u^{(-i)} = \frac{1}{|u|} \sum_{c \in u} v_c^{(-i)}` and the
    metric :math:`\frac{1}{U} \sum_u v_u^{(-i)}` (``macro``) or
    :math:`\sum_u s_u^{(-i)} v_u^{(-i)} / \sum_u s_u^{(-i)}` (``weighted``;
    :math:`s_u` the class's positive weight for one-vs-rest, the pair's
    item weight for one-vs-one), ``nan`` where the weights sum to 0,
    summed unit after unit as the one-pass kernel sums them.
    """
    n = ranked.n_items
    q = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    starts = ranked.starts
    if np.any(np.diff(starts) > n):  # micro: every (item, class) entry in one component
        return None
    is_ap = ranked.kind == "average_precision"
    if is_ap and (groups is not None or np.unique(q).shape[0] > AP_MAX_DISTINCT_WEIGHTS):
        return None
    new = ranked.tie_starts()
    clusters = None if groups is None else (np.asarray(groups, dtype=np.int64), int(n_groups))
    R = n if clusters is None else clusters[1]
    total = np.zeros(R)
    size = np.zeros(R)
    unit = ranked.unit
    for u in range(ranked.n_units):
        comps = np.flatnonzero(unit == u)
        acc = np.zeros(R)
        for c in comps:
            lo, hi = starts[c], starts[c + 1]
            parts = (ranked.values[lo:hi], ranked.items[lo:hi],
                     ranked.positive[lo:hi].astype(np.float64), q, new[lo:hi])
            value, kept_pos, kept_all = _component(is_ap, parts, n, clusters)
            acc += value
        v = acc / comps.shape[0]
        if ranked.weighting == 0:
            total += v
            size += 1.0
        else:  # the last component's weights (both components of a pair hold the same items)
            s = kept_pos if ranked.weighting == 1 else kept_all
            total += s * v
            size += s
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = total / size
    theta[~(size > 0.0)] = np.nan
    return theta


def _component(is_ap, parts, n, clusters):
    """One component's ``(value, positive weight, weight)`` per left-out unit."""
    if clusters is not None:
        return _auc_clusters(*parts, *clusters)
    if is_ap:
        theta = _ap_items(*parts)
    else:
        theta = _auc_items(*parts)
    _, items, pos, q, _ = parts
    w = q[items]
    value = np.full(n, _full_value(is_ap, parts))
    value[items] = theta
    kept_pos = np.full(n, float(np.dot(w, pos)))
    kept_all = np.full(n, float(w.sum()))
    kept_pos[items] -= w * pos
    kept_all[items] -= w
    return value, kept_pos, kept_all


def _full_value(is_ap, parts):
    """The component's value with every item (as the one-pass kernel computes it)."""
    gp, gn = _group_weights(*parts[1:])
    P, N0 = gp.sum(), gn.sum()
    if is_ap:
        live = gp + gn > 0.0
        TP, FP = np.cumsum(gp), np.cumsum(gn)
        num = np.sum(np.where(live, gp * TP / np.where(live, TP + FP, 1.0), 0.0))
        return num / P if P > 0.0 else 0.0
    num = np.sum(gn * (_exclusive_cumsum(gp) + 0.5 * gp))
    return num / (P * N0) if P * N0 > 0.0 else np.nan


def _group_weights(items, pos, q, new):
    """Positive and negative weight of every tie group of one component."""
    w = q[items]
    gid = np.cumsum(new, dtype=np.int64) - 1
    wp = w * pos
    G = int(gid[-1]) + 1 if gid.shape[0] else 0
    return (np.bincount(gid, weights=wp, minlength=G),
            np.bincount(gid, weights=w - wp, minlength=G))


def _exclusive_cumsum(x):
    """``out[g] = sum(x[:g])``."""
    out = np.zeros_like(x)
    np.cumsum(x[:-1], out=out[1:])
    return out


def _exclusive_suffix(x):
    """``out[g] = sum(x[g + 1:])``, summed from the end."""
    out = np.zeros_like(x)
    if x.shape[0] > 1:
        out[:-1] = np.cumsum(x[:0:-1])[::-1]
    return out


def _placement_sums(items, pos, q, new):
    """The sums both AUC closed forms start from, per sorted entry and tie group.

    Returns ``(gid, wp, wn, P, N0, above, below, T)``: each entry's tie
    group, its positive and negative weight, the classes' weights, each
    group's positive weight above plus half its own, its negative weight
    below plus half its own, and the numerator ``T`` of the AUC.
    """
    w = q[items]
    gid = np.cumsum(new, dtype=np.int64) - 1
    gp, gn = _group_weights(items, pos, q, new)
    P, N0 = gp.sum(), gn.sum()
    above = _exclusive_cumsum(gp) + 0.5 * gp
    below = _exclusive_suffix(gn) + 0.5 * gn
    T = np.sum(gn * above)
    wp = w * pos
    return gid, wp, w - wp, P, N0, above, below, T


def _auc_items(values, items, pos, q, new):
    r"""Leave-one-out ROC AUCs of one component, one per sorted entry.

    With tie groups :math:`g` (positive and negative weights :math:`p_g,
    n_g`), the numerator :math:`T = \sum_g n_g (\sum_{h < g} p_h + p_g / 2)`
    loses, with positive entry :math:`i` of weight :math:`w_i` in group
    :math:`g`, its pairs :math:`w_i (\sum_{h > g} n_h + n_g / 2)` (its
    placement value times :math:`N_0`), and with a negative :math:`j`
    :math:`w_j (\sum_{h < g} p_h + p_g / 2)`:

    .. math:: \theta_{(i)} = \frac{T - w_i (\sum_{h > g} n_h + n_g / 2)}
              {(P - w_i) N_0}, \qquad
              \theta_{(j)} = \frac{T - w_j (\sum_{h < g} p_h + p_g / 2)}
              {P (N_0 - w_j)},

    ``nan`` when a class empties.
    """
    gid, wp, wn, P, N0, above, below, T = _placement_sums(items, pos, q, new)
    lost = wp * below[gid] + wn * above[gid]
    den = (P - wp) * (N0 - wn)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = (T - lost) / den
    theta[~(den > 0.0)] = np.nan
    return theta


def _ap_items(values, items, pos, q, new):
    r"""Leave-one-out average precisions of one component, one per sorted entry.

    Scikit-learn's step-wise AP over the tie groups :math:`g` (descending
    score; positive and negative weights :math:`p_g, n_g`; a group of zero
    weight is no threshold), with cumulative weights :math:`TP_g = \sum_{h
    \le g} p_h`, :math:`C_g = \sum_{h \le g} (p_h + n_h)` and :math:`P =
    TP_G`:

    .. math:: \mathrm{AP} = \frac{1}{P} \sum_{g:\, p_g + n_g > 0}
              \frac{p_g\, TP_g}{C_g}.

    Leaving out item :math:`j` of group :math:`k`, weight :math:`w` and
    label :math:`y \in \{0, 1\}` leaves the groups before :math:`k`
    unchanged, lowers group :math:`k`'s weights to :math:`p_k - y w` and
    :math:`p_k + n_k - w`, and shifts the cumulative weights of every later
    group by the same :math:`(y w, w)`:

    .. math:: \mathrm{AP}_{(j)} = \frac{1}{P - y w} \Big(A_k
              + \frac{(p_k - y w)(TP_k - y w)}{C_k - w}
              + S_{w,y}(k)\Big), \qquad
              A_k = \sum_{h < k} \frac{p_h\, TP_h}{C_h}, \quad
              S_{w,y}(k) = \sum_{h > k} \frac{p_h\, (TP_h - y w)}{C_h - w},

    the middle term 0 when the group empties (:math:`p_k + n_k = w`), and
    the value 0 when no positive weight is left (as scikit-learn and the
    one-pass path). :math:`A_k` is a prefix sum; :math:`S_{w,y}` a suffix
    sum over the groups, one per distinct pair of weight and label (for
    :math:`h > k`, :math:`C_h - w \ge p_h + n_h > 0`): ``O(G)`` each,
    ``O(1)`` per item. Unit weights: two suffix sums, ``O(N)`` after the
    sort. Each suffix term keeps :math:`TP_h - y w` as it is (no
    difference of two sums: no cancellation).
    """
    w = q[items]
    gid = np.cumsum(new, dtype=np.int64) - 1
    gp, gn = _group_weights(items, pos, q, new)
    TP, FP = np.cumsum(gp), np.cumsum(gn)
    C = TP + FP
    live = gp + gn > 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        A = _exclusive_cumsum(np.where(live, gp * TP / np.where(live, C, 1.0), 0.0))
    P = TP[-1] if TP.shape[0] else 0.0
    theta = np.empty(w.shape[0])
    weight_ids = np.unique(w, return_inverse=True)
    for d, wd in enumerate(weight_ids[0]):
        for y in (0.0, 1.0):
            sel = np.flatnonzero((weight_ids[1] == d) & (pos == y))
            if sel.shape[0]:
                theta[sel] = _ap_left_out(gid[sel], wd, y, gp, gn, TP, C, live, A, P)
    return theta


def _ap_left_out(k, w, y, gp, gn, TP, C, live, A, P):
    """:func:`_ap_items` for the entries of groups ``k`` that share weight ``w`` and label ``y``."""
    yw = y * w
    den = C - w
    ok = live & (den > 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        S = _exclusive_suffix(np.where(ok, gp * (TP - yw) / np.where(ok, den, 1.0), 0.0))
        own_den = den[k]
        stays = (gp[k] + gn[k]) - w > 0.0
        own = np.where(stays, (gp[k] - yw) * (TP[k] - yw) / np.where(stays, own_den, 1.0), 0.0)
    left = P - yw
    num = A[k] + own + S[k]
    return np.where(left > 0.0, num / (left if left > 0.0 else 1.0), 0.0)


def _auc_clusters(values, items, pos, q, new, groups, n_groups):
    r"""Delete-one-cluster ROC AUCs of one component: ``(theta, P, P + N0)`` per cluster.

    As :func:`sigtest._engine.rank_metrics.auc_cluster_jackknife`, on the
    entries of one component (a one-vs-one component holds two classes'
    items only; a cluster without items in it keeps the full value):

    .. math:: \theta_{(g)} = \frac{T - \sum_{i \in g^+} w_i (\sum_{h > g(i)}
              n_h + n_{g(i)}/2) - \sum_{j \in g^-} w_j (\sum_{h < g(j)} p_h
              + p_{g(j)}/2) + \sum_{i \in g^+, j \in g^-} w_i w_j \psi(s_i,
              s_j)}{(P - P_g)(N_0 - N_{0,g})}.

    A class is empty without the cluster when the cluster holds every item
    of positive weight of it (counted, not compared in floating point).
    """
    gid, wp, wn, P, N0, above, below, T = _placement_sums(items, pos, q, new)
    ge = groups[items]
    lost = np.bincount(ge, weights=wp * below[gid] + wn * above[gid], minlength=n_groups)
    inside = _pairs_inside(values, ge, wp, wn, n_groups)
    kept_pos = _kept(P, ge, wp, n_groups)
    kept_neg = _kept(N0, ge, wn, n_groups)
    den = kept_pos * kept_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = (T - lost + inside) / den
    theta[~(den > 0.0)] = np.nan
    return theta, kept_pos, kept_pos + kept_neg


def _kept(total, ge, wx, n_groups):
    """Weight left without each cluster; exactly 0 when the cluster held all of it."""
    kept = total - np.bincount(ge, weights=wx, minlength=n_groups)
    held = np.bincount(ge, weights=(wx > 0.0).astype(np.float64), minlength=n_groups)
    kept[held == np.count_nonzero(wx > 0.0)] = 0.0
    return kept


def _pairs_inside(values, ge, wp, wn, n_groups):
    r"""Per cluster: :math:`\sum_{i \in g^+, j \in g^-} w_i w_j \psi(s_i, s_j)`.

    The entries sorted by cluster (stable: still by descending score
    inside), tie groups of equal (cluster, score), and for each the
    negative weight of the same cluster strictly below.
    """
    m = ge.shape[0]
    if m == 0:
        return np.zeros(n_groups)
    order = np.argsort(ge, kind="stable")
    g, s = ge[order], values[order]
    newg = np.ones(m, dtype=bool)
    newg[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    tid = np.cumsum(newg, dtype=np.int64) - 1
    gp = np.bincount(tid, weights=wp[order])
    gn = np.bincount(tid, weights=wn[order])
    tg = g[newg]  # cluster of every tie group
    # negatives of the same cluster below a group: suffix sums restarted per cluster
    last = np.ones(tg.shape[0], dtype=bool)
    last[:-1] = tg[1:] != tg[:-1]
    below = _suffix_within(gn, last)
    return np.bincount(tg, weights=gp * (below + 0.5 * gn), minlength=n_groups)


def _suffix_within(x, last):
    """``out[t] = sum of x over the later entries of t's run`` (runs end where ``last``)."""
    total = np.cumsum(x)
    run_id = np.cumsum(np.r_[False, last[:-1]])
    run_end = total[last][run_id]
    return run_end - total
