"""The :class:`SignificanceTest` base class: one template, one hook."""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from numbers import Integral, Real

import numpy as np

from sigtest._engine import check_metric_params, prepare_paired
from sigtest._engine.paired import PairedData, check_decomposable
from sigtest._engine.pvalues import null_pvalue
from sigtest._engine.small_sample import FEW_CLUSTERS
from sigtest._engine.threads import numba_threads
from sigtest._results import SignificanceResult, TestOutcome
from sigtest.exceptions import SmallSampleWarning
from sigtest.metrics import as_metric
from sigtest.tests_._margins import MARGIN_ALTERNATIVES
from sigtest.utils import check_random_state_seed, warn_external
from sigtest.utils._estimator import ParamsMixin
from sigtest.utils._param_validation import lazy, validate_parameter_constraints

__all__ = ["SignificanceTest", "accepts_resamples", "shared_scheme", "warn_few_clusters"]

# Shared constraints: int seeds as numpy accepts them, SeedSequence, Generator.
_RANDOM_STATE = [
    None,
    lazy.Interval(Integral, 0, 2**32 - 1, closed="both"),
    np.random.SeedSequence,
    np.random.Generator,
    np.random.RandomState,
]
_N_JOBS = [
    None,
    lazy.Interval(Integral, 1, None, closed="left"),
    lazy.Interval(Integral, None, -1, closed="right"),
]
#: Constraints the base class applies to these parameters of any test that has
#: them and does not declare its own (see the class docstring).
_COMMON_CONSTRAINTS = {
    "alternative": [lazy.StrOptions({"two-sided", "greater", "less"})],
    "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
    "n_jobs": _N_JOBS,
    "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
    "random_state": _RANDOM_STATE,
}


def warn_few_clusters(test_name, data):
    r"""Warn (``SmallSampleWarning``) when clustered data have fewer than ``FEW_CLUSTERS`` clusters.

    With :math:`G` clusters a test that conditions on them has at most
    :math:`2^G` equally likely sign patterns (a permutation p-value is at
    least :math:`2^{1-G}` two-sided), and the asymptotic tests (t,
    chi-square, the bootstrap) over-reject below about 20-50 clusters
    (Cameron, Gelbach & Miller 2008). Returns whether it warned.
    """
    G = data.n_groups
    if G is None or G >= FEW_CLUSTERS:
        return False
    warn_external(
        f"{test_name}: only G = {G} clusters (< {FEW_CLUSTERS}); a test on clusters is "
        f"coarse (a permutation p-value is at least 2**(1 - G) = {2.0 ** (1 - G):.3g} "
        "two-sided) and the asymptotic tests (bootstrap, t, chi-square) can exceed their "
        "level with few clusters. Treat the result with caution; PairedPermutation stays "
        "exact over clusters.",
        SmallSampleWarning,
    )
    return True


def _declares_resamples(evaluate):
    """Whether an ``evaluate`` takes a ``resamples`` keyword (read from its signature)."""
    try:
        param = inspect.signature(evaluate).parameters.get("resamples")
    except (TypeError, ValueError):  # pragma: no cover - no signature
        return False
    return param is not None and param.kind in (inspect.Parameter.KEYWORD_ONLY,
                                                inspect.Parameter.POSITIONAL_OR_KEYWORD)


def shared_scheme(test):
    """The kind of resamples drawn elsewhere that ``test`` consumes, or None.

    ``"bootstrap"``: the pair's differences on full bootstrap resamples of
    the units (:class:`~sigtest.BCaInterval` except ``method="studentized"``,
    which needs every resample's own standard error;
    :class:`~sigtest.BergKirkpatrickBootstrap` with ``sample_size=1.0``);
    ``"permutation"``: permuted differences on swap vectors of the units
    (:class:`~sigtest.PairedPermutation` except ``exact=True``);
    ``"bayesian"``: posterior draws on Dirichlet weights of the units
    (:class:`~sigtest.BayesianBootstrap`).
    A test declares it with a ``resamples`` keyword of its
    :meth:`~SignificanceTest.evaluate` (read once per class) and its
    ``_shared_scheme()``; a subclass that overrides ``evaluate`` without the
    keyword consumes none. :func:`sigtest.compare` hands such a test the
    pair's differences of that kind on its shared resamples
    (``test_paired(data, resamples=SharedDeltas(..., scheme=...))``).

    Parameters
    ----------
    test : object
        A test instance (anything else gives None).

    Returns
    -------
    scheme : {"bootstrap", "permutation", "bayesian"} or None
        The kind of shared resamples the test consumes, None when it consumes none.

    Examples
    --------
    >>> from sigtest import BCaInterval, McNemar, PairedPermutation
    >>> from sigtest.tests_ import shared_scheme
    >>> shared_scheme(BCaInterval()), shared_scheme(PairedPermutation()), shared_scheme(McNemar())
    ('bootstrap', 'permutation', None)
    """
    if not (isinstance(test, SignificanceTest) and type(test)._accepts_resamples):
        return None
    return test._shared_scheme()


def accepts_resamples(test):
    """Whether ``test`` can run on resamples drawn elsewhere (:func:`shared_scheme` not None).

    Parameters
    ----------
    test : object
        A test instance (anything else gives False).

    Returns
    -------
    accepts : bool
        True when :func:`shared_scheme` of ``test`` is not None.

    Examples
    --------
    >>> from sigtest import McNemar, PairedPermutation
    >>> from sigtest.tests_ import accepts_resamples
    >>> accepts_resamples(PairedPermutation()), accepts_resamples(McNemar())
    (True, False)
    """
    return shared_scheme(test) is not None


class SignificanceTest(ParamsMixin, ABC):
    r"""Base class of paired significance tests comparing a baseline A with a candidate B.

    A test is written by subclassing it and implementing one public hook,
    :meth:`evaluate`, which receives the prepared :class:`~sigtest.PairedData`
    and an integer seed and returns a :class:`~sigtest.TestOutcome`. The base
    class owns everything else:

    * validation: :meth:`test` checks the parameters
      (``_parameter_constraints``), the inputs (lengths, hard/soft kinds,
      ``sample_weight``, ``labels``, ``groups``, ``strata``) and every
      keyword argument (one that
      neither the test nor the metric accepts raises ``TypeError``), then
      prepares the paired data once; :meth:`test_paired` starts from
      prepared data (as :func:`sigtest.compare` does);
    * ``random_state`` -> the integer seed given to :meth:`evaluate`;
    * ``n_jobs`` -> numba's thread count while :meth:`evaluate` runs;
    * orientation: :attr:`PairedData.statistic` and :meth:`PairedData.orient`
      make positive mean "B is better" (the sign flips for a loss);
      ``alternative="greater"`` means "B is better";
    * the p-value from a null distribution, when :meth:`evaluate` returns
      ``null_distribution`` without ``pvalue`` (Monte Carlo
      :math:`(c+1)/(B+1)` counting ties, exact with ``null_weights``; a
      single-point distribution gives ``p = 1`` with a
      ``DegenerateDistributionWarning``);
    * the sampling design: with ``groups=`` the prepared rows are clusters
      (their items' statistics summed), so a resampling hook resamples,
      swaps or deletes whole clusters without knowing it, and
      ``data.n_units`` is the number of resampling units; with
      ``strata=`` the engine's bootstrap resamples within strata. Fewer
      than 20 clusters warn once (``SmallSampleWarning``);
    * the :class:`~sigtest.SignificanceResult` (with ``n_groups`` and
      ``n_strata``).

    ``__init__`` of a subclass only stores its keyword arguments, so that
    ``get_params``, ``set_params`` and :func:`sklearn.base.clone` work. They
    follow scikit-learn's ``BaseEstimator`` (same semantics, same ``repr``)
    without importing scikit-learn, which would double the time of a first
    test in a new process; a test is therefore not an instance of
    ``sklearn.base.BaseEstimator``. The
    class attribute ``name`` is the test's registry key (shown in results);
    register the class with :func:`sigtest.register_test` to use it by name
    in :func:`sigtest.compare`, :func:`sigtest.cross_val_compare`,
    :class:`sigtest.Experiment` and ``sigtest compare --test NAME``.

    Parameter validation: a subclass may declare constraints for its own
    parameters in ``_parameter_constraints`` (scikit-learn's convention); the
    common parameters need none, the base class validates them whenever a
    test has them and does not declare them itself, before every run
    (``ValueError``/``TypeError`` naming the parameter):

    * ``random_state``: None, an int in ``[0, 2**32 - 1]``,
      :class:`numpy.random.SeedSequence`, :class:`numpy.random.Generator` or
      :class:`numpy.random.RandomState`;
    * ``n_jobs``: None, an int ``>= 1`` or ``<= -1``;
    * ``alternative``: ``"two-sided"``, ``"greater"`` or ``"less"``;
    * ``confidence_level``: a real in ``(0, 1)``;
    * ``n_resamples``: an int ``>= 1``;
    * ``alternative="non-inferiority"`` or ``"equivalence"`` (tests of the
      difference against a margin, inverting the test's interval; see
      :class:`~sigtest.BCaInterval` and ``docs/equivalence.md``): only for a
      test with a ``margin`` parameter (else ``ValueError`` naming
      ``alternative``), which must then be a positive real, with a
      ``confidence_level`` above 0.5; a ``margin`` with another
      alternative is refused.

    Parallelism: a parameter ``n_jobs`` (``None``: numba's parallel kernels
    with numba's thread count; ``1``: serial kernels, as ``compare`` asks for
    inside its own workers; ``k > 1``: at most ``k`` numba threads; ``-1``:
    all). Results do not depend on it (random streams are per block of
    resamples, not per thread).

    Attributes
    ----------
    name : str or None
        Registry key of the test (``None``: the class name is used).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import SignificanceTest, TestOutcome
    >>> class ItemSignFlip(SignificanceTest):
    ...     name = "item_sign_flip"
    ...     def __init__(self, *, alternative="two-sided", random_state=None):
    ...         self.alternative = alternative
    ...         self.random_state = random_state
    ...     def evaluate(self, data, random_state):
    ...         d, w = data.item_differences()
    ...         d = np.repeat(d, w.astype(int))
    ...         signs = np.random.default_rng(random_state).choice([-1, 1], (999, d.size))
    ...         raw = data.orient(signs @ d / d.size)  # raw B - A differences
    ...         return TestOutcome(null_distribution=raw)
    >>> y = np.array([0, 1] * 20)
    >>> a, b = np.where(np.arange(40) < 6, 1 - y, y), y
    >>> res = ItemSignFlip(random_state=0).test(y, a, b)
    >>> res.test, res.n_resamples, bool(res.pvalue < 0.1)
    ('item_sign_flip', 999, True)
    """

    _parameter_constraints: dict = {}
    name: str | None = None
    # True for tests whose own small-sample check covers few clusters (the
    # bootstrap tests: small_sample_reasons with unit="clusters"); the base
    # class warns for the others (one SmallSampleWarning per run).
    _warns_few_clusters: bool = False
    # True for the tests of per-item differences (sign, Wilcoxon, paired t):
    # they need a per-item decomposable metric (see _check_suits)
    _per_item: bool = False
    # True for a test that reuses each system's ranking of a ranking metric
    # (DeLong): test() prepares the data with prepare_paired(rank_once=True)
    _rank_once: bool = False
    # True when ``evaluate`` declares a ``resamples`` keyword (set once per
    # class from its signature, see shared_scheme)
    _accepts_resamples: bool = False

    def _shared_scheme(self):
        """The kind of shared resamples :meth:`evaluate` consumes (see :func:`shared_scheme`).

        Only asked of a class whose ``evaluate`` declares ``resamples``;
        ``"bootstrap"`` by default (the one kind before there were others).
        """
        return "bootstrap"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._accepts_resamples = _declares_resamples(cls.evaluate)
        # ``_name`` is the former spelling of ``name``: keep both in step
        if "name" in cls.__dict__:
            cls._name = cls.__dict__["name"]
        elif "_name" in cls.__dict__:
            cls.name = cls.__dict__["_name"]

    @classmethod
    def _get_param_names(cls):
        # scikit-learn inspects the signature of __init__ on every get_params
        # call; cache the (immutable) answer per class
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = tuple(super()._get_param_names())
            cls._param_names_cache = names
        return list(names)

    def _check_suits(self, metric):
        """``ValueError`` if this test cannot run on ``metric``, whatever the data.

        What depends on the metric alone (not on the predictions), so that
        :func:`sigtest.compare` and :func:`sigtest.cross_val_compare` refuse
        it before anything runs or is fitted; the test itself still checks
        what depends on the data.
        """
        if self._per_item:
            check_decomposable(metric)

    @abstractmethod
    def evaluate(self, data, random_state):
        """Run the test on prepared paired data: the one hook of a test.

        Parameters
        ----------
        data : PairedData
            The validated paired data: per-row (or per-cell) statistics of A
            and B, observed scores, ``statistic`` (oriented), ``orient``,
            ``item_differences()`` for per-item decomposable metrics.
        random_state : int
            Integer seed drawn by the base class from the test's
            ``random_state`` (the same seed gives the same result; recorded
            as ``params["seed"]``). A test without a ``random_state``
            parameter gets a fresh seed, recorded as ``None``: such a test
            (the classical ones) draws no random numbers.

        Returns
        -------
        TestOutcome
            The p-value and/or the null distribution (RAW differences
            ``score_b* - score_a*``; the base class computes the p-value from
            it if ``pvalue`` is ``None``), an interval, and details.
        """

    def test(self, y_true, y_pred_a, y_pred_b, *, metric="accuracy", sample_weight=None,
             labels=None, groups=None, strata=None, **metric_params):
        """Test whether the candidate B beats the baseline A on ``metric``.

        Parameters
        ----------
        y_true : array-like or None
            Hard labels of shape (n_samples,) or, for soft metrics, the true
            distributions of shape (n_samples, n_classes); ``None`` for
            per-item scores (``metric="mean"``).
        y_pred_a, y_pred_b : array-like
            Predictions of the baseline A and the candidate B, same kind as
            the metric expects (per-item scores for ``metric="mean"``).
        metric : str, Metric, callable or scorer, default="accuracy"
            A registered metric name (see :func:`sigtest.get_metric_names`),
            a :class:`~sigtest.metrics.Metric`, a function
            ``f(y_true, y_pred, **kw) -> float`` or a scikit-learn scorer
            (:func:`sigtest.as_metric`; such a metric takes the slow path,
            one call per resample).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative item weights.
        labels : array-like, default=None
            Full label set of class-averaged metrics; default: the union over
            ``y_true``, A and B, fixed once for every resample.
        groups : array-like of shape (n_samples,), default=None
            Cluster id of every item (ints or strings): items of one cluster
            (sentences of a document, turns of a dialogue) are not
            independent, so the test treats the cluster as the unit. The
            bootstrap tests resample whole clusters (the cluster bootstrap,
            Davison & Hinkley 1997, §3.8; Field & Welsh 2007) and BCa's
            acceleration comes from the delete-one-cluster jackknife; the
            permutation test swaps A and B on whole clusters (exact
            enumeration over clusters when small); the sign, Wilcoxon and
            paired t-tests run on the per-cluster metric values (the
            cluster-summary approach, Donner & Klar 2000); McNemar's test
            becomes the clustered test of Durkalski et al. (2003). ``None``:
            independent items. A single cluster raises ``ValueError``; fewer
            than 20 clusters warn (``SmallSampleWarning``).
        strata : array-like of shape (n_samples,), default=None
            Stratum id of every item (e.g. the domain or the gold class): the
            bootstrap tests resample within each stratum, keeping its size (R
            ``boot(strata=)``; with ``groups``, clusters are resampled within
            strata and each cluster must lie in one stratum). Tests that
            condition on the items (permutation, sign, Wilcoxon, McNemar)
            accept it and are unchanged; :class:`~sigtest.PairedTTest`
            refuses it (``ValueError``).
        **metric_params
            Passed to the metric (e.g. ``zero_division=0.0``). A keyword the
            metric does not accept raises ``TypeError``.

        Returns
        -------
        SignificanceResult
            Scores of A and B, ``delta = score_b - score_a``, the p-value
            (with the test's ``alternative``), the interval where the test
            gives one, the test's parameters and seed, and ``n_groups`` /
            ``n_strata`` (``None`` when not given).

        Raises
        ------
        TypeError
            For a keyword argument that neither the test nor the metric
            accepts, naming it.
        ValueError
            Bad ``groups`` or ``strata`` (not 1-D, wrong length, missing ids,
            a single cluster, a cluster spanning two strata), naming the
            parameter.

        Warns
        -----
        SmallSampleWarning
            Fewer than 20 clusters (``groups=``): cluster-level tests are
            coarse (at most :math:`2^G` sign patterns) and the asymptotic
            ones (bootstrap, t, chi-square) can exceed their level.
        """
        self._validate_params()
        metric = as_metric(metric)
        check_metric_params(metric, metric_params, caller=f"{type(self).__name__}.test")
        data = prepare_paired(
            y_true, y_pred_a, y_pred_b, metric,
            sample_weight=sample_weight, labels=labels, groups=groups, strata=strata,
            rank_once=self._rank_once, **metric_params,
        )
        return self._run(data)

    def test_paired(self, data, *, resamples=None):
        """Run the test on already prepared paired data.

        Parameters
        ----------
        data : PairedData
            From the validated input path (``prepare_paired``); what
            :func:`sigtest.compare` prepares once per (pair, metric) for its
            p-value and interval tests.
        resamples : SharedDeltas or None, default=None
            Differences of the pair on resamples drawn elsewhere (the shared
            resamples of :func:`sigtest.compare`), used instead of the
            test's own draws; only for a test whose :meth:`evaluate`
            declares ``resamples``, and of the kind it consumes
            (:func:`shared_scheme`: ``resamples.scheme``), e.g.
            :class:`~sigtest.BCaInterval` and
            :class:`~sigtest.BergKirkpatrickBootstrap` (``"bootstrap"``).

        Returns
        -------
        SignificanceResult
            The result :meth:`test` gives on the same data.

        Raises
        ------
        TypeError
            ``resamples`` given to a test that does not accept them.
        ValueError
            ``resamples`` of another kind than the test consumes.
        """
        if not isinstance(data, PairedData):
            raise TypeError(
                "The 'data' parameter of test_paired must be a PairedData (from the "
                f"validated input path). Got {type(data).__name__} instead."
            )
        if resamples is not None:
            scheme = shared_scheme(self)
            if scheme is None:
                raise TypeError(
                    f"{type(self).__name__} does not accept resamples (its evaluate has no "
                    "'resamples' parameter, or its settings need its own draws)."
                )
            got = getattr(resamples, "scheme", None)
            if got != scheme:
                raise ValueError(
                    f"The 'resamples' parameter of {type(self).__name__}.test_paired must "
                    f"carry {scheme!r} resamples. Got {got!r} ones instead."
                )
        self._validate_params()
        return self._run(data, resamples)

    def _validate_params(self):
        params = self.get_params(deep=False)
        for key in ("n_jobs", "n_resamples", "random_state"):
            if isinstance(params.get(key), (bool, np.bool_)):
                raise ValueError(
                    f"The '{key}' parameter of {type(self).__name__} must be "
                    + ("an int" if key != "random_state" else "None, an int seed, a "
                       "SeedSequence or a Generator")
                    + f", not a bool. Got {params[key]!r} instead."
                )
        self._check_margin_params(params, before=True)
        constraints = dict(self._parameter_constraints)
        for key, constraint in _COMMON_CONSTRAINTS.items():
            if key in params and key not in constraints:
                constraints[key] = constraint
        validate_parameter_constraints(constraints, params, caller_name=type(self).__name__)
        self._check_margin_params(params)

    def _check_margin_params(self, params, before=False):
        r"""The rules of ``margin`` and the margin alternatives.

        ``alternative="non-inferiority"`` or ``"equivalence"`` need a test
        with an interval (a ``margin`` parameter; checked ``before`` the
        constraints, so that the message names the tests that have one), a
        ``margin`` and a ``confidence_level`` above 1/2 (the equivalence
        test at level :math:`\alpha` uses the two-sided :math:`1 - 2\alpha`
        interval); a ``margin`` without them is refused.
        ``InvalidParameterError`` (a ``ValueError``) naming the parameter.
        """
        def error(message):  # scikit-learn's class, loaded only when raising
            from sigtest.utils import _param_validation

            return _param_validation.InvalidParameterError(message)

        name = type(self).__name__
        alternative = params.get("alternative")
        wants_margin = isinstance(alternative, str) and alternative in MARGIN_ALTERNATIVES
        if before or "margin" not in params:
            if wants_margin and "margin" not in params:
                raise error(
                    f"The 'alternative' parameter of {name} cannot be {alternative!r}: "
                    f"{name} gives no confidence interval of the difference, which "
                    "non-inferiority and equivalence tests invert. Use BCaInterval (any "
                    "metric), PairedTTest or McNemar with margin=... instead."
                )
            return
        margin = params["margin"]
        if not wants_margin:
            if margin is not None:
                raise error(
                    f"The 'margin' parameter of {name} is only used with "
                    "alternative='non-inferiority' or 'equivalence'. Got margin="
                    f"{margin!r} with alternative={alternative!r}; set the alternative or "
                    "leave margin=None."
                )
            return
        if margin is None:
            raise error(
                f"alternative={alternative!r} needs the 'margin' parameter of {name}: the "
                "largest difference that does not matter, a positive real in metric units "
                "(e.g. margin=0.01 for one accuracy point)."
            )
        if isinstance(margin, (tuple, list)):
            def finite_real(v):
                return (isinstance(v, Real) and not isinstance(v, (bool, np.bool_))
                        and math.isfinite(v))

            if len(margin) != 2 or not all(finite_real(v) for v in margin):
                raise error(
                    f"The 'margin' parameter of {name} must be a positive finite real or a "
                    f"pair (low, high) of finite reals (metric units). Got {margin!r} instead."
                )
            if not margin[0] < margin[1]:
                raise error(
                    f"The 'margin' parameter of {name} as a pair (low, high) needs low < "
                    f"high. Got {margin!r} instead."
                )
            if not margin[0] < 0 < margin[1]:
                raise error(
                    f"The 'margin' parameter of {name} as a pair (low, high) of the oriented "
                    "difference (positive: B better) needs low < 0 < high: the differences "
                    f"that do not matter include 0. Got {margin!r} instead."
                )
        elif (isinstance(margin, bool) or not isinstance(margin, Real)
                or not math.isfinite(margin) or margin <= 0):
            raise error(
                f"The 'margin' parameter of {name} must be a positive finite real or a pair "
                f"(low, high) with low < 0 < high (metric units). Got {margin!r} instead."
            )
        level = params.get("confidence_level")
        if isinstance(level, Real) and not isinstance(level, bool) and not level > 0.5:
            raise error(
                f"The 'confidence_level' parameter of {name} must be above 0.5 with "
                f"alternative={alternative!r} (the test at level alpha = 1 - "
                f"confidence_level uses the two-sided 1 - 2 alpha interval). Got {level!r} "
                "instead."
            )

    def _alternative(self):
        """The test's ``alternative`` parameter, ``"two-sided"`` for a test without one."""
        return getattr(self, "alternative", None) or "two-sided"

    def _run(self, data, resamples=None):
        """Seed, threads, :meth:`evaluate`, the p-value, the result.

        ``resamples`` (checked by :meth:`test_paired`) goes to
        :meth:`evaluate` only when given.
        """
        metric = data.metric
        seed = check_random_state_seed(getattr(self, "random_state", None))
        if not self._warns_few_clusters:
            warn_few_clusters(self._test_name(), data)
        with self._numba_threads():
            if resamples is None:
                outcome = self.evaluate(data, seed)
            else:
                outcome = self.evaluate(data, seed, resamples=resamples)
        if not isinstance(outcome, TestOutcome):
            raise TypeError(
                f"{type(self).__name__}.evaluate must return a TestOutcome. Got "
                f"{type(outcome).__name__} instead."
            )
        alternative = self._alternative()
        null = outcome.null_distribution
        if null is not None:
            null = np.asarray(null, dtype=np.float64)
        weights = outcome.null_weights
        pvalue = outcome.pvalue
        if pvalue is None and null is not None:
            pvalue = self._pvalue_from_null(data, null, weights, alternative)
        details = dict(outcome.details)
        if outcome.statistic is not None:
            details["test_statistic"] = float(outcome.statistic)
        own = self.get_params(deep=False)
        # a test without random_state (sign, Wilcoxon, t, McNemar) is not seeded:
        # the seed it was handed is not part of its result
        params = {**own, "seed": seed if "random_state" in own else None,
                  "metric_params": dict(data.metric_params), **details}
        n_resamples = int(outcome.n_resamples)
        if not n_resamples and null is not None:
            n_resamples = int(null.size)
        level = outcome.confidence_level
        if level is None and outcome.confidence_interval is not None:
            level = getattr(self, "confidence_level", None)
        score_a, score_b = float(data.score_a), float(data.score_b)
        delta = score_b - score_a
        return SignificanceResult(
            metric=metric.name,
            test=self._test_name(),
            score_a=score_a,
            score_b=score_b,
            delta=delta,
            statistic=data.orient(delta),
            pvalue=math.nan if pvalue is None else float(pvalue),
            confidence_interval=outcome.confidence_interval,
            n_resamples=n_resamples,
            alternative=alternative,
            confidence_level=None if level is None else float(level),
            greater_is_better=bool(metric.greater_is_better),
            n_samples=int(data.n_samples),
            params=params,
            null_distribution=null,
            null_weights=weights,
            resampling=outcome.resampling,
            acceleration=outcome.acceleration,
            interval_method=outcome.interval_method,
            n_groups=data.n_groups,
            n_strata=data.n_strata,
            margin=(outcome.margin if outcome.margin is not None
                    else getattr(self, "margin", None)),
            prob_worse=outcome.prob_worse,
            prob_equivalent=outcome.prob_equivalent,
            prob_better=outcome.prob_better,
            log10_pvalue=outcome.log10_pvalue if outcome.pvalue is not None else None,
        )

    def _pvalue_from_null(self, data, null, weights, alternative):
        """p from a RAW null distribution: permutation counting or exact weights.

        A single-point distribution carries no information: ``p = 1`` with a
        :class:`~sigtest.exceptions.DegenerateDistributionWarning`.
        """
        return null_pvalue(data, null, alternative, weights,
                           mid_p=bool(getattr(self, "mid_p", False)))

    # ------------------------------------------------------------------ helpers
    @classmethod
    def _test_name(cls):
        return cls.name or cls.__name__

    def _parallel(self):
        return getattr(self, "n_jobs", None) != 1

    def _numba_threads(self):
        """numba's thread count from ``self.n_jobs`` while the block runs (a context)."""
        return numba_threads(getattr(self, "n_jobs", None))

    def _resampled_deltas(self, paired, scheme, n_resamples, seed, sample_size=None, *,
                          supplied=None, discordant=None):
        """Raw resampled differences ``score_b* - score_a*`` (non-finite ones dropped).

        ``scheme`` is ``"bootstrap"`` (paired, ``sample_size`` items with
        replacement) or ``"permutation"`` (A and B swapped per item with
        probability 1/2). Metrics with sufficient statistics use the numba
        kernels; others the slow path calling ``score_func`` on index batches.
        ``supplied`` (:class:`~sigtest._engine.shared.SharedDeltas`) and
        ``discordant`` go to
        :func:`~sigtest._engine.resampling.dispatch.resampled_deltas`.
        """
        # imported here: the resampling engine imports numba
        from sigtest._engine.resampling.dispatch import drop_nonfinite, resampled_deltas

        deltas = resampled_deltas(paired, n_resamples, seed, scheme=scheme,
                                  sample_size=sample_size, parallel=self._parallel(),
                                  supplied=supplied, discordant=discordant)
        return drop_nonfinite(np.asarray(deltas, dtype=np.float64))


