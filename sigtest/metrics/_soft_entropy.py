"""Entropy correlation and entropy similarity of P and Q.

Notation of :mod:`sigtest.metrics._soft` (``P`` the true judgement
distributions, ``Q`` the prediction), with ``x`` and ``y`` the normalised
entropies (or redundancies) of the rows of ``P`` and ``Q``:

* entropy correlation: ``[1, x, y, x^2, y^2, xy]`` (multilabel: per label);
  Pearson's r;
* entropy similarity: ``[xy, x^2, y^2]``; the cosine.

The input check (``_pair``), the weighted scoring (``_score``) and the
constants are shared with the other soft-label metrics in :mod:`._soft`.
"""

from __future__ import annotations

import numpy as np

from sigtest.utils._param_validation import validate_params
from sigtest.metrics._common import entr, nan_mean, warn_undefined, xlogy
from sigtest.metrics._soft import (_ARRAY, _EPS, _LN2, _ML_CONSTRAINTS, _pair, _score,
                                   row_blocks)

__all__ = ["entropy_correlation_score", "entropy_similarity_score"]

#: A variance below ``_CONST_RTOL * mean(x**2)`` is rounding noise of the
#: raw-moment formula: the entropy vector is treated as constant (r undefined).
_CONST_RTOL = 1e4 * _EPS


# --------------------------------------------------------------------------- #
# elementwise entropies and their correlation
# --------------------------------------------------------------------------- #
def _normalised_entropy(P):
    """``H(p_i) / ln K`` per row (``entr(x) = -x ln x`` with ``entr(0) = 0``)."""
    return entr(P).sum(axis=-1) / np.log(P.shape[-1])


def _normalised_redundancy(P):
    """``1 - H(p_i) / ln K = KL(p_i || uniform) / ln K`` per row, in [0, 1].

    Computed directly as ``sum_k p ln(K p) / ln K`` (``0 ln 0 = 0``), so it is
    accurate near 0, where flat distributions crowd. Computed on blocks of
    rows (:func:`sigtest.metrics._soft.row_blocks`).
    """
    return row_blocks(_block_redundancy, P)


def _block_redundancy(P):
    K = P.shape[-1]
    return np.maximum(xlogy(P, K * P).sum(axis=-1) / np.log(K), 0.0)


def _binary_entropy_bits(P):
    """Binary entropy ``H([P, 1-P])`` in bits, elementwise."""
    return (entr(P) + entr(1.0 - P)) / _LN2


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


# --------------------------------------------------------------------------- #
# public functions
# --------------------------------------------------------------------------- #
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
