"""Property-based tests of the public API (issue 15, section 4, "Keep it caught").

1. Random VALID inputs (hard labels of 2-4 classes, ints or strings; soft
   probability rows; N from 5 to 200; optional positive ``sample_weight``;
   optional ``groups`` with at least 2 clusters; optional ``strata``; small
   ``n_resamples``) give finite results or the documented nans, and the same
   ``random_state`` twice gives identical results: every registered test
   class (:func:`sigtest.get_test_names`), :func:`sigtest.score`,
   :func:`sigtest.compare` (2-3 systems) and
   :func:`sigtest.cv.corrected_resampled_ttest`. sigtest's warnings are
   expected on such small data and recorded, not raised; errors are not
   caught.
2. Random INVALID inputs give ``ValueError`` or ``TypeError`` whose message
   names the argument.

Left out on purpose (each with a comment where it is): the combinations a
test documents as refused (checked to be ``ValueError`` by
``test_documented_refusals_are_value_errors``).

The default hypothesis profile (``tests/conftest.py``) runs about 500
examples in total, in about 10 s on 2 cores (``budget`` sets each property's
count). For a longer hunt (about 5 minutes), every property takes the
``explore`` profile's 1000 examples::

    HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest -q tests/test_properties.py

A failure prints the shrunk example; reproduce it with the ``@reproduce_failure``
line hypothesis prints, or by copying the example into a regression test.
"""

import dataclasses
import inspect
import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sigtest
import sigtest.cv

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")


def budget(n):
    """``n`` examples in the default profile; the profile's own count in another (explore)."""
    if _PROFILE == "default":
        return settings(max_examples=n, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])
    return settings()


TEST_NAMES = sigtest.get_test_names()
N_RESAMPLES = 99

# Hard-label metrics for any number of classes and label type; the binary ones
# (default pos_label=1) only with the int labels {0, 1}.
HARD_METRICS = ["accuracy", "f1_macro", "f1_micro", "f1_weighted", "precision_macro",
                "precision_micro", "recall_macro", "recall_micro", "recall_weighted",
                "precision_weighted"]
BINARY_METRICS = ["f1", "precision", "recall"]
#: McNemar's metrics: each item right or wrong (hard labels, per-item decomposable).
MCNEMAR_METRICS = [name for name in HARD_METRICS if sigtest.get_metric(name).decomposable]
SOFT_METRICS = [name for name in sigtest.get_metric_names()
                if sigtest.get_metric(name).input_type == "proba"]
#: Binary labels {0, 1} with a real score or P(positive) per item (issue 22).
RANKING_METRICS = ["roc_auc", "average_precision", "log_loss", "brier_score"]
#: Real targets and predictions, all positive (the deviances and log errors need it).
REGRESSION_METRICS = [name for name in sigtest.get_metric_names()
                      if sigtest.get_metric(name).input_type == "regression"]
#: Tests that take no design (no weights, clusters or strata): DeLong's variance
#: assumes independent, unweighted items (refusals checked in
#: tests/significance/test_delong.py).
NO_DESIGN_TESTS = ("delong",)


# --------------------------------------------------------------------------- data
@st.composite
def datasets(draw, min_n=5, max_n=200, metric_ok=None, int_weights=False, strata=True,
             kind=None, design=True):
    """A valid paired data set: ``dict(y, a, b, metric, sample_weight, groups, strata)``.

    ``metric_ok``: which metrics to draw; ``int_weights``: integer
    ``sample_weight`` only, unless there are groups (``"always"``: even
    then), for the tests that count items; ``strata``: whether to draw strata; ``kind``: "hard",
    "soft", "ranking" (binary labels, real scores) or "regression" (default: any with a
    metric ``metric_ok`` accepts); ``design``: whether to draw weights, groups and strata.

    hypothesis draws the structure (kind, N, classes, label type, options,
    edge cases such as B equal to A or to the truth); numpy fills the arrays
    from a drawn seed (fast to generate, still reproducible).
    """
    ok = metric_ok or (lambda name: True)
    kinds = [kind_ for kind_, names in (("hard", HARD_METRICS + BINARY_METRICS),
                                        ("soft", SOFT_METRICS),
                                        ("ranking", RANKING_METRICS),
                                        ("regression", REGRESSION_METRICS))
             if any(map(ok, names))]
    kind = kind or draw(st.sampled_from(kinds))
    n = draw(st.integers(min_n, max_n))
    k = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = draw(st.sampled_from(["random", "b_equals_a", "b_is_truth", "close"]))
    if kind == "hard":
        strings = draw(st.booleans())
        metrics = HARD_METRICS + (BINARY_METRICS if k == 2 and not strings else [])
        metric = draw(st.sampled_from([m for m in metrics if ok(m)]))
        y = rng.integers(0, k, n)
        a = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
        b = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
        if metric in BINARY_METRICS:
            # pos_label=1 must be a label of the data (else a documented
            # ValueError naming pos_label)
            y[0] = 1
        if strings:
            names = np.array(["cat", "dog", "émeu", "yak"])[:k]
            y, a, b = names[y], names[a], names[b]
    elif kind == "ranking":
        metric = draw(st.sampled_from([m for m in RANKING_METRICS if ok(m)]))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]  # both classes present (else a documented ValueError)
        # P(positive): informative, with ties (rounded) in half of the data sets
        a, b = (1 / (1 + np.exp(-(rng.normal(0, 1, n) + s * (2 * y - 1))))
                for s in (0.5, 1.0))
        if draw(st.booleans()):
            a, b = np.round(a, 1), np.round(b, 1)
    elif kind == "regression":
        metric = draw(st.sampled_from([m for m in REGRESSION_METRICS if ok(m)]))
        y = rng.lognormal(0.0, 0.5, n)
        a, b = (y * rng.lognormal(0.0, s, n) for s in (0.3, 0.5))
    else:
        metric = draw(st.sampled_from([m for m in SOFT_METRICS if ok(m)]))
        one_hot = draw(st.booleans())

        def rows():
            if one_hot:
                return np.eye(k)[rng.integers(0, k, n)]
            return rng.dirichlet(np.full(k, draw(st.sampled_from([0.3, 1.0, 5.0]))), n)

        y, a, b = rows(), rows(), rows()
        if not one_hot:  # some predictions near the truth
            a = 0.5 * a + 0.5 * y
    if shape == "b_equals_a":
        b = a.copy()
    elif shape == "b_is_truth":
        b = y.astype(float) if kind == "ranking" else y.copy()
    elif shape == "close":  # B differs from A on one item only
        b = a.copy()
        b[0] = y[0]
    metric_params = {"pos_label": 1} if metric in BINARY_METRICS else {}
    groups = strata = None
    if design and draw(st.booleans()):
        g = draw(st.integers(2, max(2, min(n, 25))))
        groups = np.concatenate([np.arange(g), rng.integers(0, g, n - g)])
        rng.shuffle(groups)
        if draw(st.booleans()):
            groups = np.array([f"doc{i}" for i in groups])
    sample_weight = None
    # max_error takes no weights (a TypeError naming sample_weight, as scikit-learn)
    weights = (draw(st.sampled_from([None, "int", "float"]))
               if design and _weighted_score(metric) else None)
    if weights == "int" or (weights == "float" and int_weights
                            and (groups is None or int_weights == "always")):
        sample_weight = rng.integers(1, 4, n)  # integer frequencies
    elif weights == "float":
        sample_weight = rng.uniform(0.1, 3.0, n)
    if strata and design and draw(st.booleans()):
        if groups is None:
            strata = rng.integers(0, 2, n)
        else:  # each cluster in one stratum
            ids = {gid: i % 2 for i, gid in enumerate(dict.fromkeys(groups.tolist()))}
            strata = np.array([ids[gid] for gid in groups.tolist()])
    return dict(y=y, a=a, b=b, metric=metric, sample_weight=sample_weight, groups=groups,
                strata=strata, kind=kind, metric_params=metric_params)


#: Tests that count items: integer ``sample_weight`` only (ValueError otherwise).
COUNTING_TESTS = ("mcnemar", "sign", "wilcoxon", "paired_t")


def _make_test(name, seed, groups=None):
    cls = sigtest.get_test(name)
    cls = cls if isinstance(cls, type) else type(cls)
    params = cls().get_params()
    kwargs = {}
    if "n_resamples" in params:
        kwargs["n_resamples"] = N_RESAMPLES
    if "random_state" in params:
        kwargs["random_state"] = seed
    if "n_jobs" in params:
        kwargs["n_jobs"] = 1
    if name == "mcnemar" and groups is not None:
        kwargs["method"] = "chi2"  # the clustered McNemar test is asymptotic only
    return cls(**kwargs)


def _weighted_score(name):
    """Whether metric ``name`` can be scored with weights: statistics or a weighted function."""
    metric = sigtest.get_metric(name)
    return (metric.statistics is not None
            or "sample_weight" in inspect.signature(metric.score_func).parameters)


def datasets_for(name, **kwargs):
    """Valid data sets for the test ``name``: none of the combinations it refuses."""
    if name == "mcnemar":  # accuracy (or a metric equal to it: micro-F1, ...) only
        kwargs["metric_ok"] = lambda m: m in MCNEMAR_METRICS
    elif name == "bayesian_bootstrap":  # a weighted score (documented refusal otherwise)
        kwargs["metric_ok"] = _weighted_score
    elif name == "delong":  # the ROC AUC of binary labels and scores only
        kwargs["metric_ok"] = lambda m: m == "roc_auc"
        kwargs["design"] = False
    elif name in ("sign", "wilcoxon", "paired_t"):  # per-item differences
        kwargs["metric_ok"] = lambda m: sigtest.get_metric(m).decomposable
    int_weights = "always" if name == "mcnemar" else name in COUNTING_TESTS
    return datasets(int_weights=int_weights,
                    strata=name != "paired_t",  # PairedTTest refuses strata
                    **kwargs)


def _refused(name, data):
    """The combinations a test documents as refused (ValueError by design)."""
    metric = sigtest.get_metric(data["metric"])
    w = data["sample_weight"]
    if (name in COUNTING_TESTS and w is not None and w.dtype.kind == "f"
            and (data["groups"] is None or name == "mcnemar")):
        # tests that count items take integer frequency weights only (with
        # groups= sign, Wilcoxon and t run on per-cluster values, which real
        # weights weight; the clustered McNemar test still counts items)
        return True
    if name == "mcnemar":
        return data["metric"] not in MCNEMAR_METRICS
    if name in ("sign", "wilcoxon", "paired_t") and not metric.decomposable:
        return True  # per-item differences need a per-item decomposable metric
    if name == "paired_t" and data["strata"] is not None:
        return True  # PairedTTest refuses strata
    return False


def _run(fn):
    """``fn()`` with every warning recorded (sigtest warns on tiny data), errors raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, caught


def _assert_same(r1, r2):
    """Two results field by field, nan equal to nan (determinism), ``params`` included.

    A test without ``random_state`` (McNemar, sign, Wilcoxon, t) records
    ``params["seed"] = None``, so its params are equal too.
    """
    for f in dataclasses.fields(r1):
        np.testing.assert_equal(getattr(r1, f.name), getattr(r2, f.name), err_msg=f.name)


def _finite_or_nan(x):
    return x is None or math.isnan(x) or math.isfinite(x)


def _check_interval(ci, caught, what):
    low, high = ci
    if math.isnan(low) or math.isnan(high):
        assert caught, f"{what}: a nan interval without a warning saying why"
    else:
        assert math.isfinite(low) and math.isfinite(high), (what, ci)
        assert low <= high, (what, ci)


# --------------------------------------------------------------- 1. valid inputs
@pytest.mark.parametrize("name", TEST_NAMES)
@budget(20)
@given(draw=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_test_is_finite_and_deterministic(name, draw, seed):
    data = draw.draw(datasets_for(name), label="data")
    assert not _refused(name, data)
    kwargs = dict(metric=data["metric"], sample_weight=data["sample_weight"],
                  groups=data["groups"], strata=data["strata"], **data["metric_params"])
    res, caught = _run(lambda: _make_test(name, seed, data["groups"]).test(
        data["y"], data["a"], data["b"], **kwargs))
    again, _ = _run(lambda: _make_test(name, seed, data["groups"]).test(
        data["y"], data["a"], data["b"], **kwargs))
    _assert_same(res, again)

    assert _finite_or_nan(res.score_a) and _finite_or_nan(res.score_b)
    assert res.n_samples == len(data["y"])
    interval_nan = res.confidence_level is not None and any(
        map(math.isnan, tuple(res.confidence_interval)))
    if name == "bayesian_bootstrap":  # a posterior, not a test: p is nan by design
        assert math.isnan(res.pvalue)
    elif name == "bca" and interval_nan:
        # documented: the p-value inverts the interval; an undefined BCa
        # acceleration (all jackknife differences equal) gives nan for both,
        # with a DegenerateDistributionWarning
        assert math.isnan(res.pvalue) or 0 < res.pvalue <= 1
        assert caught
    elif math.isfinite(res.delta):
        assert 0 < res.pvalue <= 1, res.pvalue
    else:  # an undefined score (documented): p is nan or 1
        assert math.isnan(res.pvalue) or 0 < res.pvalue <= 1
    # tests without an interval (the p-value tests) leave confidence_level None
    if res.confidence_level is not None and math.isfinite(res.delta):
        _check_interval(tuple(res.confidence_interval), caught, name)


@budget(25)
@given(data=datasets(), seed=st.integers(0, 2**32 - 1),
       method=st.sampled_from(["bca", "percentile"]))
def test_score_is_finite_and_deterministic(data, seed, method):
    def call():
        return sigtest.score(data["y"], data["a"], data["metric"], method=method,
                             n_resamples=N_RESAMPLES, random_state=seed,
                             sample_weight=data["sample_weight"], groups=data["groups"],
                             strata=data["strata"], **data["metric_params"])

    res, caught = _run(call)
    again, _ = _run(call)
    _assert_same(res, again)
    assert _finite_or_nan(res.estimate)
    if math.isfinite(res.estimate):
        _check_interval(tuple(res.confidence_interval), caught, "score")
    assert res.n_samples == len(data["y"])


@budget(15)
@given(draw=st.data(), seed=st.integers(0, 2**32 - 1), n_systems=st.integers(2, 3),
       test=st.sampled_from(["permutation", "bootstrap", "bca", "sign"]))
def test_compare_is_finite_and_deterministic(draw, seed, n_systems, test):
    data = draw.draw(datasets_for(test, max_n=80), label="data")
    rng = np.random.default_rng(seed)
    systems = {"sysA": data["a"], "sysB": data["b"]}
    if n_systems == 3:
        systems["sysC"] = data["a"][rng.permutation(len(data["a"]))]
    tests = {"permutation": sigtest.PairedPermutation(n_resamples=N_RESAMPLES),
             "bootstrap": sigtest.BergKirkpatrickBootstrap(n_resamples=N_RESAMPLES,
                                                           alternative="two-sided"),
             "bca": sigtest.BCaInterval(n_resamples=N_RESAMPLES),
             "sign": sigtest.SignTest()}

    def call():
        return sigtest.compare(data["y"], systems, metrics=data["metric"], test=tests[test],
                               random_state=seed, n_jobs=1,
                               sample_weight=data["sample_weight"], groups=data["groups"],
                               strata=data["strata"],
                               pos_label=data["metric_params"].get("pos_label"))

    res, caught = _run(call)
    again, _ = _run(call)
    frame = res.to_frame()
    pd.testing.assert_frame_equal(frame, again.to_frame())
    assert len(frame) == n_systems * (n_systems - 1) // 2
    defined = np.isfinite(frame["delta"].to_numpy(dtype=float))
    p = frame["pvalue"].to_numpy(dtype=float)[defined]
    assert np.all((p > 0) & (p <= 1)), frame
    padj = frame["pvalue_adj"].to_numpy(dtype=float)[defined]
    assert np.all((padj >= p) & (padj <= 1)), frame
    low, high = (frame[c].to_numpy(dtype=float)[defined] for c in ("ci_low", "ci_high"))
    nan = np.isnan(low) | np.isnan(high)
    assert not np.any(np.isinf(low) | np.isinf(high)), frame
    assert np.all(low[~nan] <= high[~nan]), frame
    if nan.any() and test == "bca":  # the p-value tests give no interval (nan)
        assert caught, "compare: a nan interval without a warning saying why"
    scores, caught = _run(res.scores)  # the scores' intervals are computed here, lazily
    pd.testing.assert_frame_equal(scores, _run(again.scores)[0])
    assert len(scores) == n_systems
    values = scores["score"].to_numpy(dtype=float)
    assert not np.any(np.isinf(values)), scores
    for row in scores.itertuples():
        if math.isfinite(row.score):
            _check_interval((row.ci_low, row.ci_high), caught, f"compare scores {row.system}")


@budget(40)
@given(j=st.integers(2, 30), n_train=st.integers(1, 10_000), n_test=st.integers(1, 5_000),
       seed=st.integers(0, 2**32 - 1), equal=st.booleans(), gib=st.booleans(),
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
def test_corrected_resampled_ttest_is_finite_and_deterministic(j, n_train, n_test, seed, equal,
                                                               gib, alternative):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, j)
    b = a.copy() if equal else np.clip(a + rng.normal(0, 0.05, j), 0, 1)

    def call():
        return sigtest.cv.corrected_resampled_ttest(a, b, n_train=n_train, n_test=n_test,
                                                    alternative=alternative,
                                                    greater_is_better=gib)

    res, caught = _run(call)
    again, _ = _run(call)
    _assert_same(res, again)
    d = b - a
    if np.all(d == d[0]) and d[0] != 0:  # documented: t undefined, nan with a warning
        assert math.isnan(res.pvalue) and caught
    else:
        assert 0 < res.pvalue <= 1 and math.isfinite(res.statistic), res


# ------------------------------------------------------------- 2. invalid inputs
@budget(30)
@given(data=datasets(max_n=60), name=st.sampled_from(["mcnemar", "sign", "wilcoxon",
                                                      "paired_t"]))
def test_documented_refusals_are_value_errors(data, name):
    # the combinations the valid-input properties leave out are refused, not run
    call = _test_call(name, data, strata=data["strata"])
    if _refused(name, data):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError):
                call()
    else:
        _run(call)


def _with_n_resamples(name):
    return "n_resamples" in _make_test(name, 0).get_params()


def _with_confidence_level(name):
    return "confidence_level" in _make_test(name, 0).get_params()


def _raises_naming(fn, argument, types=(ValueError, TypeError)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(types) as info:
            fn()
    assert argument in str(info.value), (argument, str(info.value))


def _valid(data):
    return dict(metric=data["metric"], sample_weight=data["sample_weight"],
                groups=data["groups"], **data["metric_params"])


def _test_call(name, data, **overrides):
    """``test()`` of the test ``name`` on ``data`` with some arguments replaced."""
    args = {"y_pred_a": data["a"], "y_pred_b": data["b"], "groups": data["groups"],
            "sample_weight": data["sample_weight"], "strata": None, **overrides}
    test = _make_test(name, 0, args["groups"])
    return lambda: test.test(data["y"], args["y_pred_a"], args["y_pred_b"],
                             metric=data["metric"], sample_weight=args["sample_weight"],
                             groups=args["groups"], strata=args["strata"],
                             **data["metric_params"])


@budget(30)
@given(draw=st.data(), name=st.sampled_from(TEST_NAMES), cut=st.integers(1, 4))
def test_shorter_y_pred_b_names_it(draw, name, cut):
    data = draw.draw(datasets_for(name, max_n=60), label="data")
    short = data["b"][:-cut]
    _raises_naming(_test_call(name, data, y_pred_b=short), "y_pred_b")
    _raises_naming(lambda: sigtest.score(data["y"], short, data["metric"],
                                         n_resamples=N_RESAMPLES, **data["metric_params"]),
                   "y_pred")
    # compare names the system
    _raises_naming(lambda: sigtest.compare(data["y"], {"sysA": data["a"], "sysB": short},
                                           metrics=data["metric"], test=name,
                                           pos_label=data["metric_params"].get("pos_label")),
                   "'sysB'")


@budget(20)
@given(draw=st.data(),
       name=st.sampled_from([n for n in TEST_NAMES if n not in ("mcnemar", "delong")]),
       which=st.sampled_from(["y_pred_a", "y_pred_b"]),
       bad=st.sampled_from([np.nan, np.inf, -np.inf]), row=st.integers(0, 4))
def test_nan_in_soft_predictions_names_them(draw, name, which, bad, row):
    data = draw.draw(datasets_for(name, max_n=60, kind="soft"), label="data")
    preds = {"y_pred_a": data["a"].copy(), "y_pred_b": data["b"].copy()}
    preds[which][row, draw.draw(st.integers(0, preds[which].shape[1] - 1))] = bad
    _raises_naming(_test_call(name, data, **preds), which)


@budget(20)
@given(draw=st.data(), name=st.sampled_from([n for n in TEST_NAMES if n != "delong"]),
       which=st.sampled_from(["y_true", "y_pred_a", "y_pred_b"]),
       bad=st.sampled_from([np.nan, np.inf]), row=st.integers(0, 4))
def test_nan_in_float_hard_labels_names_them(draw, name, which, bad, row):
    data = draw.draw(datasets_for(name, max_n=60, kind="hard").filter(
        lambda d: d["y"].dtype.kind in "iu"), label="data")
    arrays = {"y_true": data["y"].astype(float), "y_pred_a": data["a"].astype(float),
              "y_pred_b": data["b"].astype(float)}
    arrays[which][row] = bad
    data = dict(data, y=arrays["y_true"])
    _raises_naming(_test_call(name, data, y_pred_a=arrays["y_pred_a"],
                              y_pred_b=arrays["y_pred_b"]), which)
    # compare names the system (or y_true)
    systems = {"sysA": arrays["y_pred_a"], "sysB": arrays["y_pred_b"]}
    where = {"y_true": "y_true", "y_pred_a": "'sysA'", "y_pred_b": "'sysB'"}[which]
    _raises_naming(lambda: sigtest.compare(arrays["y_true"], systems, metrics=data["metric"],
                                           test=name,
                                           pos_label=data["metric_params"].get("pos_label")),
                   where)


@budget(20)
@given(draw=st.data(), name=st.sampled_from(TEST_NAMES), row=st.integers(0, 4),
       bad=st.sampled_from([-1.0, -1e-9, -3, np.nan, np.inf]))
def test_negative_sample_weight_names_it(draw, name, row, bad):
    data = draw.draw(datasets_for(name, max_n=60), label="data")
    w = np.ones(len(data["y"]))
    w[row] = bad
    _raises_naming(_test_call(name, data, sample_weight=w), "sample_weight")
    _raises_naming(lambda: sigtest.score(data["y"], data["a"], data["metric"],
                                         n_resamples=N_RESAMPLES, sample_weight=w,
                                         **data["metric_params"]),
                   "sample_weight")


@budget(20)
@given(draw=st.data(), name=st.sampled_from(TEST_NAMES),
       delta=st.integers(-4, 4).filter(bool))
def test_groups_of_the_wrong_length_name_it(draw, name, delta):
    data = draw.draw(datasets_for(name, max_n=60), label="data")
    groups = np.arange(len(data["y"]) + delta) % 3
    _raises_naming(_test_call(name, data, groups=groups), "groups")
    _raises_naming(lambda: sigtest.score(data["y"], data["a"], data["metric"],
                                         n_resamples=N_RESAMPLES, groups=groups,
                                         **data["metric_params"]),
                   "groups")


BAD_N_RESAMPLES = [0, -1, 1.5, True, "99", None]


@budget(20)
@given(name=st.sampled_from([n for n in TEST_NAMES if _with_n_resamples(n)]),
       bad=st.sampled_from(BAD_N_RESAMPLES))
def test_invalid_n_resamples_names_it(name, bad):
    y, a, b = [0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3, [0, 1, 1, 1] * 3
    test = _make_test(name, 0).set_params(n_resamples=bad)
    _raises_naming(lambda: test.test(y, a, b), "n_resamples")


@budget(10)
@given(bad=st.sampled_from(BAD_N_RESAMPLES))
def test_invalid_n_resamples_in_score_names_it(bad):
    _raises_naming(lambda: sigtest.score([0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3,
                                         n_resamples=bad), "n_resamples")


@budget(15)
@given(alpha=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0),
                       st.just(math.nan), st.sampled_from([True, "0.05", None])))
def test_alpha_outside_unit_interval_in_compare_names_it(alpha):
    y = np.array([0, 1, 1, 0] * 3)
    systems = {"a": np.array([0, 1, 0, 0] * 3), "b": np.array([0, 1, 1, 1] * 3)}
    _raises_naming(lambda: sigtest.compare(y, systems, metrics="accuracy", alpha=alpha,
                                           test="sign"), "alpha")


@budget(15)
@given(name=st.sampled_from(TEST_NAMES),
       key=st.sampled_from(["n_resample", "random_seed", "alpha", "averag", "weights"]))
def test_unknown_keyword_to_test_names_it(name, key):
    y, a, b = [0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3, [0, 1, 1, 1] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError) as info:
            _make_test(name, 0).test(y, a, b, **{key: 1})
    assert key in str(info.value)


BAD_LEVELS = st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0),
                       st.sampled_from([math.nan, True, "0.95", None]))


@budget(20)
@given(name=st.sampled_from([n for n in TEST_NAMES if _with_confidence_level(n)]),
       level=BAD_LEVELS)
def test_bad_confidence_level_names_it(name, level):
    y, a, b = [0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3, [0, 1, 1, 1] * 3
    test = _make_test(name, 0).set_params(confidence_level=level)
    _raises_naming(lambda: test.test(y, a, b), "confidence_level")


@budget(10)
@given(level=BAD_LEVELS)
def test_bad_confidence_level_in_score_names_it(level):
    _raises_naming(lambda: sigtest.score([0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3,
                                         confidence_level=level, n_resamples=N_RESAMPLES),
                   "confidence_level")


@budget(20)
@given(metric=st.text(min_size=1, max_size=12).filter(
           lambda s: s not in sigtest.get_metric_names()),
       where=st.sampled_from(["test", "score", "compare"]),
       name=st.sampled_from(TEST_NAMES))
def test_unregistered_metric_names_it(metric, where, name):
    y, a, b = [0, 1, 1, 0] * 3, [0, 1, 0, 0] * 3, [0, 1, 1, 1] * 3
    if where == "test":
        fn = lambda: _make_test(name, 0).test(y, a, b, metric=metric)  # noqa: E731
    elif where == "score":
        fn = lambda: sigtest.score(y, a, metric, n_resamples=N_RESAMPLES)  # noqa: E731
    else:
        fn = lambda: sigtest.compare(y, {"a": a, "b": b}, metrics=metric,  # noqa: E731
                                     test="sign")
    _raises_naming(fn, "metric")
