r"""Max-T adjusted p-values of a family of differences from their joint bootstrap.

For ``m`` hypotheses :math:`H_j: \delta_j = 0` with observed differences
:math:`\delta_j` and bootstrap differences :math:`\delta^*_{bj}` computed on
the *same* resamples ``b = 1..B`` for every ``j`` (shared draws: the joint
distribution of the family), the studentized statistics are

.. math:: t_j = \delta_j / \widehat{se}_j, \qquad
          t^*_{bj} = (\delta^*_{bj} - \delta_j) / \widehat{se}_j,

with :math:`\widehat{se}_j` the standard deviation of :math:`\delta^*_{\cdot j}`
(``ddof=1``); two-sided tests use :math:`|t|` and :math:`|t^*|`,
``"greater"`` :math:`t` and ``"less"`` :math:`-t` (the centred bootstrap
statistics likewise). With the statistics sorted decreasingly,
:math:`t_{(1)} \ge \dots \ge t_{(m)}`, and
:math:`M^*_{bj} = \max_{l \ge j} t^*_{b(l)}` (the maximum over the
hypotheses not yet rejected at step ``j``), the step-down adjusted p-values
are (Westfall & Young 1993, Algorithm 2.8; Romano & Wolf 2005, Algorithm
3.1 with :math:`\hat p` in place of the critical values)

.. math:: \tilde p_{(j)} = \max_{i \le j}
          \frac{1 + \#\{b: M^*_{bi} \ge t_{(i)}\}}{B + 1},

and the single-step ones use :math:`M^*_{b1}` (the maximum over all ``m``)
for every hypothesis. Rejecting :math:`\tilde p_j \le \alpha` controls the
family-wise error rate asymptotically under any dependence between the
differences (Romano & Wolf 2005, Theorem 3.1), and the step-down version
rejects at least what the single-step one does. Ties of :math:`t` get the
same adjusted p-value whatever their order, so the result does not depend on
the order of the hypotheses.

Cost: ``O(B m)`` (a running maximum per resample), in blocks of resamples so
that memory stays ``O(block m)``; the ``B`` draws themselves are shared by
the family (:mod:`sigtest._engine.shared`), so a comparison of ``k`` systems
costs ``O(B k N)`` for the draws, not one bootstrap per pair.

Few resamples: each :math:`\widehat{se}_j` is estimated from the ``B``
draws, with a relative error of about :math:`1/\sqrt{2B}`. The observed
:math:`t_j` carry that noise, the resampled :math:`t^*_{bj}` (standardized by
the same draws) do not, and the maximum over many hypotheses sits far in the
tail, where a few percent of scale matter: for a critical value :math:`c`
the family-wise error grows by a factor of about :math:`\exp(c^4 / 4B)`
(with the true standard errors the excess disappears). Measured under the
complete null (``benchmarks/bench_maxt_resamples.py``): 30 exchangeable
systems (435 pairs) at ``B = 199`` reject in 6.8-8.6 % of the data sets
instead of 5 %. :func:`maxt_min_resamples` is the smallest ``B`` that keeps
the factor below 1.05; :func:`sigtest.compare` draws at least that many
for its max-T step.

Degenerate columns: a hypothesis whose bootstrap differences have no spread
(:math:`\widehat{se}_j = 0`, e.g. two systems with identical predictions)
has no studentized statistic: it gets :math:`\tilde p_j = 1` and takes no
part in the maxima (reported in ``degenerate``). Resamples where some
difference is not finite (a metric undefined on that resample) are dropped
for the whole family (their count is ``n_dropped``), so every hypothesis is
judged on the same resamples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MAXT_EXCESS", "MaxTResult", "maxt_min_resamples", "maxt_pvalues", "maxt_result",
           "studentized_order"]

#: Resamples per block of the running maxima (memory ``block * m`` floats).
_BLOCK = 512

_ALTERNATIVES = ("two-sided", "greater", "less")

#: Largest relative excess of the family-wise error over alpha that
#: :func:`maxt_min_resamples` allows (5 %: 0.0525 at alpha = 0.05).
MAXT_EXCESS = 0.05


def maxt_min_resamples(n_hypotheses, alpha=0.05):
    r"""Smallest number of resamples at which max-T holds its family-wise level.

    With :math:`c = \Phi^{-1}(1 - \alpha / 2m)` (Bonferroni's two-sided
    critical value for :math:`m` hypotheses, an upper bound of the max-T
    one), the studentization noise inflates the family-wise error by about
    :math:`\exp(c^4 / 4B)` (module text); keeping it within
    :data:`MAXT_EXCESS` needs

    .. math:: B \ge \frac{c^4}{4 \log(1 + 0.05)},

    rounded up so that :math:`B + 1` is a multiple of 100 (then
    :math:`\alpha (B + 1)` is an integer for :math:`\alpha` = .05 or .01
    and the Monte Carlo p-value has a level-:math:`\alpha` event).
    Measured (``benchmarks/bench_maxt_resamples.py``, see
    ``docs/leaderboards.md``): under the complete null the family-wise
    error at this ``B`` is .049-.057 (Monte Carlo error about .0035) for 3
    to 1,225 pairs, where 199 resamples gave .059 at 45 pairs, .068 at 435
    and .085 at 1,225.

    Parameters
    ----------
    n_hypotheses : int
        Number :math:`m` of hypotheses (pairs) of the family.
    alpha : float, default=0.05
        The family-wise level.

    Returns
    -------
    int

    Examples
    --------
    >>> maxt_min_resamples(1), maxt_min_resamples(45), maxt_min_resamples(435)
    (99, 599, 1199)
    """
    from scipy.special import ndtri  # lazy: scipy is slow to import

    m = max(int(n_hypotheses), 1)
    c = float(-ndtri(float(alpha) / (2.0 * m)))
    need = c ** 4 / (4.0 * np.log1p(MAXT_EXCESS))
    return int(np.ceil((need + 1.0) / 100.0) * 100 - 1)


@dataclass(frozen=True)
class MaxTResult:
    """Adjusted p-values of a family and what they were computed from.

    ``step_down`` and ``single_step`` are the adjusted p-values in the input
    order (NaN where ``delta`` is NaN); ``marginal`` the unadjusted
    bootstrap-t p-value of each hypothesis on the same resamples; ``t`` the
    observed statistics (sign or absolute value per ``alternative``), ``se``
    the bootstrap standard errors; ``max_stat`` the per-resample maximum
    :math:`M^*_{b1}` over the family (its quantile ``1 - alpha`` is the
    critical value of simultaneous intervals); ``degenerate`` the mask of
    hypotheses without spread; ``n_dropped`` the resamples dropped.
    """

    step_down: np.ndarray
    single_step: np.ndarray
    marginal: np.ndarray
    t: np.ndarray
    se: np.ndarray
    max_stat: np.ndarray
    degenerate: np.ndarray
    n_dropped: int


def _column(boot, j):
    return boot[:, j] if isinstance(boot, np.ndarray) else np.asarray(boot[j], dtype=np.float64)


def maxt_pvalues(delta, boot, *, alternative="two-sided", n_threads=1):
    r"""Step-down and single-step max-T adjusted p-values (see the module docstring).

    Parameters
    ----------
    delta : array-like of shape (m,)
        Observed differences, oriented so that ``"greater"`` means large.
    boot : ndarray of shape (B, m), or a sequence of m arrays of shape (B,)
        Bootstrap differences of the ``m`` hypotheses on shared resamples
        (column ``j`` is hypothesis ``j``), oriented as ``delta``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    n_threads : int, default=1
        Threads over the blocks of resamples (the output does not depend on
        it: the counts are integers).

    Returns
    -------
    MaxTResult

    Raises
    ------
    ValueError
        Unknown ``alternative``; ``boot`` not of ``m`` columns of the same
        length ``B >= 2``.

    References
    ----------
    P. H. Westfall and S. S. Young (1993). Resampling-Based Multiple Testing.
    Wiley, Algorithm 2.8 (step-down maxT adjusted p-values).
    J. P. Romano and M. Wolf (2005). Stepwise multiple testing as formalized
    data snooping. Econometrica 73(4), 1237-1282, Algorithm 3.1.
    """
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"The 'alternative' parameter must be one of {_ALTERNATIVES}. Got {alternative!r}."
        )
    d = np.asarray(delta, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"The 'delta' parameter must be 1-D. Got shape {d.shape} instead.")
    m = d.shape[0]
    if isinstance(boot, np.ndarray):
        if boot.ndim != 2 or boot.shape[1] != m:
            raise ValueError(
                f"The 'boot' parameter must have shape (B, {m}). Got {boot.shape} instead.")
        B = boot.shape[0]
    else:
        if len(boot) != m:
            raise ValueError(f"The 'boot' parameter must hold {m} columns. Got {len(boot)}.")
        lengths = {np.shape(c) for c in boot}
        if len(lengths) != 1 or len(next(iter(lengths))) != 1:
            raise ValueError(
                "The 'boot' parameter must hold 1-D columns of one length B. Got shapes "
                f"{sorted(lengths)[:3]}.")
        B = next(iter(lengths))[0]
    if B < 2:
        raise ValueError(f"The 'boot' parameter needs at least 2 resamples. Got {B}.")

    live = np.flatnonzero(np.isfinite(d))
    keep = np.ones(B, dtype=bool)
    for j in live:  # resamples where any difference of the family is undefined
        keep &= np.isfinite(_column(boot, j))
    rows = np.flatnonzero(keep)
    n_kept = rows.size
    se = np.full(m, np.nan)
    for j in live:
        col = _column(boot, j)[rows]
        if n_kept >= 2:
            se[j] = np.std(col, ddof=1)
    t, degenerate, order = studentized_order(d, se, live, alternative)
    sign = -1.0 if alternative == "less" else 1.0
    t_sorted = t[order]
    n_used = order.size
    count_sd = np.zeros(n_used, dtype=np.int64)
    count_ss = np.zeros(n_used, dtype=np.int64)
    count_m = np.zeros(n_used, dtype=np.int64)
    max_stat = np.full(n_kept, -np.inf)
    centre, scale = d[order], se[order]

    def block_counts(start):
        """Exceedance counts of the resamples ``start:start + _BLOCK`` (integers)."""
        # a slice when no resample was dropped (no gather)
        idx = (slice(start, min(start + _BLOCK, B)) if n_kept == B
               else rows[start:start + _BLOCK])
        size = min(start + _BLOCK, n_kept) - start
        if isinstance(boot, np.ndarray):
            block = boot[idx][:, order]
        else:
            block = np.empty((size, n_used))
            for c, j in enumerate(order):
                block[:, c] = np.asarray(boot[j], dtype=np.float64)[idx]
        z = sign * (block - centre) / scale
        if alternative == "two-sided":
            z = np.abs(z)
        counts = [np.count_nonzero(z >= t_sorted, axis=0)]
        if n_used:
            # M*_{bj} = max over the hypotheses j.. (not yet rejected at step j)
            tail_max = np.maximum.accumulate(z[:, ::-1], axis=1)[:, ::-1]
            overall = tail_max[:, 0]
            counts += [np.count_nonzero(tail_max >= t_sorted, axis=0),
                       np.count_nonzero(overall[:, None] >= t_sorted, axis=0), overall]
        return counts

    starts = range(0, n_kept, _BLOCK)
    if n_threads > 1 and len(starts) > 1:
        # numpy releases the GIL on the blocks; integer counts: the same sums in any order
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=int(n_threads)) as pool:
            blocks = list(pool.map(block_counts, starts))
    else:
        blocks = map(block_counts, starts)
    for start, counts in zip(starts, blocks):
        count_m += counts[0]
        if n_used:
            count_sd += counts[1]
            count_ss += counts[2]
            max_stat[start:start + counts[3].shape[0]] = counts[3]

    return maxt_result((count_sd, count_ss, count_m), n_kept, m, live, order, t=t, se=se,
                       max_stat=max_stat, degenerate=degenerate, n_dropped=int(B - n_kept))


def studentized_order(d, se, live, alternative):
    """``(t, degenerate, order)``: the oriented statistics ``d / se`` and their order.

    ``t`` is ``nan`` where ``d`` is not ``live`` or ``se`` is not positive
    (``degenerate``: live with no spread); ``order`` lists the other
    hypotheses by decreasing ``t`` (absolute for ``"two-sided"``, negated
    for ``"less"``), stable (ties get the same adjusted p-value anyway).
    """
    m = d.shape[0]
    degenerate = np.zeros(m, dtype=bool)
    degenerate[live] = ~(se[live] > 0)
    used = live[~degenerate[live]]
    sign = -1.0 if alternative == "less" else 1.0
    t = np.full(m, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t[used] = sign * d[used] / se[used]
    if alternative == "two-sided":
        t = np.abs(t)
    return t, degenerate, used[np.argsort(-t[used], kind="stable")]


def maxt_result(counts, n_kept, m, live, order, **fields):
    """The :class:`MaxTResult` of the exceedance counts of the pairs in ``order``.

    ``counts`` are the step-down, single-step and marginal counts of the
    hypotheses in ``order`` (sorted by decreasing statistic) over ``n_kept``
    resamples; p-values are ``(1 + count) / (n_kept + 1)``, the step-down ones
    made monotone, in the input order of ``m`` hypotheses: ``nan`` where not
    ``live``, 1 for live ones outside ``order``. ``fields``: the others of
    :class:`MaxTResult`.
    """
    count_sd, count_ss, count_m = counts

    def _to_input_order(values):
        out = np.full(m, np.nan)
        out[live] = 1.0
        out[order] = np.minimum(values, 1.0)
        return out

    denom = n_kept + 1.0
    step_down = np.maximum.accumulate((1.0 + count_sd) / denom) if len(order) else count_sd
    return MaxTResult(step_down=_to_input_order(step_down),
                      single_step=_to_input_order((1.0 + count_ss) / denom),
                      marginal=_to_input_order((1.0 + count_m) / denom), **fields)
