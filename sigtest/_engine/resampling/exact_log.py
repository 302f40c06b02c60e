r"""The exact permutation p-value in log space, for p-values below the double range.

The exact paired-permutation distribution (:func:`~sigtest._engine.resampling.
permutation.exact_permutation_sums`) gives every swap pattern its probability
in linear space; with more than about 1,075 discordant items going mostly one
way, the probabilities of the patterns as extreme as the observed one
underflow and the p-value is 0 in double precision (it is then reported as
the smallest positive double). :func:`exact_permutation_log10_pvalue`
recomputes :math:`\log_{10} p` without underflow:

* enumerated patterns: the log-probability of each pattern is the sum over
  the groups of :math:`\log \mathrm{Binomial}(k_g; n_g, 1/2)`;
* the lattice shortcut (one integer statistic varies, e.g. accuracy): by
  exponential tilting. For any :math:`\theta`,

  .. math:: P(S = s) = M(\theta)\, e^{-\theta s}\, P_\theta(S = s), \qquad
            M(\theta) = \prod_g \Big(\frac{1 + e^{\theta d_g}}{2}\Big)^{n_g},

  where under :math:`P_\theta` the swap counts are
  :math:`K_g \sim \mathrm{Binomial}(n_g, q_g)` with
  :math:`q_g = e^{\theta d_g} / (1 + e^{\theta d_g})`: an exact identity.
  :math:`\theta` is chosen so that the tilted distribution is centred on
  the least extreme pattern of each tail, where its probabilities are of
  order :math:`1/\sqrt{\mathrm{Var}_\theta S}` instead of :math:`2^{-d}`, so
  the same convolution gives every tail probability's logarithm (Siegmund
  1976's importance sampling identity, used here exactly).

References
----------
Siegmund (1976). Importance sampling in the Monte Carlo study of sequential
tests. Annals of Statistics 4(4).
"""

from __future__ import annotations

import math

import numpy as np

from sigtest._engine import kernels_exact as _kernels_exact
from sigtest._engine.pvalues import as_extreme, tie_tolerance
from sigtest._engine.resampling.permutation import (
    _MAX_EXACT_CELLS,
    _discordant,
    _enumeration_fits,
    exact_groups,
    lattice_pmf,
    lattice_steps,
)

__all__ = ["exact_permutation_log10_pvalue"]


def exact_permutation_log10_pvalue(paired, alternative, *, mid_p=False, discordant=None,
                                   max_patterns=2**20):
    r""":math:`\log_{10}` of the exact paired-permutation p-value, computed in log space.

    The same enumeration, the same "as extreme" rule (ties within
    :func:`~sigtest._engine.pvalues.tie_tolerance`) and the same mid-p as
    :func:`~sigtest._engine.pvalues.permutation_pvalue` on
    :func:`~sigtest._engine.resampling.permutation.exact_permutation_sums`,
    with every probability kept as a logarithm (see the module text), so
    the value is finite where the p-value underflows.

    Parameters
    ----------
    paired : PairedData
        With sufficient statistics.
    alternative : {"two-sided", "greater", "less"}
    mid_p : bool, default=False
    discordant : DiscordantRows or None, default=None
        :func:`~sigtest._engine.resampling.permutation.discordant_rows` of
        ``paired`` (None: computed here).
    max_patterns : int, default=2**20
        As :func:`~sigtest._engine.resampling.permutation.exact_permutation_sums`.

    Returns
    -------
    float
        :math:`\log_{10} p`; ``nan`` when the distribution is too large to
        enumerate or the observed difference is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> y = np.zeros(1200, int)  # A wrong, B right on all 1200 items
    >>> paired = prepare_paired(y, np.ones(1200, int), y, get_metric("accuracy"))
    >>> round(exact_permutation_log10_pvalue(paired, "two-sided"), 4)  # 2**-1199
    -360.935
    """
    from scipy.special import logsumexp
    from scipy.stats import binom  # lazy: scipy.stats is slow to import

    discordant = _discordant(paired, discordant)
    s = paired.n_statistics
    t = float(paired.statistic)
    limit = min(int(max_patterns), _MAX_EXACT_CELLS // max(s, 1))
    cells = exact_groups(paired, discordant, limit, np.inf)
    if cells is None or not math.isfinite(t):
        return math.nan
    groups, counts, cols = cells
    if groups.shape[0] == 0:  # a single pattern: p = 1
        return 0.0
    steps = lattice_steps(groups, counts, limit)
    if steps is not None:
        d = steps[0]
        low = int(np.minimum(0, d * counts).sum())
        values = np.arange(low, low + steps[2], dtype=np.float64)
        red = values[:, None]
    elif _enumeration_fits(counts, limit, np.inf, s):
        red, log_prob = _pattern_log_probs(groups, counts, binom)
    else:
        return math.nan
    swapped = np.zeros((red.shape[0], s))
    swapped[:, cols] = red
    sums_a, sums_b = paired.totals()
    with np.errstate(invalid="ignore", divide="ignore"):
        t_star = np.asarray(paired.orient(paired.deltas(sums_a + swapped, sums_b - swapped)),
                            dtype=np.float64)
    hit, more = as_extreme(t_star, t, alternative, tie_tolerance(paired))
    if steps is not None:
        log_prob = _tilted_log_probs(d, counts, values, hit, binom)
    if mid_p:
        terms = np.concatenate([log_prob[more], log_prob[hit & ~more] - math.log(2.0)])
    else:
        terms = log_prob[hit]
    if terms.size == 0:
        return -math.inf
    return float(min(0.0, logsumexp(terms) / math.log(10.0)))


def _pattern_log_probs(groups, counts, binom):
    """Swapped sums and log-probabilities of every pattern (group 0 fastest).

    The sums come from the enumeration kernel; the log-probability of a
    pattern is ``sum_g log Binomial(k_g; n_g, 1/2)``, decoded in the
    kernel's mixed radix.
    """
    radix = counts + 1
    pmf = np.concatenate([binom.pmf(np.arange(c + 1), c, 0.5) for c in counts.tolist()])
    offsets = np.concatenate([[0], np.cumsum(radix)[:-1]]).astype(np.int64)
    red, _ = _kernels_exact.exact_swap_sums(np.ascontiguousarray(groups), counts, pmf,
                                            offsets)
    pattern = np.arange(red.shape[0], dtype=np.int64)
    log_prob = np.zeros(red.shape[0])
    for g, c in enumerate(counts.tolist()):
        k = pattern % radix[g]
        pattern = pattern // radix[g]
        log_prob += binom.logpmf(np.arange(c + 1), c, 0.5)[k]
    return red, log_prob


def _tilted_log_probs(d, counts, values, hit, binom):
    r"""``log P(S = value)`` on the lattice, exact in each tail that holds a hit.

    The upper tail (values at or above the centre of the symmetric
    distribution) is tilted to :math:`\theta \ge 0` centred on its least
    extreme hit, the lower tail to :math:`\theta \le 0`; tails without a
    hit are left at ``-inf`` (they do not enter the p-value).
    """
    n = counts.astype(np.float64)
    df = d.astype(np.float64)
    s_min = float(np.minimum(0.0, df * n).sum())
    s_max = float(np.maximum(0.0, df * n).sum())
    centre = 0.5 * (s_min + s_max)
    log_prob = np.full(values.size, -np.inf)
    for upper in (True, False):
        side = values >= centre if upper else values < centre
        tail = hit & side
        if not tail.any():
            continue
        s0 = values[tail].min() if upper else values[tail].max()
        # inside the range, so that a finite theta reaches it (all items one way:
        # half an item short of the end, where P_theta(end) is about e^-1/2)
        target = min(max(s0, s_min + 0.5), s_max - 0.5) if s_max - s_min > 1 else centre
        theta = _tilt(df, n, target, centre)
        q = 0.5 * (1.0 + np.tanh(0.5 * theta * df))  # e^(theta d) / (1 + e^(theta d))
        low, pmf = lattice_pmf(d, counts, binom, q.tolist())
        log_m = float(np.sum(n * (np.logaddexp(0.0, theta * df) - math.log(2.0))))
        with np.errstate(divide="ignore"):
            lp = np.log(pmf) + log_m - theta * values
        log_prob[side] = lp[side]
    return log_prob


def _tilt(d, n, target, centre):
    r"""The :math:`\theta` at which :math:`E_\theta S = \sum_g n_g d_g q_g(\theta)` is ``target``.

    :math:`E_\theta S` increases with :math:`\theta` from ``s_min`` to
    ``s_max`` through ``centre`` at 0; Brent's method on a bracket found by
    doubling.
    """
    from scipy.optimize import brentq

    if target == centre:
        return 0.0

    def excess(theta):
        return float(np.sum(n * d * 0.5 * (1.0 + np.tanh(0.5 * theta * d)))) - target

    sign = 1.0 if target > centre else -1.0
    bound = sign
    while excess(bound) * sign < 0:
        bound *= 2.0
    lo, hi = sorted((0.0, bound))
    return brentq(excess, lo, hi, xtol=1e-14, rtol=1e-12)
