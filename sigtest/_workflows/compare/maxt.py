r"""``compare(correction="max-t")``: the family adjusted jointly on shared bootstrap resamples.

A correction that only sees the p-values (Holm, Bonferroni) must assume the
worst dependence between them, and a Monte Carlo p-value of ``B`` resamples
cannot go below ``1 / (B + 1)``: after Holm over ``m`` pairs the smallest
adjusted p-value is ``m / (B + 1)``, which is why ``compare`` raises ``B``
with ``m`` (``default_resamples``), at a cost ``O(m B) = O(m^2)``. The max-T
procedures (Westfall & Young 1993; Romano & Wolf 2005) adjust with the joint
bootstrap distribution of the family instead: one draw of the items per
resample gives every system's score (:func:`~sigtest._workflows.compare.shared.resampled_scores`),
hence every pair's difference on the same resamples, and the adjusted
p-value of a pair is the share of resamples whose largest centred
studentized difference over the pairs not yet rejected reaches the pair's
statistic (:func:`sigtest._engine.maxt.maxt_pvalues`). Its smallest value is
``1 / (B + 1)`` whatever ``m``, so ``B`` stays fixed (9,999) and the cost
grows like the number of systems, plus ``O(B m)`` for the maxima.

Few resamples make max-T liberal: each pair is studentized by the standard
deviation of its ``B`` bootstrap differences, whose noise inflates the
family-wise error (30 null systems, 435 pairs, ``B = 199``: 6.8-8.6 % at
alpha = 0.05). A family of ``m`` pairs is therefore adjusted on at least
``maxt_min_resamples(m, alpha)`` draws (:func:`sigtest._engine.maxt.maxt_min_resamples`:
1,199 for 435 pairs at alpha = 0.05); when its test brought fewer (e.g.
``BCaInterval(n_resamples=199)``), the max-T step draws that many on the
comparison's shared seed, and the test keeps its own for its p-value and
interval.

``correction="auto"`` (the default of :func:`sigtest.compare`) is Holm,
except with ``test=None`` for a family of more than 50 pairs that is too
large for Holm's rule to keep ``B = 9999`` (``m > max(50, 1000 alpha)``,
i.e. 51 pairs or more at ``alpha = 0.05``) on at least 10,000 items (or
clusters) when every metric has sufficient statistics: then it is the
step-down max-T correction and the default test is the BCa interval
(its p-value and interval from the shared resamples the max-T correction
uses), without the permutation test.

The ``pvalue`` column keeps the test's own marginal p-value; ``pvalue_adj``
is ``max(max-T adjusted p-value, pvalue)``: rejecting needs both, a subset
of the max-T rejections, so the family-wise error stays at ``alpha`` and an
adjusted p-value is never below its raw one.
"""

from __future__ import annotations

import warnings

import joblib
import numpy as np

from sigtest._engine.design import check_design
from sigtest._engine.maxt import maxt_min_resamples, maxt_pvalues
from sigtest._engine.maxt_pairs import maxt_pairs_pvalues
from sigtest._workflows.compare.checks import (
    MARGIN_ALTERNATIVES,
    check_metrics,
    count_pairs,
    check_tests,
    default_resamples,
)
from sigtest._engine.shared_job import resampled_scores, system_data
from sigtest._workflows.compare.shared import (
    _SHARED_TAG,
    MULTIPLIER_TAG,
    canonical_order,
    multiplier_scores,
    shared_seed,
)
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.tests_ import BCaInterval, accepts_resamples
from sigtest._constants import BOOTSTRAP_OPTIONS, MAXT_ALIASES, MAXT_CORRECTIONS, N_RESAMPLES
from sigtest.tests_._corrections import CORRECTIONS
from sigtest.utils import warn_external

__all__ = [
    "BOOTSTRAP_OPTIONS",
    "COMPARE_CORRECTIONS",
    "AUTO_MIN_UNITS",
    "MULTIPLIER_MIN_COST",
    "check_bootstrap",
    "multiplier_pays",
    "MAXT_CORRECTIONS",
    "MAXT_RESAMPLES",
    "maxt_adjusted",
    "maxt_test_specs",
    "resolve_bootstrap",
    "resolve_correction",
]


#: Every ``compare(correction=)`` name: adjust_pvalues' methods, the max-T
#: ones and ``"auto"`` (the default).
COMPARE_CORRECTIONS = (*CORRECTIONS, *MAXT_CORRECTIONS, *MAXT_ALIASES, "auto")

#: "auto" keeps Holm up to this many pairs (10 systems, all pairs), whatever alpha.
_AUTO_MIN_PAIRS = 50

#: "auto" uses max-T only from this many resampling units (items or clusters): the
#: bootstrap max-T is asymptotic, and its family-wise error was measured above
#: alpha with fewer (50 null systems: 10 % at N = 400, 7 % at N = 2,000;
#: 4.7 % at N = 10,000; see docs/leaderboards.md).
AUTO_MIN_UNITS = 10_000

#: Shared resamples of the max-T correction when no test of the family
#: brings its own (an interval test that accepts shared resamples).
MAXT_RESAMPLES = N_RESAMPLES


#: ``bootstrap="auto"`` draws Gaussian multipliers instead of resampling the
#: units for a max-T correction when one resampling pass over all systems
#: would cost more than this many unit visits, ``B x units x systems`` (about
#: 16 CPU-seconds of the count kernel at ~1.25e9 visits per second): 100
#: systems x 10^4 items x B = 10^4 (10^10) keep the resampled draws, 50
#: systems x 10^5 items (5 x 10^10) and beyond use the multiplier draws.
MULTIPLIER_MIN_COST = 2 * 10**10


def _shared_resamples(plan):
    """B of the shared bootstrap of a plan: the largest of its families' (:func:`_family_resamples`)."""
    return max((_family_resamples(ptest, itest) for _, ptest, itest, _ in plan.run_specs),
               default=MAXT_RESAMPLES)


def check_bootstrap(bootstrap):
    """``bootstrap`` if it is one of :data:`BOOTSTRAP_OPTIONS`, else a ValueError naming it."""
    if not isinstance(bootstrap, str) or bootstrap not in BOOTSTRAP_OPTIONS:
        raise ValueError(f"The 'bootstrap' parameter must be one of {BOOTSTRAP_OPTIONS}. "
                         f"Got {bootstrap!r} instead.")
    return bootstrap


def multiplier_pays(n_resamples, n_units, n_systems):
    """Whether ``"auto"`` takes the multiplier draws: ``B x units x systems > MULTIPLIER_MIN_COST``."""
    return int(n_resamples) * int(n_units) * int(n_systems) > MULTIPLIER_MIN_COST


def resolve_bootstrap(bootstrap, *, correction, plan, n_units):
    """The source of a comparison's shared bootstrap draws: ``"resample"`` or ``"multiplier"``.

    ``"auto"`` is ``"multiplier"`` for a max-T correction when
    ``B x n_units x k > MULTIPLIER_MIN_COST`` (``B`` the family's shared
    resamples, ``k`` the systems) and every metric has sufficient
    statistics, ``"resample"`` otherwise; the other values are kept.
    """
    if check_bootstrap(bootstrap) != "auto":
        return bootstrap
    if correction not in MAXT_CORRECTIONS:
        return "resample"
    if not all(m.has_statistics for m in plan.metric_objs):
        return "resample"
    pays = multiplier_pays(_shared_resamples(plan), n_units, len(plan.names))
    return "multiplier" if pays else "resample"


def _default_maxt_test(m_ci, alpha, simultaneous):
    """The default test of a max-T family: the BCa interval alone (p-value and interval)."""
    b = BCaInterval().n_resamples
    if simultaneous:
        b = default_resamples(m_ci, alpha, b)
    return BCaInterval(n_resamples=b)


def resolve_correction(correction, *, test, runs, metrics, pairs, baseline, alpha, runs_mode,
                       n_units):
    """The correction a comparison applies, and its test (the default may change with it).

    ``"auto"`` -> ``"max-t"`` with ``test=None`` for a family of more than
    50 pairs for which Holm's default resamples would exceed 9,999
    (``default_resamples(m, alpha, 9999) > 9999``: ``m > 1000 alpha``),
    on at least :data:`AUTO_MIN_UNITS` resampling units (``n_units``: items,
    or clusters with ``groups=``), when ``runs_mode`` is not ``"nested"``
    and every metric has sufficient statistics; ``"holm"`` otherwise.
    ``"romano-wolf"`` is ``"max-t"``. With a max-T correction and
    ``test=None`` the test is the BCa interval alone.

    Returns
    -------
    correction : str or None
    test : the ``test`` to plan with
    """
    correction = MAXT_ALIASES.get(correction, correction)
    if correction not in (*MAXT_CORRECTIONS, "auto"):
        return correction, test
    metric_objs = check_metrics(metrics)
    slow = [m.name for m in metric_objs if not m.has_statistics]
    if correction == "auto":
        m = count_pairs(list(runs), pairs, baseline)
        large = m > _AUTO_MIN_PAIRS and default_resamples(m, alpha, 9999) > 9999
        if (test is not None or not large or n_units < AUTO_MIN_UNITS
                or runs_mode == "nested" or slow):
            return "holm", test
        correction = "max-t"
    if runs_mode == "nested":
        raise ValueError(
            f"correction={correction!r} adjusts on bootstrap resamples of the items shared by "
            "all systems; runs='nested' resamples the runs too. Use another correction "
            "(e.g. 'holm') or runs='average'."
        )
    if slow:
        raise ValueError(
            f"correction={correction!r} resamples every system's sufficient statistics on "
            f"shared draws, but metric(s) {slow} have none; use another correction (e.g. "
            "'holm')."
        )
    if test is None:
        m = count_pairs(list(runs), pairs, baseline)
        test = _default_maxt_test(m, alpha, False)
    return correction, test


def maxt_test_specs(test, *, correction, m=1, m_ci=1, alpha=0.05, simultaneous=False,
                    runs_mode=None):
    """``check_tests`` of a comparison whose correction is ``correction`` (its default test).

    Bound to the correction with :func:`functools.partial` (picklable) and
    injected into the result, whose signature rebuilds the tests with it.
    """
    if test is None and correction in MAXT_CORRECTIONS:
        test = _default_maxt_test(m_ci, alpha, simultaneous)
    return check_tests(test, m=m, m_ci=m_ci, alpha=alpha, simultaneous=simultaneous,
                       runs_mode=runs_mode)


def _family_resamples(ptest, itest):
    """B of a family: that of its test accepting shared resamples, else MAXT_RESAMPLES."""
    for test in (itest, ptest):
        if test is not None and accepts_resamples(test):
            return int(test.n_resamples)
    return MAXT_RESAMPLES


def _raw_alternative(ptest, greater_is_better, sname):
    """The alternative on the raw differences ``B - A`` ("greater": B better)."""
    params = ptest.get_params(deep=False) if hasattr(ptest, "get_params") else {}
    alt = params.get("alternative", "two-sided")
    if alt in MARGIN_ALTERNATIVES:
        raise ValueError(
            f"Test {sname!r}: a max-T correction tests differences against 0, not "
            f"alternative={alt!r} with a margin; use another correction (e.g. 'holm')."
        )
    if alt not in ("greater", "less") or greater_is_better:
        return alt
    return "less" if alt == "greater" else "greater"


def _supplied_columns(shared, plan, family, pair_index, B):
    """The pairs' shared bootstrap differences already drawn for their tests, or None."""
    r, mi, si = family
    columns = []
    for p in pair_index.tolist():
        key = (r, mi, p, si)
        supplied = shared[plan.tasks.index(r, p)]
        found = None
        for role in (1, 0):
            sd = supplied.get((key, role))
            # bootstrap differences only (not a permutation's or a posterior's)
            if sd is not None and sd.scheme == "bootstrap" and sd.deltas.shape == (B,):
                found = sd.deltas
                break
        if found is None:
            return None
        columns.append(found)
    return columns


def _supplied_scores(shared, plan, family, pair_index, B):
    """``(scores (k, B), pairs (m, 2))`` when every pair's test ran on one shared array, or None.

    The array and the rows ``(i, j)`` :func:`_supplied_columns` would take
    the differences of (the same preference: the interval test's draws,
    then the p-value test's), for :func:`maxt_pairs_pvalues`. The pairs of
    a ``family`` share their (run, metric, test), hence the draws their
    tests consumed (:meth:`SharedSupplies.supply`): one look-up per family,
    and each pair's rows are its canonical systems.
    """
    if not pair_index.shape[0]:
        return None
    r, mi, si = family
    for role in (1, 0):
        found = shared.supply(r, mi, si, role)
        if found is not None and found[2] == "bootstrap" and found[0].shape[1:] == (B,):
            break
    else:
        return None
    array = found[0]
    if not np.all(np.isfinite(array)):
        return None
    return array, _family_pairs(plan, pair_index)


def _family_pairs(plan, pair_index):
    """``(m, 2)``: the canonical systems ``(i, j)`` of each pair index."""
    canon = np.asarray(plan.canon, dtype=np.int64).reshape(-1, 2)
    # column-major: each column is contiguous, so maxt_pairs_pvalues reads I and J
    # without copies (1,000 systems: 8 MB)
    pairs = np.empty((pair_index.shape[0], 2), dtype=np.int64, order="F")
    pairs[:, 0], pairs[:, 1] = canon[pair_index, 0], canon[pair_index, 1]
    return pairs


def _family_pvalues(plan, family, pair_index, d, shared, B, scores_of, alternative, n_threads):
    """The :class:`MaxTResult` of one ``family`` ``(run, metric index, test index)``.

    ``pair_index``: its pairs (``(m,)``), their deltas ``d``. From the
    systems' scores when the family's differences are those of one finite
    score matrix (:func:`maxt_pairs_pvalues`: no ``B x m`` columns are
    built), else from the columns (:func:`maxt_pvalues`); the same result
    either way. ``scores_of()``: the max-T step's own draws ``(B, k)``.
    """
    found = _supplied_scores(shared, plan, family, pair_index, B)
    if found is None:
        columns = _supplied_columns(shared, plan, family, pair_index, B)
        if columns is None:
            T = scores_of()
            pairs = _family_pairs(plan, pair_index)
            if np.all(np.isfinite(T)):
                found = T.T, pairs
            else:
                columns = [T[:, j] - T[:, i] for i, j in pairs]
        if found is None:
            return maxt_pvalues(d, columns, alternative=alternative, n_threads=n_threads)
    return maxt_pairs_pvalues(d, found[0], found[1], alternative=alternative,
                              n_threads=n_threads)


def _run_scores(plan, r, B, threads, cache, bootstrap="resample"):
    """``{metric index: T (B, k)}`` of run ``r`` on the comparison's shared draws.

    ``bootstrap="multiplier"``: the Gaussian multiplier draws
    (:func:`~sigtest._workflows.compare.shared.multiplier_scores`, the systems
    in sorted-name order; ``cache["multiplier_used"]`` is then set), else,
    and for a metric whose influence values are too concentrated for them,
    the resampled ones.
    """
    if (r, B) in cache:
        return cache[r, B]
    view, kwargs_of = plan.tasks.view(r), {}
    for key, metric, kwargs, *_ in plan.tasks.jobs(r):
        kwargs_of.setdefault(key[1], (metric, kwargs))
    order = sorted(kwargs_of)
    k = len(plan.names)
    kwargs = kwargs_of[order[0]][1]
    found = {}
    if bootstrap == "multiplier":
        n = next(iter(view.values()))[0].shape[0]
        design = check_design(kwargs.get("groups"), kwargs.get("strata"), n)
        scores = multiplier_scores(view, [kwargs_of[mi] for mi in order], design, B,
                                   shared_seed(plan.scores["seed"], MULTIPLIER_TAG, r),
                                   canonical_order(plan.names))
        # None: influence values too concentrated for the Gaussian draws (resampled below)
        found = {mi: sc for mi, sc in zip(order, scores) if sc is not None}
        if found:
            cache["multiplier_used"] = True
            cache.setdefault("multiplier_metrics", set()).update((r, B, mi) for mi in found)
        order = [mi for mi in order if mi not in found]
        if not order:
            cache[r, B] = found
            return found
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pair tests give the metric's warnings
        data = [[system_data(view, s, *kwargs_of[mi]) for s in range(k)] for mi in order]
    design = check_design(kwargs.get("groups"), kwargs.get("strata"), data[0][0].n_samples)
    seed = shared_seed(plan.scores["seed"], _SHARED_TAG, r)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        scores = resampled_scores(data, design, B, seed, threads=threads)
    cache[r, B] = {**found, **dict(zip(order, scores))}
    return cache[r, B]


def _families(table):
    """The rows of each ``(run, metric, test)`` family, grouped as ``sorted(keys)`` would.

    ``table`` holds the keys ``(run, metric index, pair index, test index)``
    as an ``(n, 4)`` int array (distinct rows). Returns ``{(run, metric
    index, test index): positions}``: the positions in ``table`` of the
    family's rows sorted by pair index (the keys of one family differ only
    by it), the families in the order of their first sorted key. No tuple
    per row (499,500 at 1,000 systems).
    """
    table = np.asarray(table, dtype=np.int64).reshape(-1, 4)
    if not table.shape[0]:
        return {}
    order = np.lexsort((table[:, 2], table[:, 3], table[:, 1], table[:, 0]))
    family = table[order][:, [0, 1, 3]]
    bounds = np.flatnonzero(np.r_[True, (family[1:] != family[:-1]).any(axis=1), True])
    groups = [(tuple(family[s].tolist()), order[s:e]) for s, e in zip(bounds[:-1], bounds[1:])]
    groups.sort(key=lambda g: (g[0][0], g[0][1], int(table[g[1][0], 2]), g[0][2]))
    return dict(groups)


def maxt_adjusted(plan, out, shared, correction, n_jobs, bootstrap="resample", *, alpha=0.05,
                  drawn=None):
    """Max-T adjusted p-values of every row of a comparison, per (run, metric, test) family.

    Parameters
    ----------
    plan : ComparePlan
    out : PairRows
        The rows of the pair tasks
        (:class:`~sigtest._workflows.compare.pair_rows.PairRows`), keyed
        ``(run, metric index, pair index, test index)``, each pair in its
        canonical orientation.
    shared : SharedSupplies
        Per task, the shared bootstrap differences its tests got
        (:func:`~sigtest._workflows.compare.shared.shared_deltas`):
        reused when a family's test ran on them, drawn otherwise (the same
        seed and kernel, so the same differences).
    correction : {"max-t", "max-t-single-step"}
    n_jobs : int or None
        Threads of the resampling kernel (the output does not depend on it).
    bootstrap : {"resample", "multiplier"}, default="resample"
        Source of the draws of a family whose test did not consume shared
        ones (:func:`resolve_bootstrap`).
    alpha : float, default=0.05
        The comparison's level: a family is adjusted on at least
        ``maxt_min_resamples(m, alpha)`` draws for its ``m`` pairs (drawn
        here, on the comparison's shared seed, when its test used fewer).
    drawn : dict, optional
        Filled with the draws made here: ``(run, metric index) -> (T, source)``,
        ``T`` every system's raw scores ``(B, k)`` and ``source``
        ``"multiplier"`` or ``"resample"`` (kept for ``ranks()``).

    Returns
    -------
    adjusted : ndarray of shape (len(out),)
        The max-T adjusted p-value of each row of ``out``, in the order of
        its :meth:`~sigtest._workflows.compare.pair_rows.PairRows.key_table`
        (NaN where the row's delta is NaN).
    multiplier_used : bool
        Whether some family drew Gaussian multiplier draws here.
    """
    table, delta = out.key_table(), out.column("delta")
    families = _families(table)
    threads = joblib.effective_n_jobs(n_jobs) > 1
    cache, notes = {}, []
    adjusted = np.full(table.shape[0], np.nan)
    for (r, mi, si), rows in families.items():
        pair_index = table[rows, 2]
        sname, ptest, itest, _ = plan.run_specs[si]
        metric = plan.metric_objs[mi]
        alternative = _raw_alternative(ptest, metric.greater_is_better, sname)
        # few resamples make max-T liberal (the noise of the bootstrap standard
        # errors): the test's own draws only when they are enough for the family
        B = max(_family_resamples(ptest, itest), maxt_min_resamples(len(rows), alpha))
        res = _family_pvalues(
            plan, (r, mi, si), pair_index, delta[rows], shared, B,
            lambda: _run_scores(plan, r, B, threads, cache, bootstrap)[mi], alternative,
            joblib.effective_n_jobs(n_jobs) if threads else 1)
        p = res.step_down if correction == "max-t" else res.single_step
        adjusted[rows] = p
        if res.degenerate.any() or res.n_dropped:
            notes.append((f"{metric.name}, {sname}" + (f", run {r}" if plan.multi else ""),
                          int(res.degenerate.sum()), res.n_dropped, B))
    for where, n_deg, n_drop, B in notes:
        text = []
        if n_deg:
            text.append(f"{n_deg} pair(s) have bootstrap differences without spread (e.g. "
                        "identical predictions): their adjusted p-value is 1")
        if n_drop:
            text.append(f"{n_drop} of {B} shared resamples give an undefined difference "
                        "for some pair and were dropped for the whole family")
        warn_external(f"correction={correction!r} ({where}): " + "; ".join(text) + ".",
                      DegenerateDistributionWarning)
    if drawn is not None:
        gauss = cache.get("multiplier_metrics", set())
        for key, scores in cache.items():
            if isinstance(key, tuple):
                for mi, T in scores.items():
                    if (key[0], mi) not in drawn or drawn[key[0], mi][0].shape[0] < key[1]:
                        drawn[key[0], mi] = (T, "multiplier" if (*key, mi) in gauss
                                             else "resample")
    return adjusted, bool(cache.get("multiplier_used", False))
