r"""Planning a comparison: power, minimum detectable effect and sample size by simulation.

``sigtest.power`` answers "was (or will) my test set be big enough?" for a
corpus-level metric, from a pilot: the gold labels and the predictions of the
baseline A on some items. It simulates test sets drawn from the pilot and a
candidate B that is better than A by ``effect`` (in the population the pilot
represents), runs the significance test on every simulated pair, and counts
how often the test detects B (Card, Henderson, Khandelwal, Jia, Mahowald &
Jurafsky 2020, "With Little Power Comes Great Responsibility", EMNLP).
:func:`minimum_detectable_effect` and :func:`sample_size` solve the inverse
questions by a monotone search on the same simulation.

The functions and their argument handling live here; the result is in
:mod:`~sigtest._workflows.power.result`, the perturbation model (how B is
built from A) and the compressed simulated pairs in
:mod:`~sigtest._workflows.power.simulator`, the runs of the simulations in
:mod:`~sigtest._workflows.power.simulate`.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from sigtest._engine import check_metric_params
from sigtest._engine.intervals import ConfidenceInterval, clopper_pearson
from sigtest._engine.rng import check_seed, resample_keys
from sigtest._workflows.power.result import PowerResult, mde_interval
from sigtest._workflows.power.simulate import simulate
from sigtest._workflows.power.simulator import Simulator
from sigtest.metrics import Metric, get_metric
from sigtest.metrics._common import fill_doc
from sigtest.utils import refused_keywords, renamed_keywords, warn_external
from sigtest.utils._param_validation import lazy, validate_params
from sigtest.tests_ import PairedPermutation, get_test

__all__ = ["DEFAULT_TEST_RESAMPLES", "check_target", "minimum_detectable_effect", "power",
           "sample_size"]

#: default number of permutations of the default test (PairedPermutation)
DEFAULT_TEST_RESAMPLES = 1000


# ----------------------------------------------------------------------------
# shared argument handling
# ----------------------------------------------------------------------------
_COMMON = {
    "y_true": ["array-like"],
    "y_pred_a": ["array-like"],
    "metric": [str, Metric],
    "test": [None, str, lazy.HasMethods(["test_paired"])],
    "n_items": [None, lazy.Interval(Integral, 2, None, closed="left")],
    "alpha": [lazy.Interval(Real, 0, 1, closed="neither")],
    "n_simulations": [lazy.Interval(Integral, 1, None, closed="left")],
    "random_state": [None, lazy.Interval(Integral, 0, 2**32 - 1, closed="both"),
                     np.random.SeedSequence, np.random.Generator, np.random.RandomState],
    "discordance": [None, lazy.Interval(Real, 0, 1, closed="right")],
    "step": [None, lazy.Interval(Real, 0, 1, closed="right")],
    "labels": ["array-like", None],
    "n_jobs": [None, Integral],
    "verbose": ["boolean"],
    "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
}


#: Keywords renamed before 1.0 (the old one raises TypeError naming the new one).
_RENAMED = {"pred_a": "y_pred_a", "interval_level": "confidence_level"}


def _check_effect(effect):
    if (isinstance(effect, bool) or not isinstance(effect, Real)
            or not math.isfinite(effect) or effect < 0):
        raise ValueError(
            "The 'effect' parameter must be a finite real >= 0: the improvement of B over A "
            f"in metric units (oriented: for a loss, the reduction). Got {effect!r} instead."
        )
    return float(effect)


#: Options of compare / .test() that the simulation cannot honour (see power's Notes).
_WHY_REFUSED = ("the power simulation draws independent, equally weighted items from the "
                "pilot (see the Notes of sigtest.power).")
_REFUSED = dict.fromkeys(("sample_weight", "groups", "strata"), _WHY_REFUSED)


def _setup(y_true, y_pred_a, metric, test, n_items, random_state, discordance, step, labels,
           metric_params, caller):
    metric = get_metric(metric)
    check_metric_params(metric, metric_params, caller=caller)
    sim = Simulator(y_true, y_pred_a, metric, labels=labels, discordance=discordance,
                     step=step, metric_params=metric_params)
    test = _check_test(test)
    n = sim.n_pilot if n_items is None else int(n_items)
    seed = check_seed(random_state)
    return metric, sim, test, n, seed


def _check_test(test):
    if test is None:
        return PairedPermutation(n_resamples=DEFAULT_TEST_RESAMPLES)
    test = get_test(test)
    alternative = getattr(test, "alternative", "two-sided") or "two-sided"
    if alternative not in ("two-sided", "greater"):
        raise ValueError(
            f"The 'test' parameter has alternative={alternative!r}; power is the probability "
            "of detecting that B is better, which needs alternative='two-sided' or 'greater'."
        )
    return test


def _result(sim, metric, test, n, effect, s, alpha, n_sims, counts, seed, level, *,
            target=None, solved_for="power", search=()):
    better, worse = counts
    effect_interval = None
    if solved_for == "effect":
        effect_interval = (mde_interval(search, target, n_sims, level)
                           if math.isfinite(effect) else ConfidenceInterval(math.nan, math.nan))
    return PowerResult(
        power=better / n_sims,
        power_interval=clopper_pearson(better, n_sims, level),
        effect=effect,
        n_items=int(n),
        alpha=float(alpha),
        n_simulations=int(n_sims),
        metric=metric.name,
        test=type(test).name or type(test).__name__,
        alternative=getattr(test, "alternative", "two-sided") or "two-sided",
        score_a=sim.score_a,
        score_b=(sim.score_a + effect if metric.greater_is_better else sim.score_a - effect)
        if not math.isnan(effect) else math.nan,
        model=sim.model(s) if s is not None else {},
        n_rejected=better,
        wrong_sign_rate=worse / n_sims,
        target_power=target,
        solved_for=solved_for,
        confidence_level=float(level),
        random_state=seed,
        search=tuple(search),
        effect_interval=effect_interval,
    )



# ----------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------
@refused_keywords(**_REFUSED)
@renamed_keywords(**_RENAMED)
@validate_params({**_COMMON, "effect": [Real]}, prefer_skip_nested_validation=True)
def power(y_true, y_pred_a, *, effect, metric="accuracy", test=None, n_items=None, alpha=0.05,
          n_simulations=1000, random_state=None, discordance=None, step=None, labels=None,
          n_jobs=None, verbose=False, confidence_level=0.95, **metric_params):
    r"""Power of a paired test to detect a system better than the pilot's by ``effect``.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Simulates ``n_simulations`` comparisons on test sets of ``n_items`` items
    drawn with replacement from the pilot ``(y_true, y_pred_a)``, each with a
    candidate B built from A by the perturbation model below so that B's
    population ``metric`` is A's plus ``effect``, runs ``test`` on each pair,
    and returns the share in which it rejects at ``alpha`` with B better
    (Card et al. 2020, Algorithm 1):

    .. math:: \widehat{\text{power}} = \frac{1}{S}\sum_{s=1}^S
              \mathbf 1\big[p_s \le \alpha \text{ and } \hat\delta_s > 0\big]

    with its Clopper-Pearson Monte Carlo interval.

    **Perturbation model, hard labels.** Items where A is wrong: B predicts
    the gold label with probability ``p_fix``, else A's label. Items where
    A is right: B predicts a wrong label with probability ``p_break`` (the
    label drawn from A's own confusions on that gold class), else the gold.
    The *discordance* (share of items on which A and B differ in
    correctness) is :math:`d = p_{fix} e + p_{break}(1 - e)`, with
    :math:`e` A's pilot error rate, and for accuracy the effect is
    :math:`\delta = p_{fix} e - p_{break}(1 - e)`. With ``discordance=None``
    B breaks a background churn of :math:`\tfrac14\min(e, 1-e)` of the items
    and fixes as many of A's errors as the effect needs (so for accuracy
    :math:`d = \delta + \tfrac12\min(e, 1-e)`; once every error is fixed,
    the churn shrinks); with ``discordance=d`` the share of fixes among the
    discordant items is what moves. For accuracy B's expected score is A's
    plus ``effect`` exactly; for other metrics (F1, precision, ...) the
    position along the model's one-parameter path is found by bisection on
    the metric of the expected statistics over the pilot (the population
    value of B), which the model moves monotonically.

    **Perturbation model, soft outputs** (probability metrics). A share
    ``discordance`` (default 1: every item) of the items changes: each
    moves toward the gold, :math:`B = (1-\lambda)Q + \lambda P`, with
    probability :math:`p_{up} = t\,d`, or away from it, :math:`B =
    (1-\lambda)Q + \lambda e_w` (:math:`w` A's most probable wrong class),
    with probability :math:`p_{down} = (1 - t)\,d`; :math:`\lambda` is
    ``step`` (default 0.2) and :math:`t` is found by bisection as above.

    Each simulated test set is a vector of counts over the model's rows
    (cells), tested as compressed :class:`~sigtest.PairedData`. Simulation
    ``s`` draws from its own counter-based stream (keys from
    ``SeedSequence(random_state)``), so the result is bit-identical for any
    ``n_jobs``, and the same ``random_state`` gives common random numbers
    across effects and sizes (used by :func:`minimum_detectable_effect` and
    :func:`sample_size`).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        Pilot gold labels (or true distributions for probability metrics).
    y_pred_a : array-like
        Pilot predictions of the baseline A (labels or probabilities).
    effect : float
        True improvement of B over A in metric units, ``>= 0`` (for a loss,
        the reduction of the loss).
    metric : str or Metric, default="accuracy"
        A registered hard-label or probability metric with statistics.
    test : None, str or SignificanceTest, default=None
        The test to run on every simulated pair; ``None``:
        ``PairedPermutation(n_resamples=1000)`` (two-sided). Its
        ``alternative`` must be ``"two-sided"`` or ``"greater"``.
    n_items : int, default=None
        Size of each simulated test set (``>= 2``); ``None``: the pilot's size.
    alpha : float, default=0.05
        Level of the test.
    n_simulations : int, default=1000
        Number of simulated comparisons.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the simulation.
    discordance : float in (0, 1], default=None
        Share of items on which A and B differ (hard: in correctness; soft:
        items whose output changes). ``None``: the defaults above.
    step : float in (0, 1], default=None
        Soft outputs only: the share of probability mass moved (``None``: 0.2).
    labels : array-like, default=None
        Label set of hard-label metrics (default: the pilot's labels).
    n_jobs : int, default=None
        Worker processes (joblib) for the simulations; results do not depend on it.
    verbose : bool, default=False
        Show a progress bar (tqdm).
    confidence_level : float, default=0.95
        Level of the Monte Carlo interval of the power.
    **metric_params
        Passed to the metric (e.g. ``zero_division=0.0``, ``pos_label=1``).

    Returns
    -------
    PowerResult
        ``power``, ``power_interval``, ``effect``, ``n_items``, ``model``, ...

    Raises
    ------
    ValueError
        ``effect`` negative or not reachable under the model (e.g. accuracy
        + effect > 1), ``n_items < 2``, ``alpha`` outside (0, 1), a test with
        ``alternative="less"``, a metric without statistics; the message
        names the parameter.
    TypeError
        An unknown keyword (neither a parameter nor a metric keyword).

    See Also
    --------
    minimum_detectable_effect : Smallest effect detected with a given power.
    sample_size : Smallest test set giving a given power.

    Notes
    -----
    The simulation treats the pilot as the population: its items are
    resampled, so the power is that of a test set like the pilot's. A
    two-sided test's rejections with B observed worse are not power; their
    share is ``wrong_sign_rate``. At ``effect=0`` the power is the test's
    rejection rate with B better: its size for ``alternative="greater"``,
    half of it for a two-sided test.

    **Options of the other entry points.** ``n_jobs`` and ``labels`` work as
    in :func:`sigtest.compare`, and ``pos_label`` (like every metric keyword)
    goes to the metric through ``**metric_params``. ``sample_weight``,
    ``groups`` and ``strata`` are refused with a ``TypeError``: the
    simulation draws independent, equally weighted items from the pilot, so
    a weighted, clustered or stratified test set would need a model of the
    weights, clusters or strata of the future test set, which the
    perturbation model does not have. The default test's
    ``n_resamples=1000`` (not sigtest's 9999) is per simulated data set:
    the power's Monte Carlo error comes from ``n_simulations``, and 1000
    permutations resolve p-values near ``alpha=0.05`` to about 0.007.

    References
    ----------
    D. Card, P. Henderson, U. Khandelwal, R. Jia, K. Mahowald, D. Jurafsky
    (2020). With Little Power Comes Great Responsibility. EMNLP.
    A. Gelman, J. Carlin (2014). Beyond power calculations: assessing type S
    (sign) and type M (magnitude) errors. Perspectives on Psychological
    Science 9(6).
    C. J. Clopper, E. S. Pearson (1934). The use of confidence or fiducial
    limits illustrated in the case of the binomial. Biometrika 26(4).

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 1000)
    >>> a = np.where(rng.random(1000) < 0.8, y, (y + 1) % 3)
    >>> res = sigtest.power(y, a, effect=0.03, n_simulations=200, random_state=0)
    >>> round(res.model["p_fix"], 3) > 0, bool(0.3 < res.power < 1)
    (True, True)
    """
    effect = _check_effect(effect)
    metric, sim, test, n, seed = _setup(y_true, y_pred_a, metric, test, n_items, random_state,
                                        discordance, step, labels, metric_params, "power")
    s = sim.solve(effect)
    keys = resample_keys(seed, n_simulations)
    counts = simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, "power")
    return _result(sim, metric, test, n, effect, s, alpha, n_simulations, counts, seed,
                   confidence_level)


# the parameters minimum_detectable_effect and sample_size share, documented once
_SEARCH_PARAMETERS = """\
    alpha : float, default=0.05
        Level of the test.
    n_simulations : int, default=1000
        Simulations per evaluated point of the search.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed, shared by every evaluation (common random numbers).
    discordance : float in (0, 1], default=None
        As in :func:`power`.
    step : float in (0, 1], default=None
        As in :func:`power` (soft outputs only).
    labels : array-like, default=None
        As in :func:`power`.
    n_jobs : int, default=None
        As in :func:`power`.
    verbose : bool, default=False
        Progress bars (tqdm), one per evaluation.
    confidence_level : float, default=0.95
        Level of the Monte Carlo interval of the power.
"""

# the target, metric and test of both searches
_TARGET_PARAMETERS = """\
    power : float, default=0.8
        Target power, in (0, 1).
    metric : str or Metric, default="accuracy"
        As in :func:`power`.
    test : None, str or SignificanceTest, default=None
        As in :func:`power` (``None``: ``PairedPermutation(n_resamples=1000)``).
"""

# the errors and the reference of both searches
_SEARCH_RAISES = """\
    Raises
    ------
    ValueError
        ``power`` outside (0, 1) and the errors of :func:`power`.
"""

_SEARCH_REFERENCES = """\
    References
    ----------
    D. Card et al. (2020). With Little Power Comes Great Responsibility. EMNLP.
"""

_search_doc = fill_doc(target_parameters=_TARGET_PARAMETERS,
                       search_parameters=_SEARCH_PARAMETERS, search_raises=_SEARCH_RAISES,
                       search_references=_SEARCH_REFERENCES)


def check_target(power_):
    if (isinstance(power_, bool) or not isinstance(power_, Real)
            or not math.isfinite(power_) or not 0 < power_ < 1):
        raise ValueError(f"The 'power' parameter must be a real in (0, 1). Got {power_!r} "
                         "instead.")
    return float(power_)


@refused_keywords(**_REFUSED)
@renamed_keywords(**_RENAMED)
@validate_params({**_COMMON, "power": [Real], "tol": [None, lazy.Interval(Real, 0, None,
                                                                          closed="neither")]},
                 prefer_skip_nested_validation=True)
@_search_doc
def minimum_detectable_effect(y_true, y_pred_a, *, power=0.8, metric="accuracy", test=None,
                              n_items=None, alpha=0.05, n_simulations=1000, random_state=None,
                              discordance=None, step=None, labels=None, n_jobs=None,
                              verbose=False, confidence_level=0.95, tol=None, **metric_params):
    r"""Smallest improvement over the pilot system that ``test`` detects with the given power.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Bisection on the effect :math:`\delta \in [0, \delta_{max}]`
    (:math:`\delta_{max}`: the largest effect the perturbation model of
    :func:`power` reaches on the pilot) for the smallest :math:`\delta`
    with simulated power :math:`\ge` ``power``. Every evaluation uses the
    same ``random_state``, hence the same simulated test sets and test
    seeds (common random numbers): as :math:`\delta` grows the items B
    fixes form a growing set and those it breaks a shrinking one, so the
    simulated power is non-decreasing in :math:`\delta` for tests whose
    decision is monotone in the discordant counts (McNemar, the exact
    permutation test on accuracy), and nearly so for Monte Carlo tests.

    Parameters
    ----------
    y_true, y_pred_a : array-like
        The pilot (see :func:`power`).
    {target_parameters}
    n_items : int, default=None
        Size of the simulated test sets (``None``: the pilot's size).
    {search_parameters}
    tol : float, default=None
        Stop when the bracket of the effect is narrower than ``tol``;
        ``None``: :math:`\delta_{max} / 256` (8 bisection steps; finer
        steps are below the Monte Carlo resolution of the power unless
        ``n_simulations`` is large).
    **metric_params
        Passed to the metric.

    Returns
    -------
    PowerResult
        ``effect`` (the minimum detectable effect; NaN with a warning when
        even :math:`\delta_{max}` has less power), ``power`` (simulated at
        that effect), ``search`` (the evaluated ``(effect, power)``).

    {search_raises}

    Warns
    -----
    UserWarning
        When no reachable effect has the target power.

    See Also
    --------
    power : Power of a test against a given effect.
    sample_size : Smallest test set giving a given power.

    {search_references}

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.8, y, 1 - y)
    >>> res = sigtest.minimum_detectable_effect(y, a, n_simulations=60, random_state=0)
    >>> bool(0.01 < res.effect < 0.2), res.power >= 0.8
    (True, True)
    """
    target = check_target(power)
    metric, sim, test, n, seed = _setup(y_true, y_pred_a, metric, test, n_items, random_state,
                                        discordance, step, labels, metric_params,
                                        "minimum_detectable_effect")
    keys = resample_keys(seed, n_simulations)
    hi = sim.max_effect()
    tol = hi / 256 if tol is None else float(tol)
    search = []
    cache = {}

    def evaluate(effect):
        s = sim.solve(effect)
        counts = simulate(sim, test, keys, n, s, alpha, n_jobs, verbose,
                           f"effect {effect:.4g}")
        cache[effect] = (s, counts)
        search.append((float(effect), counts[0] / n_simulations))
        return counts[0] / n_simulations

    if hi <= 0 or evaluate(hi) < target:
        warn_external(
            f"minimum_detectable_effect: even the largest effect the model reaches on this "
            f"pilot ({hi:.4g}) is detected with power below {target:g} on {n} items; "
            "effect is NaN (use more items or a larger discordance).", UserWarning)
        s, counts = cache.get(hi, (None, (0, 0)))
        return _result(sim, metric, test, n, math.nan, s, alpha, n_simulations, counts,
                       seed, confidence_level, target=target, solved_for="effect",
                       search=search)
    lo = 0.0
    # at effect 0 the power is the test's size (about alpha / 2 or alpha):
    # evaluated only when the target is that low
    if target <= 2 * alpha and evaluate(lo) >= target:
        hi = lo
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if evaluate(mid) >= target:
            hi = mid
        else:
            lo = mid
    s, counts = cache[hi]
    return _result(sim, metric, test, n, float(hi), s, alpha, n_simulations, counts, seed,
                   confidence_level, target=target, solved_for="effect", search=search)


@refused_keywords(**_REFUSED)
@renamed_keywords(**_RENAMED)
@validate_params({**_COMMON, "effect": [Real], "power": [Real],
                  "max_n_items": [None, lazy.Interval(Integral, 2, None, closed="left")]},
                 prefer_skip_nested_validation=True)
@_search_doc
def sample_size(y_true, y_pred_a, *, effect, power=0.8, metric="accuracy", test=None,
                alpha=0.05, n_simulations=1000, random_state=None, discordance=None,
                step=None, labels=None, n_jobs=None, verbose=False, confidence_level=0.95,
                max_n_items=None, **metric_params):
    r"""Smallest test set on which ``test`` detects an improvement of ``effect`` with the given power.

    Read more in ``docs/planning.md`` ("Planning a comparison").

    Search over the number of items :math:`n`: doubling from the pilot's
    size (or halving towards 2) to bracket the answer, then bisection on
    integers until the bracket is within 1 % (or one item). Every
    evaluation uses the same ``random_state``: simulated test set ``s`` of
    size :math:`n` is the first :math:`n` items of one stream (common
    random numbers), so a larger test set adds items to a smaller one and
    the simulated power is nearly monotone in :math:`n` (exactly only up to
    the sawtooth of discrete tests).

    Parameters
    ----------
    y_true, y_pred_a : array-like
        The pilot (see :func:`power`).
    effect : float
        The improvement to detect (metric units, ``>= 0``).
    {target_parameters}
    {search_parameters}
    max_n_items : int, default=None
        Largest size tried; ``None``: 100 times the pilot's size.
    **metric_params
        Passed to the metric.

    Returns
    -------
    PowerResult
        ``n_items`` (the sample size; ``-1`` with a warning when
        ``max_n_items`` has less power), ``power`` at that size, ``search``.

    {search_raises}

    Warns
    -----
    UserWarning
        When ``max_n_items`` items do not reach the target power.

    See Also
    --------
    power : Power of a test against a given effect.
    minimum_detectable_effect : Smallest effect detected with a given power.

    {search_references}

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> res = sigtest.sample_size(y, a, effect=0.05, n_simulations=60, random_state=0)
    >>> bool(300 < res.n_items < 5000), res.power >= 0.8
    (True, True)
    """
    effect = _check_effect(effect)
    target = check_target(power)
    metric, sim, test, n0, seed = _setup(y_true, y_pred_a, metric, test, None, random_state,
                                         discordance, step, labels, metric_params,
                                         "sample_size")
    s = sim.solve(effect)
    keys = resample_keys(seed, n_simulations)
    limit = 100 * sim.n_pilot if max_n_items is None else int(max_n_items)
    search = []
    cache = {}

    def evaluate(n):
        counts = simulate(sim, test, keys, n, s, alpha, n_jobs, verbose, f"n={n}")
        cache[n] = counts
        search.append((int(n), counts[0] / n_simulations))
        return counts[0] / n_simulations

    n = max(2, min(n0, limit))
    if evaluate(n) >= target:
        hi = n
        lo = 1
        while hi > 2:
            cand = max(2, hi // 2)
            if evaluate(cand) >= target:
                hi = cand
                if cand == 2:
                    break
            else:
                lo = cand
                break
    else:
        lo = n
        hi = None
        while lo < limit:
            cand = min(limit, 2 * lo)
            if evaluate(cand) >= target:
                hi = cand
                break
            lo = cand
        if hi is None:
            warn_external(
                f"sample_size: {limit} items (max_n_items) detect {effect:+.4g} with power "
                f"below {target:g}; n_items is -1.", UserWarning)
            return _result(sim, metric, test, -1, effect, s, alpha, n_simulations,
                           cache[lo], seed, confidence_level, target=target,
                           solved_for="n_items", search=search)
    while hi - lo > max(1, hi // 100):
        mid = (lo + hi) // 2
        if evaluate(mid) >= target:
            hi = mid
        else:
            lo = mid
    return _result(sim, metric, test, hi, effect, s, alpha, n_simulations, cache[hi], seed,
                   confidence_level, target=target, solved_for="n_items", search=search)
