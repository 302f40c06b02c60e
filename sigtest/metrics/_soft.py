"""Soft-label (human label variation) metrics and their sufficient statistics.

Notation of Kurniawan, Mistica, Baldwin and Lau (2025), *Training and Evaluating
with Human Label Variation*, sec. 3: ``P`` (``y_true``, ``N x K``) is the true
judgement distribution, ``Q`` (``y_proba``) the prediction. Multiclass rows sum
to 1 (within ``1e-6`` used as given, within ``1e-3`` renormalised with a
``ProbabilityRoundingWarning``); multilabel entries are memberships in
``[0, 1]`` (see :mod:`sigtest.metrics._check_proba`).

Every metric is defined by a per-instance statistics function and a vectorised
aggregate of the column sums (the contract of :mod:`sigtest.metrics._registry`):

* soft accuracy: rows ``[sum_k min(P_ik, Q_ik), 1]``; aggregate ``s0 / s1``;
* soft precision / recall / F1: per class ``min(P, Q)``, ``P``, ``Q`` (3K
  columns); aggregate: per-class ratios, micro or macro averaged;
* PO-JSD: ``[JSD_i, 1]`` (multilabel ``[sum_k JSD_ik, K]``); ``1 - s0 / s1``;
* Jensen-Shannon divergence: the same statistics; ``s0 / s1``;
* entropy correlation: ``[1, x, y, x^2, y^2, xy]`` (multilabel: per label);
  Pearson's r;
* entropy similarity: ``[xy, x^2, y^2]``; the cosine;
* cross entropy: ``[CE_i, 1]``; ``s0 / s1``.

The public ``*_score`` / ``*_loss`` functions compute
``aggregate(sample_weight @ statistics)`` through the same private helpers, so
they agree with the registered metrics to the last bit.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from sigtest.utils._param_validation import lazy, validate_params
from sigtest.metrics._check_proba import check_proba_pair, check_sample_weight
from sigtest.metrics._common import divide, entr, fill_doc, nan_mean, warn_undefined, xlogy
from sigtest.metrics._registry import weighted_column_sums

__all__ = [
    "cross_entropy_loss",
    "entropy_correlation_score",
    "entropy_similarity_score",
    "jensen_shannon_distance",
    "jensen_shannon_divergence",
    "po_jsd_score",
    "soft_accuracy_score",
    "soft_f1_score",
    "soft_precision_score",
    "soft_recall_score",
]

_LN2 = float(np.log(2.0))
_EPS = float(np.finfo(np.float64).eps)
#: A variance below ``_CONST_RTOL * mean(x**2)`` is rounding noise of the
#: raw-moment formula: the entropy vector is treated as constant (r undefined).
_CONST_RTOL = 1e4 * _EPS

_ZERO_DIVISION = [lazy.StrOptions({"warn"}), lazy.Options(Real, {0.0, 1.0}), "nan"]
_ARRAY = ["array-like", "sparse matrix"]
_ML_CONSTRAINTS = {
    "y_true": _ARRAY,
    "y_proba": _ARRAY,
    "multilabel": ["boolean"],
    "sample_weight": ["array-like", None],
}


# --------------------------------------------------------------------------- #
# elementwise information-theoretic kernels
# --------------------------------------------------------------------------- #
def _jsd_terms(p, q):
    """Elementwise ``p ln(2p/s) + q ln(2q/s)`` with ``s = p + q`` (nats), >= 0.

    ``JSD(a, b) = 1/2 sum_k _jsd_terms(a_k, b_k)`` in nats. The term equals
    ``s * g(d)`` with ``d = (p - q)/s`` and ``g(d) = ((1+d) ln(1+d) + (1-d) ln(1-d))/2``.
    Exact conventions: ``0 ln 0 = 0`` and a class with ``p = q = 0`` adds 0.
    Two algebraically equal forms are used so that the result keeps full
    relative accuracy: ``g = ln(1-d^2)/2 + d atanh(d)`` for ``|d| <= 1/2`` (no
    first-order cancellation when ``p ~ q``) and ``xlogy`` with the ratio
    ``2p/s`` otherwise (exact at ``d = +-1`` and for subnormal masses: since
    ``s <= 2``, ``2p/s >= p`` never underflows to 0 when ``p > 0``). No epsilon
    is added anywhere.
    """
    p, q = np.broadcast_arrays(np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64))
    s = p + q
    out = np.zeros(s.shape)
    pos = s > 0
    d = np.divide(p - q, s, out=np.zeros(s.shape), where=pos)
    near = np.abs(d) <= 0.5
    near &= pos
    far = pos & ~near
    dn = d[near]
    out[near] = s[near] * (0.5 * np.log1p(-dn * dn) + dn * np.arctanh(dn))
    pf, qf, sf = p[far], q[far], s[far]
    out[far] = xlogy(pf, 2.0 * pf / sf) + xlogy(qf, 2.0 * qf / sf)
    # the exact value is >= 0; clamp rounding noise of order eps * s * |d|
    return np.maximum(out, 0.0, out=out)


def _row_jsd_bits(P, Q):
    """Jensen-Shannon divergence of each row pair, log base 2, in [0, 1].

    The exact value never exceeds 1 bit; the clip removes the rounding excess
    of disjoint rows (and of rows summing to 1 only within the tolerance).
    """
    return np.minimum(0.5 * _jsd_terms(P, Q).sum(axis=-1) / _LN2, 1.0)


def _binary_jsd_bits(P, Q):
    """JSD of ``[P, 1-P]`` vs ``[Q, 1-Q]`` elementwise, log base 2, in [0, 1]."""
    return np.minimum(0.5 * (_jsd_terms(P, Q) + _jsd_terms(1.0 - P, 1.0 - Q)) / _LN2, 1.0)


def _normalised_entropy(P):
    """``H(p_i) / ln K`` per row (``entr(x) = -x ln x`` with ``entr(0) = 0``)."""
    return entr(P).sum(axis=-1) / np.log(P.shape[-1])


def _normalised_redundancy(P):
    """``1 - H(p_i) / ln K = KL(p_i || uniform) / ln K`` per row, in [0, 1].

    Computed directly as ``sum_k p ln(K p) / ln K`` (``0 ln 0 = 0``), so it is
    accurate near 0, where flat distributions crowd.
    """
    K = P.shape[-1]
    return np.maximum(xlogy(P, K * P).sum(axis=-1) / np.log(K), 0.0)


def _binary_entropy_bits(P):
    """Binary entropy ``H([P, 1-P])`` in bits, elementwise."""
    return (entr(P) + entr(1.0 - P)) / _LN2


# --------------------------------------------------------------------------- #
# shared aggregate helpers
# --------------------------------------------------------------------------- #
def _divide(num, den, zero_division, what):
    """``num / den`` with the rule of :func:`._common.divide`; warns for "warn"."""
    out, undefined = divide(num, den, zero_division)
    if isinstance(zero_division, str) and np.any(undefined):
        warn_undefined(
            f"{what} is ill-defined and being set to 0.0 where there is no "
            f"{_DENOMINATOR_NAMES[what]}."
        )
    return out


_DENOMINATOR_NAMES = {
    "Soft precision": "predicted mass (sum_i Q_ik = 0)",
    "Soft recall": "true mass (sum_i P_ik = 0)",
    "Soft F-score": "true nor predicted mass (sum_i P_ik + Q_ik = 0)",
}


def _mean_ratio(sums):
    """``s0 / s1`` vectorised; nan (silently) when the weight total is 0."""
    sums = np.asarray(sums, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums[..., 0] / sums[..., 1]


def _pearson_from_sums(n, sx, sy, sxx, syy, sxy):
    """Pearson's r from raw sums, vectorised; nan where a variance vanishes.

    ``r = (Sxy/n - mx my) / sqrt((Sxx/n - mx^2)(Syy/n - my^2))``. The raw-moment
    form loses about ``log10((mean/sd)^2)`` digits to cancellation (relative
    error ~ ``eps * (mean/sd)^2``; e.g. ~1e-11 for normalised entropies with
    mean 0.97 and sd 0.005). A variance at or below ``1e4 * eps * mean(x^2)``
    (coefficient of variation below ~1.5e-6) is indistinguishable from
    rounding noise and is treated as zero: r is then undefined (nan).
    Returns ``(r, undefined_mask)``; r is clipped to [-1, 1].
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        mx, my = sx / n, sy / n
        mxx, myy = sxx / n, syy / n
        vx = mxx - mx * mx
        vy = myy - my * my
        cxy = sxy / n - mx * my
        undefined = ~(n > 0) | (vx <= _CONST_RTOL * mxx) | (vy <= _CONST_RTOL * myy)
        r = cxy / (np.sqrt(np.where(undefined, 1.0, vx)) * np.sqrt(np.where(undefined, 1.0, vy)))
    r = np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))
    return r, undefined


def _warn_constant_entropy(n_undefined, multilabel):
    where = f" for {n_undefined} label(s), which are left out of the mean" if multilabel else ""
    warn_undefined(
        "Entropy correlation is undefined (nan) when the entropies of y_true or of the "
        f"prediction are constant{where}.",
        hint=False,
    )


# --------------------------------------------------------------------------- #
# statistics / aggregate pairs (registry contract)
# --------------------------------------------------------------------------- #
def _pair(y_true, y_pred, multilabel=False, params=None):
    """Validate ``(P, Q)``; the public functions name the prediction 'y_proba'."""
    name = (params or {}).get("_pred_name", "y_pred")
    return check_proba_pair(y_true, y_pred, multilabel=multilabel, pred_name=name)


def _soft_accuracy_statistics(y_true, y_pred, **params):
    """Rows ``[sum_k min(P_ik, Q_ik), 1]``."""
    P, Q = _pair(y_true, y_pred, False, params)
    out = np.empty((P.shape[0], 2))
    out[:, 0] = np.minimum(P, Q).sum(axis=1)
    out[:, 1] = 1.0
    return out


def _soft_accuracy_aggregate(sums, **params):
    """Soft accuracy ``sum_i sum_k min / N``."""
    return _mean_ratio(sums)


def _soft_prf_statistics(y_true, y_pred, *, multilabel=False, average=None, **params):
    """Rows ``[min(P_i., Q_i.), P_i., Q_i.]`` (3K columns, class order kept).

    With ``average="micro"`` (which needs only the totals over items and
    classes) each of the three blocks is summed over the classes: 3 columns
    whatever ``K``, so a resample costs what the items cost.
    """
    P, Q = _pair(y_true, y_pred, multilabel, params)
    if average == "micro":
        return np.stack([np.minimum(P, Q).sum(axis=1), P.sum(axis=1), Q.sum(axis=1)], axis=1)
    K = P.shape[1]
    out = np.empty((P.shape[0], 3 * K))  # filled in place: no (N, K) temporaries
    np.minimum(P, Q, out=out[:, :K])
    out[:, K : 2 * K] = P
    out[:, 2 * K :] = Q
    return out


def _soft_prf_aggregate(sums, *, kind="f1", average="macro", zero_division="warn", **params):
    """Soft precision / recall / F1 from per-class sums of min, P and Q."""
    sums = np.asarray(sums, dtype=np.float64)
    K = sums.shape[-1] // 3
    m, sp, sq = sums[..., :K], sums[..., K : 2 * K], sums[..., 2 * K :]
    if average == "micro":
        m, sp, sq = (a.sum(axis=-1, keepdims=True) for a in (m, sp, sq))
    if kind == "precision":
        vals = _divide(m, sq, zero_division, "Soft precision")
    elif kind == "recall":
        vals = _divide(m, sp, zero_division, "Soft recall")
    elif kind == "f1":
        vals = _divide(2.0 * m, sp + sq, zero_division, "Soft F-score")
    else:
        raise ValueError(
            f"The 'kind' parameter must be 'precision', 'recall' or 'f1'. Got {kind!r}."
        )
    if average == "micro":
        return vals[..., 0]
    if average == "macro":
        # as scikit-learn: classes set to nan (zero_division=np.nan) are left out
        return nan_mean(vals)
    if average is None:
        return vals
    raise ValueError(f"The 'average' parameter must be 'micro', 'macro' or None. Got {average!r}.")


def _soft_precision_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft precision per class ``Smin_k / SQ_k`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="precision", average=average, zero_division=zero_division)


def _soft_recall_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft recall per class ``Smin_k / SP_k`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="recall", average=average, zero_division=zero_division)


def _soft_f1_aggregate(sums, *, average="macro", zero_division="warn", **params):
    """Soft F1 per class ``2 Smin_k / (SP_k + SQ_k)`` (micro: sums over k), averaged."""
    return _soft_prf_aggregate(sums, kind="f1", average=average, zero_division=zero_division)


def _jsd_statistics(y_true, y_pred, *, multilabel=False, **params):
    """Rows ``[JSD_i, 1]`` (bits); multilabel ``[sum_k JSD_ik, K]``."""
    P, Q = _pair(y_true, y_pred, multilabel, params)
    out = np.empty((P.shape[0], 2))
    if multilabel:
        out[:, 0] = _binary_jsd_bits(P, Q).sum(axis=1)
        out[:, 1] = P.shape[1]
    else:
        out[:, 0] = _row_jsd_bits(P, Q)
        out[:, 1] = 1.0
    return out


def _po_jsd_aggregate(sums, **params):
    """PO-JSD ``1 - mean JSD``."""
    return 1.0 - _mean_ratio(sums)


def _mean_aggregate(sums, **params):
    """Weighted mean ``s0 / s1`` (mean JSD, mean cross entropy, mean JS distance)."""
    return _mean_ratio(sums)


def _entropies(y_true, y_pred, multilabel, params, redundancy=False):
    P, Q = _pair(y_true, y_pred, multilabel, params)
    if multilabel:
        return _binary_entropy_bits(P), _binary_entropy_bits(Q)
    if P.shape[1] < 2:
        raise ValueError(
            "The 'y_true' parameter must have at least 2 classes for the normalised "
            f"entropy H(p)/log K. Got {P.shape[1]}."
        )
    f = _normalised_redundancy if redundancy else _normalised_entropy
    return f(P)[:, None], f(Q)[:, None]


def _entropy_correlation_statistics(y_true, y_pred, *, multilabel=False, **params):
    """Rows ``[1, x, y, x^2, y^2, xy]``; multilabel ``[1, x_., y_., x_.^2, y_.^2, x_.y_.]``.

    Multiclass: ``x = 1 - H(p_i)/log K`` (and ``y`` for ``q_i``), the normalised
    *redundancy* rather than the normalised entropy. Pearson's r is invariant
    under ``eta -> 1 - eta``, so the correlation is the same, but the raw
    moments are much better conditioned where it matters: flat distributions
    (many classes, dense Dirichlet) have entropies crowded just below 1, whose
    raw moments would lose ~``log10((mean/sd)^2)`` digits (e.g. 1e-9 relative
    error at K=100, alpha=10) while their redundancies sit near 0.
    Multilabel: binary entropies in bits of each label (usually small).
    """
    x, y = _entropies(y_true, y_pred, multilabel, params, redundancy=True)
    one = np.ones((x.shape[0], 1))
    return np.concatenate([one, x, y, x * x, y * y, x * y], axis=1)


def _entropy_correlation_aggregate(sums, *, multilabel=False, **params):
    """Pearson's r of the entropies (multilabel: mean over defined labels)."""
    sums = np.asarray(sums, dtype=np.float64)
    K = (sums.shape[-1] - 1) // 5
    n = sums[..., :1]
    parts = [sums[..., 1 + j * K : 1 + (j + 1) * K] for j in range(5)]
    r, undefined = _pearson_from_sums(n, *parts)
    if not multilabel:
        if np.any(undefined):
            _warn_constant_entropy(int(undefined.sum()), False)
        return r[..., 0]
    if np.any(undefined):
        _warn_constant_entropy(int(undefined.sum()), True)
    return nan_mean(r)  # r is nan exactly where undefined: the mean over defined labels


def _entropy_similarity_statistics(y_true, y_pred, **params):
    """Rows ``[x y, x^2, y^2]`` of normalised entropies."""
    x, y = _entropies(y_true, y_pred, False, params)
    return np.concatenate([x * y, x * x, y * y], axis=1)


def _entropy_similarity_aggregate(sums, **params):
    """Cosine similarity ``Sxy / sqrt(Sxx Syy)``; nan if an entropy vector is 0."""
    sums = np.asarray(sums, dtype=np.float64)
    sxy, sxx, syy = sums[..., 0], sums[..., 1], sums[..., 2]
    undefined = ~(sxx > 0) | ~(syy > 0)
    if np.any(undefined):
        warn_undefined(
            "Entropy similarity is undefined (nan) when every row of y_true or of the "
            "prediction is one-hot (zero entropy vector).",
            hint=False,
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        norm = np.sqrt(np.where(undefined, 1.0, sxx)) * np.sqrt(np.where(undefined, 1.0, syy))
        cos = sxy / norm
    return np.where(undefined, np.nan, np.minimum(cos, 1.0))


def _check_eps(eps):
    if isinstance(eps, str) and eps == "auto":
        return _EPS
    if isinstance(eps, bool) or not isinstance(eps, Real) or not 0.0 <= eps < 1.0:
        raise ValueError(f"The 'eps' parameter must be 'auto' or a float in [0, 1). Got {eps!r}.")
    return float(eps)


def _cross_entropy_statistics(y_true, y_pred, *, eps="auto", **params):
    """Rows ``[CE_i, 1]`` with ``CE_i = -sum_k P_ik ln max(Q_ik, eps)`` (nats)."""
    eps = _check_eps(eps)
    P, Q = _pair(y_true, y_pred, False, params)
    out = np.empty((P.shape[0], 2))
    with np.errstate(divide="ignore"):
        out[:, 0] = -xlogy(P, np.maximum(Q, eps)).sum(axis=1)
    out[:, 1] = 1.0
    return out


def _js_distance_statistics(y_true, y_pred, *, base=None, **params):
    """Rows ``[sqrt(JSD_i), 1]`` with the divergence in log base ``base`` (default e)."""
    P, Q = _pair(y_true, y_pred, False, params)
    div_nats = _row_jsd_bits(P, Q) * _LN2
    if base is not None:
        div_nats = div_nats / np.log(base)
    out = np.empty((P.shape[0], 2))
    out[:, 0] = np.sqrt(div_nats)
    out[:, 1] = 1.0
    return out


# --------------------------------------------------------------------------- #
# public functions
# --------------------------------------------------------------------------- #
def _score(statistics, aggregate, y_true, y_proba, sample_weight, **params):
    stats = statistics(y_true, y_proba, _pred_name="y_proba", **params)
    w = check_sample_weight(sample_weight, stats.shape[0])
    return aggregate(weighted_column_sums(stats, w), **params)


@validate_params(
    {"y_true": _ARRAY, "y_proba": _ARRAY, "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def soft_accuracy_score(y_true, y_proba, *, sample_weight=None):
    """Soft accuracy: the share of the judgement mass that is predicted.

    .. math:: \\mathrm{SoftAcc}(P, Q) = \\frac{1}{N}\\sum_{i}\\sum_{k} \\min(P_{ik}, Q_{ik})

    (Kurniawan et al., 2025, sec. 3.1, metric 3). Range [0, 1], higher is
    better; 1 iff ``P == Q``, 0 iff ``P_ik Q_ik = 0`` everywhere. Symmetric in
    ``P`` and ``Q``. On one-hot rows it equals (hard) accuracy, and it equals
    :func:`soft_f1_score` with ``average="micro"`` when rows sum to 1. It never
    exceeds :func:`po_jsd_score`, per instance (Theorem 3.1).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgement distributions ``P``; rows sum to 1 (within 1e-6 used as given; within
        1e-3, e.g. printed with four decimals, renormalised with a warning).
    y_proba : array-like of shape (n_samples, n_classes)
        Predicted distributions ``Q``, columns in the same class order.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; the score is ``sum_i w_i m_i / sum_i w_i``.

    Returns
    -------
    score : float
        In [0, 1]; higher is better.

    See Also
    --------
    po_jsd_score : Never below soft accuracy, per instance.
    soft_f1_score : Equals soft accuracy with ``average="micro"``.

    References
    ----------
    .. [1] Kurniawan, Mistica, Baldwin, Lau (2025). Training and Evaluating with
       Human Label Variation. Sec. 3.1.

    Examples
    --------
    >>> from sigtest.metrics import soft_accuracy_score
    >>> P = [[0.5, 0.5], [1.0, 0.0]]
    >>> Q = [[0.2, 0.8], [0.6, 0.4]]
    >>> round(soft_accuracy_score(P, Q), 6)   # (0.7 + 0.6) / 2
    0.65
    """
    return float(
        _score(_soft_accuracy_statistics, _soft_accuracy_aggregate, y_true, y_proba, sample_weight)
    )


_PRF_CONSTRAINTS = {
    "y_true": _ARRAY,
    "y_proba": _ARRAY,
    "average": [lazy.StrOptions({"micro", "macro"}), None],
    "multilabel": ["boolean"],
    "sample_weight": ["array-like", None],
    "zero_division": _ZERO_DIVISION,
}

_PRF_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgement ``P``: distributions (rows sum to 1 within 1e-6; within 1e-3
        renormalised with a warning) or,
        with ``multilabel=True``, label memberships in [0, 1].
    y_proba : array-like of shape (n_samples, n_classes)
        Prediction ``Q``, columns in the same class order as ``y_true``.
    average : {"micro", "macro"} or None, default="macro"
        ``"micro"`` sums the numerator and denominator over samples *and*
        classes; ``"macro"`` is the unweighted mean of the per-class scores
        over all ``n_classes`` columns; ``None`` returns the per-class scores.
    multilabel : bool, default=False
        Accept rows that do not sum to 1 (entries in [0, 1]).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights multiplying each row's contributions.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value for a class (or the micro total) whose denominator is 0. "warn"
        gives 0.0 and an :class:`~sklearn.exceptions.UndefinedMetricWarning`.
        With ``np.nan`` such classes are left out of the macro mean (as in
        scikit-learn); nan if every class is undefined.

    Returns
    -------
    score : float or ndarray of shape (n_classes,)
        In [0, 1]; higher is better. An array when ``average=None``.
"""


def _prf(kind, y_true, y_proba, average, multilabel, sample_weight, zero_division):
    out = _score(
        _soft_prf_statistics,
        _soft_prf_aggregate,
        y_true,
        y_proba,
        sample_weight,
        kind=kind,
        average=average,
        multilabel=multilabel,
        zero_division=zero_division,
    )
    return out if average is None else float(out)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_precision_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) precision.

    .. math:: \\mathrm{SoftPrec}_k = \\frac{\\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i Q_{ik}}

    (Kurniawan et al., 2025, appendix eq. 1; Harju and Mesaros, 2023). Micro:
    sums over ``i`` and ``k``. Range [0, 1], higher is better. On one-hot rows
    it equals scikit-learn's ``precision_score`` with ``labels=range(K)``.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_precision_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> soft_precision_score(P, Q, average=None).round(4)   # [1.3/1.3, 0.5/0.7]
    array([1.    , 0.7143])
    """
    return _prf("precision", y_true, y_proba, average, multilabel, sample_weight, zero_division)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_recall_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) recall.

    .. math:: \\mathrm{SoftRec}_k = \\frac{\\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i P_{ik}}

    (Kurniawan et al., 2025, appendix eq. 2). Micro: sums over ``i`` and ``k``.
    Range [0, 1], higher is better. On one-hot rows it equals scikit-learn's
    ``recall_score`` with ``labels=range(K)``.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_recall_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> soft_recall_score(P, Q, average=None).round(4)   # [1.3/1.5, 0.5/0.5]
    array([0.8667, 1.    ])
    """
    return _prf("recall", y_true, y_proba, average, multilabel, sample_weight, zero_division)


@validate_params(_PRF_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc(prf_doc=_PRF_DOC)
def soft_f1_score(
    y_true, y_proba, *, average="macro", multilabel=False, sample_weight=None, zero_division="warn"
):
    """Soft (fuzzy-set) F1 score.

    .. math:: \\mathrm{SoftF1}_k = \\frac{2 \\sum_i \\min(P_{ik}, Q_{ik})}{\\sum_i (P_{ik} + Q_{ik})},
       \\qquad
       \\mathrm{SoftF1}_{micro} = \\frac{2 \\sum_{ik} \\min(P_{ik}, Q_{ik})}{\\sum_{ik} (P_{ik} + Q_{ik})}

    (Kurniawan et al., 2025, sec. 3.1 metric 4, sec. 3.2, appendix eq. 3).
    Macro is the mean of ``SoftF1_k`` over classes. Range [0, 1], higher is
    better, symmetric in ``P`` and ``Q``. Soft micro F1 equals
    :func:`soft_accuracy_score` when rows sum to 1, and hard micro F1 on 0/1
    input; per class it equals scikit-learn's ``f1_score`` on one-hot rows.

    {prf_doc}

    Examples
    --------
    >>> from sigtest.metrics import soft_f1_score
    >>> P = [[1.0, 0.0], [0.5, 0.5]]
    >>> Q = [[0.8, 0.2], [0.5, 0.5]]
    >>> round(soft_f1_score(P, Q, average="micro"), 6)    # 2 * 1.8 / 4
    0.9
    >>> soft_f1_score(P, Q, average=None).round(4)        # [2.6/2.8, 1.0/1.2]
    array([0.9286, 0.8333])
    """
    return _prf("f1", y_true, y_proba, average, multilabel, sample_weight, zero_division)


@validate_params(
    _ML_CONSTRAINTS,
    prefer_skip_nested_validation=True,
)
def po_jsd_score(y_true, y_proba, *, multilabel=False, sample_weight=None):
    """Positively oriented Jensen-Shannon divergence (PO-JSD).

    .. math:: \\mathrm{PO\\text{-}JSD} = 1 - \\frac{1}{N}\\sum_i \\mathrm{JSD}(p_i, q_i),\\quad
       \\mathrm{JSD}(a, b) = \\tfrac12 \\mathrm{KL}(a \\| m) + \\tfrac12 \\mathrm{KL}(b \\| m),\\
       m = \\tfrac12 (a + b),

    with base-2 logarithms so that ``JSD`` is in [0, 1] (Kurniawan et al.,
    2025, sec. 3.1 metric 5; Lin, 1991). With ``multilabel=True`` each label is
    a binary distribution: ``1 - (1/NK) sum_ik JSD([P_ik, 1-P_ik], [Q_ik, 1-Q_ik])``
    (sec. 3.2). Range [0, 1], higher is better, symmetric.

    Conventions: ``0 log 0 = 0`` exactly; no epsilon is added to any mass, and
    the computation is safe for subnormal masses (see ``_jsd_terms``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning), or memberships with ``multilabel=True``.
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    multilabel : bool, default=False
        Read the columns as independent label memberships in [0, 1] (rows need
        not sum to 1); the score is then over instances and labels (binary JSD per label).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    score : float
        In [0, 1]; higher is better (1 when ``Q = P``).

    See Also
    --------
    jensen_shannon_divergence : ``1 - po_jsd_score`` (a loss).

    Examples
    --------
    >>> from sigtest.metrics import po_jsd_score
    >>> po_jsd_score([[1.0, 0.0]], [[0.0, 1.0]])
    0.0
    >>> round(po_jsd_score([[0.5, 0.5]], [[0.2, 0.8]]), 4)
    0.9269
    """
    return float(
        _score(
            _jsd_statistics, _po_jsd_aggregate, y_true, y_proba, sample_weight, multilabel=multilabel
        )
    )


@validate_params(
    _ML_CONSTRAINTS,
    prefer_skip_nested_validation=True,
)
def jensen_shannon_divergence(y_true, y_proba, *, multilabel=False, sample_weight=None):
    """Mean Jensen-Shannon divergence, log base 2 (a loss: lower is better).

    .. math:: \\frac{1}{N}\\sum_i \\mathrm{JSD}(p_i, q_i) = 1 - \\mathrm{PO\\text{-}JSD}

    This is the JSD of BooStSa / Uma et al. (2021) as a *divergence* in bits,
    range [0, 1]. BooStSa 0.2.13 actually reports the Jensen-Shannon
    *distance* (square root of the divergence, natural log) under the name
    "JSD"; that quantity is :func:`jensen_shannon_distance`. Registered as the
    loss ``"jsd"`` (scorer ``"neg_jsd"``). Conventions as :func:`po_jsd_score`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning), or memberships with ``multilabel=True``.
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    multilabel : bool, default=False
        Mean over instances and labels of binary JSDs.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    loss : float
        Mean divergence in bits, in [0, 1]; lower is better.

    Examples
    --------
    >>> from sigtest.metrics import jensen_shannon_divergence
    >>> round(jensen_shannon_divergence([[0.5, 0.5]], [[0.2, 0.8]]), 4)
    0.0731
    """
    return float(
        _score(
            _jsd_statistics, _mean_aggregate, y_true, y_proba, sample_weight, multilabel=multilabel
        )
    )


@validate_params(
    {
        "y_true": _ARRAY,
        "y_proba": _ARRAY,
        "base": [lazy.Interval(Real, 0, None, closed="neither"), None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def jensen_shannon_distance(y_true, y_proba, *, base=None, sample_weight=None):
    """Mean Jensen-Shannon *distance* (BooStSa's "JSD"), natural log by default.

    .. math:: \\frac{1}{N}\\sum_i \\sqrt{\\mathrm{JSD}_e(p_i, q_i)}

    the per-instance value of :func:`scipy.spatial.distance.jensenshannon`
    (which uses ``ln`` unless ``base`` is given), averaged. Range
    ``[0, sqrt(ln 2)] ~ [0, 0.833]`` in nats, lower is better. This is what
    BooStSa 0.2.13 reports as "Jensen-Shannon divergence"; sigtest names it
    honestly and registers the base-2 *divergence* (``"jsd"``) instead.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning).
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    base : float, default=None
        Logarithm base of the divergence; None means e (nats).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    distance : float
        Mean over instances of the square root of the divergence; lower is better.

    Examples
    --------
    >>> from sigtest.metrics import jensen_shannon_distance
    >>> round(jensen_shannon_distance([[1.0, 0.0]], [[0.0, 1.0]]), 6)   # sqrt(ln 2)
    0.832555
    """
    if base is not None and base == 1:
        raise ValueError("The 'base' parameter must not be 1.")
    return float(
        _score(_js_distance_statistics, _mean_aggregate, y_true, y_proba, sample_weight, base=base)
    )


@validate_params(
    _ML_CONSTRAINTS,
    prefer_skip_nested_validation=True,
)
def entropy_correlation_score(y_true, y_proba, *, multilabel=False, sample_weight=None):
    """Pearson correlation of per-instance (normalised) entropies.

    .. math:: r = \\frac{\\sum_i \\zeta^P_i \\zeta^Q_i}
       {\\sqrt{\\sum_i (\\zeta^P_i)^2}\\sqrt{\\sum_i (\\zeta^Q_i)^2}},\\quad
       \\zeta_i = \\eta_i - \\bar\\eta,\\quad \\eta^P_i = -\\sum_k P_{ik}\\log P_{ik} / \\log K

    (Uma et al., 2020; Kurniawan et al., 2025, sec. 3.1 metric 6). With
    ``multilabel=True`` the mean over labels of the correlation of binary
    entropies in bits, ``eta_ik = H([P_ik, 1-P_ik])`` (sec. 3.2). Range
    [-1, 1], higher is better. ``sample_weight`` gives weighted moments.

    Undefined values: if the entropies of ``y_true`` or of ``y_proba`` are
    constant (e.g. all rows one-hot, or a model predicting the same
    distribution everywhere) the correlation is undefined: the result is nan
    and an :class:`~sklearn.exceptions.UndefinedMetricWarning` is emitted. With
    ``multilabel=True`` such labels are left out of the mean (warning); nan if
    no label is defined. "Constant" means a variance at or below
    ``1e4 * eps * mean(eta^2)`` (coefficient of variation below about 1.5e-6),
    the rounding-noise floor of the moment sums.

    Numerics: r is computed from the additive sums ``n, Sx, Sy, Sxx, Syy, Sxy``
    (centred with the means in the aggregate), whose relative error is about
    ``eps * (mean/sd)^2``. For multiclass input the sums are taken of
    ``1 - eta`` (same r), which stays well conditioned for flat predictions;
    against :func:`numpy.corrcoef` the agreement is better than 1e-12 on the
    Dirichlet data of the paper's Table 2.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning); at least 2 classes unless ``multilabel=True``.
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    multilabel : bool, default=False
        Read the columns as independent label memberships in [0, 1] (rows need
        not sum to 1); the score is then over instances and labels (the mean over labels of the per-label correlations).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    score : float
        Pearson's r in [-1, 1], higher is better; nan when undefined.

    Warns
    -----
    UndefinedMetricWarning
        When an entropy vector is constant.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import entropy_correlation_score
    >>> rng = np.random.default_rng(0)
    >>> P = rng.dirichlet([1.0, 1.0, 1.0], size=200)
    >>> Q = 0.7 * P + 0.3 * rng.dirichlet([1.0, 1.0, 1.0], size=200)
    >>> 0.5 < entropy_correlation_score(P, Q) <= 1.0
    True
    """
    return float(
        _score(
            _entropy_correlation_statistics,
            _entropy_correlation_aggregate,
            y_true,
            y_proba,
            sample_weight,
            multilabel=multilabel,
        )
    )


@validate_params(
    {"y_true": _ARRAY, "y_proba": _ARRAY, "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def entropy_similarity_score(y_true, y_proba, *, sample_weight=None):
    """Entropy similarity: cosine of the normalised-entropy vectors (BooStSa E-Sim).

    .. math:: \\frac{\\sum_i \\eta^P_i \\eta^Q_i}{\\sqrt{\\sum_i (\\eta^P_i)^2}\\sqrt{\\sum_i (\\eta^Q_i)^2}},
       \\quad \\eta_i = H(p_i) / \\log K

    (Uma et al., 2021; Fornaciari et al., 2022, sec. 2.2). Range [0, 1]
    (entropies are non-negative), higher is better. If every row of ``y_true``
    or of ``y_proba`` is one-hot (a zero entropy vector), the cosine is
    undefined: nan and an :class:`~sklearn.exceptions.UndefinedMetricWarning`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning); at least 2 classes.
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    score : float
        The cosine in [0, 1], higher is better; nan when undefined.

    Examples
    --------
    >>> from sigtest.metrics import entropy_similarity_score
    >>> entropy_similarity_score([[0.5, 0.5], [1.0, 0.0]], [[0.5, 0.5], [0.0, 1.0]])
    1.0
    """
    return float(
        _score(
            _entropy_similarity_statistics,
            _entropy_similarity_aggregate,
            y_true,
            y_proba,
            sample_weight,
        )
    )


@validate_params(
    {
        "y_true": _ARRAY,
        "y_proba": _ARRAY,
        "eps": [lazy.StrOptions({"auto"}), lazy.Interval(Real, 0, 1, closed="left")],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def cross_entropy_loss(y_true, y_proba, *, eps="auto", sample_weight=None):
    """Mean cross entropy of the predicted from the true distributions (nats).

    .. math:: \\mathrm{CE} = -\\frac{1}{N}\\sum_i \\sum_k P_{ik} \\ln \\max(Q_{ik}, \\epsilon)

    (Peterson et al., 2019; Uma et al., 2021; Fornaciari et al., 2022). Range
    ``[0, inf)`` (at least the mean entropy of ``P``), lower is better:
    registered as the loss ``"cross_entropy"`` with scorer ``"neg_cross_entropy"``.
    On one-hot ``y_true`` it equals :func:`sklearn.metrics.log_loss`.

    Clipping: ``Q`` is clipped from below at ``eps`` (no upper clip, no
    renormalisation). The default ``"auto"`` is float64 machine epsilon
    (2.22e-16), the lower clip of scikit-learn's ``log_loss``; a term with
    ``P_ik > 0`` and ``Q_ik < eps`` then costs ``P_ik * 36.04`` nats instead of
    up to infinity. Terms with ``Q_ik >= eps`` are exact, and terms with
    ``P_ik = 0`` are 0 whatever ``Q_ik`` is (``0 log 0 = 0``). ``eps=0`` gives the
    exact value, which is ``inf`` when some ``Q_ik = 0`` where ``P_ik > 0``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_classes)
        True judgements ``P``: distributions whose rows sum to 1 (within 1e-6
        used as given; within 1e-3 renormalised with a warning).
    y_proba : array-like of shape (n_samples, n_classes)
        Predictions ``Q``, columns in the same class order as ``y_true``.
    eps : "auto" or float in [0, 1), default="auto"
        Lower bound applied to ``Q`` inside the logarithm; ``"auto"`` is the
        machine epsilon of float64, ``0`` the exact value.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum; rows are weighted in every
        sum of the statistics.

    Returns
    -------
    loss : float
        Mean cross entropy in nats, >= 0; lower is better.

    Examples
    --------
    >>> from sigtest.metrics import cross_entropy_loss
    >>> round(cross_entropy_loss([[0.5, 0.5]], [[0.5, 0.5]]), 6)    # ln 2
    0.693147
    """
    return float(
        _score(_cross_entropy_statistics, _mean_aggregate, y_true, y_proba, sample_weight, eps=eps)
    )
