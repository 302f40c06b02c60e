"""Small samples: discordant items, the sign-test floor of a p-value, the warning.

Only the discordant items (A and B differ) carry information about which
system is better; with :math:`d` of them no test valid conditionally on the
discordant set can give a p-value below the exact sign test with all
:math:`d` items one way. The bootstrap tests floor their p-values there and
warn (:class:`~sigtest.SmallSampleWarning`) below measured limits.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import SmallSampleWarning
from ..utils import warn_external

__all__ = [
    "BCA_SMALL_SAMPLE_LIMITS",
    "BK_SMALL_SAMPLE_LIMITS",
    "FEW_CLUSTERS",
    "discordant_count",
    "discreteness_floor",
    "point_mass_pvalue",
    "small_sample_reasons",
    "warn_small_sample",
]


def discordant_count(paired):
    """Number ``d`` of discordant items: items whose A and B per-item statistics differ.

    Parameters
    ----------
    paired : PairedData

    Returns
    -------
    d : int
        Clustered data (``groups=``): the number of clusters in which A and
        B differ (rows are clusters, so the rules below count clusters).
        Compressed hard labels: the summed counts of the cells whose A and B
        statistics rows differ. Generic path: the rows of
        ``D = stats_b - stats_a`` with a nonzero entry (a zero sample weight
        makes a row concordant). Slow path (no statistics): the items whose
        predictions differ (any entry of a soft row), among those of nonzero
        weight.

    Notes
    -----
    Only discordant items move under a paired permutation, so any test that
    is valid conditionally on the discordant set has at most ``2**d``
    equally likely outcomes and cannot give a p-value below ``2**-d``
    (one-sided) or ``2**(1 - d)`` (two-sided): the exact sign test with all
    ``d`` items going one way. The bootstrap tests floor their p-values at
    that bound.

    Examples
    --------
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine.paired import prepare_paired
    >>> paired = prepare_paired([0, 0, 0], [1, 1, 0], [0, 0, 0], get_metric("accuracy"))
    >>> discordant_count(paired)
    2
    """
    if paired.stats_a is not None:
        rows = paired.discordant_rows()
        if paired.counts is not None:
            return int(np.rint(paired.counts[rows].sum()))
        return int(np.count_nonzero(rows))
    if paired.data is None:
        raise ValueError("The slow path needs the raw data; this PairedData holds only "
                         "statistics.")
    _, a, b, w = paired.data
    a, b = np.asarray(a), np.asarray(b)
    differ = a != b
    if differ.ndim > 1:
        differ = differ.reshape(differ.shape[0], -1).any(axis=1)
    if w is not None:
        differ &= np.asarray(w) != 0
    if paired.item_groups is not None:  # clustered: discordant clusters
        return int(np.unique(paired.item_groups[differ]).shape[0])
    return int(np.count_nonzero(differ))


# Below these limits the bootstrap tests warn (SmallSampleWarning): (minimum N,
# minimum number of discordant items). Measured by
# benchmarks/bench_small_samples.py (tables in docs/which_test.md): above them
# the size at alpha = .05 stayed <= ~.06 and the BCa coverage >= ~.94.
BK_SMALL_SAMPLE_LIMITS = (20, 8)
BCA_SMALL_SAMPLE_LIMITS = (30, 20)


def discreteness_floor(n_discordant, alternative):
    r"""Smallest p-value a test conditional on the discordant items can give.

    With :math:`d` discordant items a paired permutation has at most
    :math:`2^d` equally likely outcomes; the most extreme one (all :math:`d`
    items favour the same system) has probability :math:`2^{-d}`, so

    .. math:: p \ge 2^{-d} \ (\text{one-sided}), \qquad
              p \ge \min(1, 2^{1-d}) \ (\text{two-sided}),

    the exact sign test (McNemar) with all items going one way. ``d = 0``
    gives 1.

    Parameters
    ----------
    n_discordant : int
        Number of discordant items (see ``discordant_count``).
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float
    """
    d = int(n_discordant)
    if d <= 0:
        return 1.0
    return float(min(1.0, 2.0 ** (1 - d) if alternative == "two-sided" else 2.0 ** (-d)))


def point_mass_pvalue(point, n_discordant, side="two-sided", null_value=0.0, atol=0.0):
    r"""p-value when every bootstrap resample gives the observed difference.

    A bootstrap distribution that is the single point :math:`t` (every
    resample equal to the observed difference) says that every item
    favours the same system by the same amount. If :math:`t` lies beyond
    the null value :math:`\theta_0` on the tested side (by more than
    ``atol``), this is the most extreme outcome a test conditional on the
    :math:`d` discordant units can see, and the p-value is the exact sign
    test's with all :math:`d` going one way,

    .. math:: p = 2^{1-d} \ (\text{two-sided}), \qquad p = 2^{-d}
              \ (\text{one-sided}),

    (:func:`discreteness_floor`): the exact permutation p-value of such data
    (every sign pattern is equally likely and only the observed one and, two
    sided, its mirror image are as extreme). The Monte Carlo floor
    :math:`1/(B+1)` does not apply: the resamples are all equal, so more of
    them would change nothing. Otherwise (the point is on the null's side:
    :math:`t = 0` for identical systems, or B worse for ``"greater"``)
    ``p = 1``.

    Parameters
    ----------
    point : float
        The difference every resample gave, on the scale of ``side`` (the
        oriented :math:`t` for Berg-Kirkpatrick's test, the raw
        :math:`\delta` for an inverted interval).
    n_discordant : int
        Number :math:`d` of discordant units (see :func:`discordant_count`).
    side : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative: :math:`\theta \ne`, :math:`>` or :math:`<` ``null_value``.
    null_value : float, default=0.0
    atol : float, default=0.0
        Differences within ``atol`` of ``null_value`` count as equal to it
        (the rounding of the scores, see
        :func:`~sigtest._engine.pvalues.tie_tolerance`).

    Returns
    -------
    float
        ``nan`` if ``point`` is not finite.

    Examples
    --------
    >>> point_mass_pvalue(1.0, 30)  # 30 of 30 items favour B: 2**-29
    1.862645149230957e-09
    >>> point_mass_pvalue(0.0, 0), point_mass_pvalue(-1.0, 30, "greater")
    (1.0, 1.0)
    """
    point = float(point)
    if not np.isfinite(point):
        return float("nan")
    gap = point - float(null_value)
    beyond = {"two-sided": abs(gap) > atol, "greater": gap > atol, "less": gap < -atol}[side]
    return discreteness_floor(n_discordant, side) if beyond else 1.0


#: Fewer clusters than this (``groups=``) make cluster-level tests unreliable:
#: the cluster bootstrap and the asymptotic tests need many clusters (Cameron,
#: Gelbach & Miller 2008 find over-rejection below ~20-50), the permutation
#: over clusters stays exact but coarse (``p >= 2**(1 - G)``).
FEW_CLUSTERS = 20


def small_sample_reasons(n_samples, n_discordant, limits, unit="items"):
    """Why the data are too few for a bootstrap test (empty list: they are not).

    ``limits`` is ``(minimum N, minimum number of discordant units)``;
    ``unit`` names the resampling unit in the messages (``"clusters"`` for
    clustered data, where ``n_samples`` and ``n_discordant`` count clusters).
    """
    min_n, min_d = limits
    reasons = []
    if n_samples < min_n:
        what = "N" if unit == "items" else "G"
        reasons.append(f"{what} = {n_samples} {unit} < {min_n}")
    if n_discordant < min_d:
        reasons.append(f"d = {n_discordant} discordant {unit} (where A and B differ) "
                       f"< {min_d}")
    return reasons


def warn_small_sample(test_name, reasons, *, floored=False):
    """Emit :class:`~sigtest.SmallSampleWarning` naming the exact permutation test.

    The warning is attributed to the first frame outside sigtest
    (:func:`sigtest.utils.warn_external`), whatever the call path.
    """
    what = "; ".join(reasons) if reasons else "few discordant items"
    tail = (" The p-value was raised to the exact sign-test bound (all discordant items "
            "going one way)." if floored else "")
    warn_external(
        f"{test_name}: the data are too few for a bootstrap test ({what}); its size can "
        f"exceed the nominal level and its interval under-cover.{tail} Use the exact "
        "permutation test, sigtest.PairedPermutation(), which is valid at any N.",
        SmallSampleWarning,
    )
