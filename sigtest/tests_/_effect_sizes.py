r"""Effect sizes of two systems' scores over datasets, with magnitude labels.

What autorank (Herbold 2020) reports beside the ranks: Cohen's d, Cliff's
:math:`\delta` and Akinshin's :math:`\gamma`, each with the verbal magnitude
of its usual thresholds. ``x`` and ``y`` are the two systems' scores on the
same ``N`` datasets, oriented so that higher is better; every effect is
positive when ``y`` is the better system.

* :func:`cohen_d_paired` — :math:`d_z = \bar D / s_D`, :math:`D = y - x`
  (the paired version: the datasets are shared);
* :func:`cliff_delta` — :math:`P(Y > X) - P(Y < X)` over all
  :math:`N^2` pairs of datasets (ordinal, robust);
* :func:`akinshin_gamma` — the difference of Harrell-Davis medians over the
  pooled Harrell-Davis median absolute deviation (robust, consistent with
  Cohen's d under normality);
* :func:`magnitude` — the verbal label.

References
----------
J. Cohen (1988). Statistical Power Analysis for the Behavioral Sciences,
2nd ed. Lawrence Erlbaum.
N. Cliff (1993). Dominance statistics: ordinal analyses to answer ordinal
questions. Psychological Bulletin 114(3), 494-509.
J. Romano, J. D. Kromrey, J. Coraggio and J. Skowronek (2006). Appropriate
statistics for ordinal level data: should we really be using t-test and
Cohen's d for evaluating group differences on the NSSE and other surveys?
Annual meeting of the Florida Association of Institutional Research.
A. Akinshin (2020). A nonparametric Cohen's d-consistent effect size.
https://aakinshin.net/posts/nonparametric-effect-size/
F. E. Harrell and C. E. Davis (1982). A new distribution-free quantile
estimator. Biometrika 69(3), 635-640.
S. Herbold (2020). Autorank: a Python package for automated ranking of
classifiers. JOSS 5(48), 2173.
"""


import numpy as np

from sigtest.utils import warn_external

__all__ = ["EFFECT_SIZES", "akinshin_gamma", "cliff_delta", "cohen_d_paired", "magnitude"]

#: effect size -> (thresholds of |value| for "small", "medium", "large")
EFFECT_SIZES = {
    "cohen_d": (0.2, 0.5, 0.8),          # Cohen (1988)
    "cliff_delta": (0.147, 0.33, 0.474),  # Romano et al. (2006)
    "akinshin_gamma": (0.2, 0.5, 0.8),    # Cohen's, as d and gamma agree under normality
}

_LABELS = ("negligible", "small", "medium", "large")

#: consistency constant of the median absolute deviation under normality, 1/Phi^-1(3/4)
_MAD_CONSTANT = 1.482602218505602


def _pair(x, y):
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.size != y.size or x.size < 2:
        raise ValueError(f"The 'x' and 'y' parameters must hold the same number (at least 2) of "
                         f"scores. Got {x.size} and {y.size}.")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("The 'x' and 'y' parameters must hold finite scores.")
    return x, y


#: spreads and locations below this fraction of the scores' magnitude are rounding noise
_RELATIVE_TOLERANCE = 1e-12


def _ratio(num, den, name, magnitude):
    """``num / den``; a zero spread gives 0 (no difference) or +-inf, with a warning.

    Spreads and locations within ``1e-12 * magnitude`` (the largest absolute
    score) of 0 count as 0: a constant difference computed in floating
    point has a spread of rounding noise.
    """
    tol = _RELATIVE_TOLERANCE * magnitude
    if abs(num) <= tol:
        return 0.0
    if den > tol:
        return float(num / den)
    warn_external(f"{name}: the spread is 0 but the location differs: the effect size is "
                  "infinite.")
    return float(np.copysign(np.inf, num))


def _magnitude(x, y):
    return float(max(np.abs(x).max(), np.abs(y).max()))


def cohen_d_paired(x, y):
    r"""Paired Cohen's d, :math:`d_z = \bar D / s_D` with :math:`D_i = y_i - x_i`.

    :math:`s_D` is the standard deviation with ``N - 1`` degrees of freedom.
    Identical systems give 0; a constant non-zero difference gives
    :math:`\pm\infty` with a warning (spreads and means within
    :math:`10^{-12}` of the largest absolute score count as 0).

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Scores of the two systems on the same datasets (higher is better).

    Returns
    -------
    d : float
    """
    x, y = _pair(x, y)
    diff = y - x
    return _ratio(diff.mean(), diff.std(ddof=1), "Cohen's d", _magnitude(x, y))


def cliff_delta(x, y):
    r"""Cliff's :math:`\delta = (\#\{y_j > x_i\} - \#\{y_j < x_i\}) / N^2`.

    The probability that a score of ``y`` beats one of ``x`` minus the
    reverse, over all pairs of datasets (in :math:`[-1, 1]`).

    Parameters
    ----------
    x, y : array-like of shape (N,)

    Returns
    -------
    delta : float
    """
    x, y = _pair(x, y)
    sign = np.sign(y[:, None] - x[None, :])
    return float(sign.sum() / sign.size)


def _hd_median(values):
    from scipy.stats.mstats import hdquantiles

    return float(np.asarray(hdquantiles(values, prob=[0.5]))[0])


def akinshin_gamma(x, y):
    r"""Akinshin's :math:`\gamma` at the median.

    .. math::

        \gamma = \frac{Q_y(0.5) - Q_x(0.5)}{\mathrm{PMAD}_{xy}}, \quad
        \mathrm{PMAD}_{xy} = \sqrt{\frac{(N-1)\mathrm{MAD}_x^2 + (N-1)\mathrm{MAD}_y^2}
        {2N - 2}},

    :math:`Q` the Harrell-Davis quantile estimator
    (:func:`scipy.stats.mstats.hdquantiles`) and :math:`\mathrm{MAD}_x =
    1.4826\, Q_{|x - Q_x(0.5)|}(0.5)` (Harrell-Davis medians throughout, the
    constant making MAD consistent for the standard deviation of a normal).
    Zero spread gives 0 for equal medians, else :math:`\pm\infty` with a
    warning.

    Parameters
    ----------
    x, y : array-like of shape (N,)

    Returns
    -------
    gamma : float
    """
    x, y = _pair(x, y)
    mx, my = _hd_median(x), _hd_median(y)
    mad_x = _MAD_CONSTANT * _hd_median(np.abs(x - mx))
    mad_y = _MAD_CONSTANT * _hd_median(np.abs(y - my))
    n = x.size
    pooled = np.sqrt(((n - 1) * mad_x ** 2 + (n - 1) * mad_y ** 2) / (2 * n - 2))
    return _ratio(my - mx, pooled, "Akinshin's gamma", _magnitude(x, y))


def magnitude(value, kind):
    """Verbal magnitude of an effect size: negligible, small, medium or large.

    Parameters
    ----------
    value : float
    kind : {"cohen_d", "cliff_delta", "akinshin_gamma"}
        Selects the thresholds of :data:`EFFECT_SIZES` (a label is
        "negligible" below the first, "small" below the second, "medium"
        below the third, "large" from it on).

    Returns
    -------
    label : str
        ``"undefined"`` for NaN.
    """
    if kind not in EFFECT_SIZES:
        raise ValueError(f"The 'kind' parameter must be one of {sorted(EFFECT_SIZES)}. "
                         f"Got {kind!r} instead.")
    if np.isnan(value):
        return "undefined"
    return _LABELS[int(np.searchsorted(EFFECT_SIZES[kind], abs(value), side="right"))]
