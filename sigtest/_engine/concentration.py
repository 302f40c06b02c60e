r"""Influence concentration: a difference carried by a handful of units.

A paired difference :math:`\hat\delta` of a metric is, to first order, a sum
of per-unit contributions: its jackknife influence values

.. math:: L_i = (n - 1)\,(\bar\theta_{(\cdot)} - \theta_{(i)}),

with :math:`\theta_{(i)}` the difference without unit :math:`i` (items, or
clusters; within each stratum with ``strata``, as the BCa acceleration
computes them). For a mean over items :math:`L_i = d_i - \bar d`, the
per-item difference minus its mean. When a few :math:`|L_i|` dwarf the rest
(log loss with one confident mistake: a per-item loss of 20 among losses of
0.01) the bootstrap distribution of :math:`\hat\delta` is a mixture over how
often those units are drawn, its BCa interval and the Gaussian multiplier
approximation of it are unreliable, and a permutation test and a bootstrap
interval can disagree (both doing what they claim).

The diagnostic is the **effective number of units** of the influence values,

.. math:: n_{\mathrm{eff}} = \frac{\left(\sum_i w_i L_i^2\right)^2}{\sum_i w_i L_i^4}

(:math:`w_i` the multiplicity of a row: cell counts in the compressed path),
the participation ratio of the squared influence values: ``n`` when every
unit counts the same, about ``n / 3`` for Gaussian per-item differences
(``n`` over their kurtosis), 1 when one unit carries all of the variance. A
difference is **concentrated** when

.. math:: n_{\mathrm{eff}} < N_{\min} \quad\text{and}\quad n_{\mathrm{eff}} < r\,d,

:math:`d` the number of discordant units (where A and B differ):
:data:`N_EFFECTIVE_MIN` and :data:`DISCORDANT_RATIO`, chosen by simulation
(``tests/engine/test_concentration.py``, slow). The second condition leaves
hard-label metrics with few discordant items to the small-sample rules
(:mod:`sigtest._engine.small_sample`): there every discordant item moves the
score by the same step, :math:`n_{\mathrm{eff}} \approx d`.

The message says how many units carry how much: the :math:`m =
\max(1, \mathrm{round}(n_{\mathrm{eff}}))` units of largest :math:`|L_i|`
and their share of the difference, :math:`\sum_{\mathrm{top}\ m}
(\hat\delta + L_i) / (n \hat\delta)` (for a mean: their per-item
differences' sum over the total).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "DISCORDANT_RATIO",
    "N_EFFECTIVE_MIN",
    "Concentration",
    "concentration_sentence",
    "influence_concentration",
    "is_concentrated",
    "paired_concentration",
]

#: Below this effective number of units the influence is concentrated (with
#: :data:`DISCORDANT_RATIO`). Chosen by simulation (see the module text).
N_EFFECTIVE_MIN = 10.0

#: ... and below this fraction of the discordant units.
DISCORDANT_RATIO = 0.2


class Concentration(NamedTuple):
    """The influence concentration of a paired difference.

    ``n_effective``: :math:`n_{\\mathrm{eff}}`; ``n_units``: units (items or
    clusters) with positive weight; ``n_top``: the number of units named in
    the message; ``share``: their share of the difference (nan when the
    difference is 0); ``variance_share``: their share of
    :math:`\\sum_i w_i L_i^2`; ``estimate``: :math:`\\hat\\delta`.
    """

    n_effective: float
    n_units: int
    n_top: int
    share: float
    variance_share: float
    estimate: float


def _influence(theta, w, strata):
    if strata is None:
        n = w.sum()
        return (n - 1.0) * (np.dot(w, theta) / n - theta)
    out = np.empty_like(theta)
    for h in np.unique(strata):
        rows = strata == h
        n_h = w[rows].sum()
        out[rows] = (n_h - 1.0) * (np.dot(w[rows], theta[rows]) / n_h - theta[rows])
    return out


def influence_concentration(theta, estimate, weights=None, strata=None):
    r"""Effective number of units of a difference and the share its top units carry.

    Parameters
    ----------
    theta : array-like of shape (R,)
        Leave-one-out differences :math:`\theta_{(i)}` per row (items, cells
        or clusters).
    estimate : float
        The observed difference :math:`\hat\delta`.
    weights : array-like of shape (R,), optional
        Multiplicity of every row (cell counts); default ones.
    strata : array-like of shape (R,), optional
        Stratum code of every row: influence values within strata.

    Returns
    -------
    Concentration or None
        ``None`` when a leave-one-out value is not finite or every influence
        value is 0 (no variance: nothing is carried).

    Examples
    --------
    >>> import numpy as np
    >>> d = np.r_[np.full(98, 0.01), 5.0, 4.0]        # per-item differences
    >>> theta = (d.sum() - d) / (d.size - 1)           # leave-one-out means
    >>> c = influence_concentration(theta, d.mean())
    >>> round(c.n_effective, 2), c.n_top, round(c.share, 3)
    (1.98, 2, 0.902)
    """
    theta = np.asarray(theta, dtype=np.float64)
    w = np.ones_like(theta) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = w > 0
    theta, w = theta[keep], w[keep]
    if strata is not None:
        strata = np.asarray(strata)[keep]
    if theta.size == 0 or not np.all(np.isfinite(theta)) or not math.isfinite(estimate):
        return None
    L = _influence(theta, w, strata)
    sq = L * L
    s2 = float(np.dot(w, sq))
    s4 = float(np.dot(w, sq * sq))
    if not (s2 > 0.0 and s4 > 0.0):
        return None
    n_units = float(w.sum())
    n_eff = s2 * s2 / s4
    n_top = max(1, int(round(n_eff)))
    # the n_top units of largest |L| (a row of multiplicity c counts c times)
    order = np.argsort(-np.abs(L), kind="stable")
    take = np.minimum(w[order], np.maximum(0.0, n_top - np.concatenate([[0.0], np.cumsum(
        w[order])[:-1]])))
    top_sum = float(np.dot(take, estimate + L[order]))
    total = n_units * float(estimate)
    share = top_sum / total if total != 0.0 else math.nan
    return Concentration(float(n_eff), int(round(n_units)), n_top, share,
                         float(np.dot(take, sq[order])) / s2, float(estimate))


def is_concentrated(concentration, n_discordant):
    """Whether a :class:`Concentration` is below both limits (``None``: no)."""
    if concentration is None:
        return False
    n_eff = concentration.n_effective
    return n_eff < N_EFFECTIVE_MIN and n_eff < DISCORDANT_RATIO * max(int(n_discordant), 1)


def paired_concentration(paired):
    """:func:`influence_concentration` of a :class:`~sigtest._engine.PairedData`'s difference.

    The leave-one-out values come from
    :func:`~sigtest._engine.resampling.jackknife_values` (closed form from the
    sufficient statistics; ``O(N)`` score calls for a metric without them
    are not made: ``None`` then).
    """
    if not paired.has_statistics:
        return None
    # the resampling package imports the kernels: loaded when first needed
    from sigtest._engine.intervals import jackknife_strata
    from sigtest._engine.resampling import jackknife_values

    with np.errstate(all="ignore"):
        theta_a, theta_b, weights = jackknife_values(paired)
        return influence_concentration(np.asarray(theta_b) - np.asarray(theta_a),
                                       float(paired.delta), weights, jackknife_strata(paired))


def concentration_sentence(concentration, unit="items"):
    """What the concentration means, for a warning or a summary line.

    Examples
    --------
    >>> c = Concentration(1.95, 100, 2, 1.007, 0.98, 0.09)
    >>> concentration_sentence(c)
    '2 of 100 items carry 100.7 % of the difference and 98 % of its variance (effective number of items 1.95)'
    """
    share = ("" if not math.isfinite(concentration.share)
             else f"{100 * concentration.share:.1f} % of the difference and ")
    return (f"{concentration.n_top} of {concentration.n_units} {unit} carry {share}"
            f"{100 * concentration.variance_share:.0f} % of its variance (effective number of "
            f"{unit} {concentration.n_effective:.3g})")
