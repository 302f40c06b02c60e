"""Regression metrics (issue 22, section 1): scikit-learn's regression scorers.

References: scikit-learn's functions called here on the same input (naive
twins), with and without ``sample_weight``, with ties and degenerate data;
resampled scores against scikit-learn on the drawn items; the tests,
``compare``, ``cross_val_compare``, ``compare_datasets``, ``score``,
``get_scorer`` and the CLI on regressors; bad input.
"""

import io

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import sigtest
from sigtest import (BergKirkpatrickBootstrap, McNemar, PairedPermutation, PairedTTest,
                     SignTest, WilcoxonSignedRank, compare, compare_datasets, score)
from sigtest._engine import prepare_paired
from sigtest._engine.resampling import bootstrap_sums
from sigtest.cli import main
from sigtest.exceptions import UndefinedMetricWarning
from sigtest.metrics import Metric, get_metric, get_scorer

TOL = 1e-9

#: scorer name -> (scikit-learn function, takes sample_weight, needs positive values)
SKLEARN = {
    "r2": (skm.r2_score, True, False),
    "explained_variance": (skm.explained_variance_score, True, False),
    "neg_mean_absolute_error": (skm.mean_absolute_error, True, False),
    "neg_mean_squared_error": (skm.mean_squared_error, True, False),
    "neg_root_mean_squared_error": (skm.root_mean_squared_error, True, False),
    "neg_mean_squared_log_error": (skm.mean_squared_log_error, True, True),
    "neg_root_mean_squared_log_error": (skm.root_mean_squared_log_error, True, True),
    "neg_mean_absolute_percentage_error": (skm.mean_absolute_percentage_error, True, False),
    "neg_mean_poisson_deviance": (skm.mean_poisson_deviance, True, True),
    "neg_mean_gamma_deviance": (skm.mean_gamma_deviance, True, True),
    "d2_absolute_error_score": (skm.d2_absolute_error_score, True, False),
    "neg_median_absolute_error": (skm.median_absolute_error, True, False),
    "neg_max_error": (skm.max_error, False, False),
}
NAMES = list(SKLEARN)
SLOW = {"d2_absolute_error_score", "neg_median_absolute_error", "neg_max_error"}
DECOMPOSABLE = {"neg_mean_absolute_error", "neg_mean_squared_error",
                "neg_mean_squared_log_error", "neg_mean_absolute_percentage_error",
                "neg_mean_poisson_deviance", "neg_mean_gamma_deviance"}


def _data(seed, n=80, positive=False, ties=False):
    """Targets and two predictions; gamma-distributed (positive) or normal with an offset."""
    rng = np.random.default_rng(seed)
    if positive:
        y = rng.gamma(2.0, 1.5, n) + 0.05
        a, b = y * rng.uniform(0.4, 1.6, n), y * rng.uniform(0.6, 1.4, n)
    else:
        y = rng.normal(3.0, 2.0, n)
        a, b = y + rng.normal(0.3, 1.2, n), y + rng.normal(0.0, 0.8, n)
    if ties:  # repeated targets and predictions (one decimal), zeros in y for MAPE's eps
        y, a, b = (np.round(v, 1) for v in (y, a, b))
        if not positive:
            y[:3] = 0.0
    return y, a, b


def _sk(name, y, p, w=None):
    func, weighted, _ = SKLEARN[name]
    return func(y, p) if w is None or not weighted else func(y, p, sample_weight=w)


# ------------------------------------------------------------------ naive twins
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_score_equals_sklearn_with_and_without_weights(name, ties):
    _, weighted, positive = SKLEARN[name]
    metric = get_metric(name)
    assert metric.input_type == "regression" and metric.response_method == "predict"
    assert metric.has_statistics == (name not in SLOW)
    assert metric.decomposable == (name in DECOMPOSABLE)
    for seed in range(3):
        y, a, _ = _data(seed, positive=positive, ties=ties)
        assert metric(y, a) == pytest.approx(_sk(name, y, a), rel=1e-12, abs=TOL)
        if weighted:
            w = np.random.default_rng(seed + 10).uniform(0, 3, y.size)
            w[:5] = 0.0
            # MAPE of y = 0 is |e| / eps ~ 1e15: relative agreement there
            assert metric(y, a, sample_weight=w) == pytest.approx(_sk(name, y, a, w),
                                                                  rel=1e-12, abs=TOL)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in SLOW])
def test_aggregate_of_weighted_statistics_equals_sklearn(name):
    """The fast path: aggregate(w @ statistics) is scikit-learn's weighted score."""
    metric = get_metric(name)
    y, a, _ = _data(4, positive=SKLEARN[name][2])
    w = np.random.default_rng(5).integers(0, 4, y.size).astype(float)
    value = metric.aggregate(w @ metric.statistics(y, a))
    assert float(value) == pytest.approx(
        _sk(name, np.repeat(y, w.astype(int)), np.repeat(a, w.astype(int))), rel=0, abs=TOL)


@pytest.mark.parametrize("name", ["r2", "explained_variance"])
def test_constant_y_true_follows_force_finite(name):
    """Var(y) = 0: scikit-learn's force_finite=True gives 1.0 (perfect) or 0.0, and
    force_finite=False 1 - num/0 (NaN or -inf); sigtest matches and warns."""
    metric = get_metric(name)
    func = SKLEARN[name][0]
    y = np.full(30, 0.5)  # exact in binary: scikit-learn's variance is exactly 0
    off = y + np.linspace(-1, 1, 30)
    for pred in (y.copy(), off):
        with pytest.warns(UndefinedMetricWarning, match="constant"):
            assert metric(y, pred) == func(y, pred)
        with pytest.warns(UndefinedMetricWarning), np.errstate(all="ignore"):
            got, want = metric(y, pred, force_finite=False), func(y, pred, force_finite=False)
        assert got == want or (np.isnan(got) and np.isnan(want))
    # y = 0.1 everywhere: scikit-learn's mean of y is not exactly 0.1, its variance is
    # rounding (~1e-33) and R^2 of imperfect predictions ~ -5e32; sigtest counts a
    # variance below 1e-12 of the sum of squares as 0: 1.0 and 0.0 as for y = 0.5
    y = np.full(30, 0.1)
    assert func(y, y + np.linspace(-1, 1, 30)) < -1e30
    with pytest.warns(UndefinedMetricWarning):
        assert metric(y, y + np.linspace(-1, 1, 30)) == 0.0
        assert metric(y, y) == 1.0
    # a constant offset: Var(e) = 0, so the explained variance is 1 (R^2 is not)
    y = np.linspace(0, 1, 30)
    assert metric(y, y + 0.25) == pytest.approx(func(y, y + 0.25), abs=TOL)
    with pytest.raises(ValueError, match="force_finite"):
        metric(y, y, force_finite="yes")


def test_d2_constant_y_and_one_sample():
    y = np.full(10, 2.5)
    assert get_metric("d2_absolute_error_score")(y, y) == skm.d2_absolute_error_score(y, y)
    p = y + np.arange(10)
    assert get_metric("d2_absolute_error_score")(y, p) == skm.d2_absolute_error_score(y, p)
    # one sample: R² (statistics of the whole data) refuses; D² (scored on
    # resamples too, where one item can remain) is NaN with a warning, as scikit-learn
    with pytest.raises(ValueError, match="at least 2"):
        get_metric("r2")([1.0], [2.0])
    with pytest.warns(UndefinedMetricWarning, match="fewer than two"):
        assert np.isnan(get_metric("d2_absolute_error_score")([1.0], [2.0]))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(skm.d2_absolute_error_score([1.0], [2.0]))


def test_regression_check_accepts_a_column_and_integers():
    y, a, _ = _data(6)
    metric = get_metric("r2")
    assert metric(y[:, None], a[:, None]) == pytest.approx(skm.r2_score(y, a), abs=TOL)
    yi = np.arange(20)
    assert metric(yi, yi[::-1]) == pytest.approx(skm.r2_score(yi, yi[::-1]), abs=TOL)


# -------------------------------------------------------------- through the engine
def _item_counts():
    """A metric whose statistics are the identity: the resampled sums are the counts."""
    return Metric("item_counts", lambda y, p, **k: 0.0, input_type="regression",
                  statistics=lambda y, p, **k: np.eye(len(y)),
                  aggregate=lambda sums, **k: sums[..., 0])


@pytest.mark.parametrize("clustered", [False, True])
@pytest.mark.parametrize("name", [n for n in NAMES if n not in SLOW])
def test_resampled_score_equals_sklearn_on_the_drawn_items(name, clustered):
    """The engine's bootstrap draw b (read off as item counts, same seed, same rows)
    scored by the metric equals scikit-learn on y[idx], a[idx] of that draw; with
    groups= the rows are clusters and a drawn cluster brings all its items."""
    y, a, b = _data(7, n=40, positive=SKLEARN[name][2])
    design = {"groups": np.arange(40) // 4} if clustered else {}
    counts, _ = bootstrap_sums(prepare_paired(y, a, b, _item_counts(), **design), 25, seed=3)
    sums_a, sums_b = bootstrap_sums(prepare_paired(y, a, b, name, **design), 25, seed=3)
    metric = get_metric(name)
    for r in range(25):
        idx = np.repeat(np.arange(y.size), counts[r].astype(int))
        assert idx.size == y.size
        if clustered:  # whole clusters of 4 items
            assert np.all(counts[r].reshape(10, 4) == counts[r].reshape(10, 4)[:, :1])
        assert float(metric.aggregate(sums_a[r])) == pytest.approx(
            _sk(name, y[idx], a[idx]), rel=0, abs=TOL)
        assert float(metric.aggregate(sums_b[r])) == pytest.approx(
            _sk(name, y[idx], b[idx]), rel=0, abs=TOL)


@pytest.mark.parametrize("name", ["r2", "neg_root_mean_squared_error",
                                  "neg_median_absolute_error", "d2_absolute_error_score"])
@pytest.mark.parametrize("test", [PairedPermutation, BergKirkpatrickBootstrap])
def test_tests_on_two_regressors(test, name):
    y, a, b = _data(8, n=60)
    result = test(n_resamples=199, random_state=0).test(y, a, b, metric=name)
    # a loss is reported as the loss (lower is better), delta = B - A in its units
    assert get_metric(name).greater_is_better == (not name.startswith("neg_"))
    assert result.score_a == pytest.approx(_sk(name, y, a), abs=TOL)
    assert result.score_b == pytest.approx(_sk(name, y, b), abs=TOL)
    assert result.delta == pytest.approx(_sk(name, y, b) - _sk(name, y, a), abs=TOL)
    assert 0 < result.pvalue <= 1


def test_score_equals_sklearn_and_weights():
    y, a, _ = _data(9)
    w = np.random.default_rng(1).uniform(0.5, 2, y.size)
    for name in ("r2", "neg_median_absolute_error"):
        est = score(y, a, metric=name, n_resamples=199, random_state=0, sample_weight=w)
        assert est.estimate == pytest.approx(_sk(name, y, a, w), abs=TOL)
        lo, hi = est.confidence_interval
        assert lo <= est.estimate <= hi


def test_per_item_tests_take_the_decomposable_losses_only():
    y, a, b = _data(10)
    for test in (SignTest(), WilcoxonSignedRank(), PairedTTest()):
        res = test.test(y, a, b, metric="neg_mean_absolute_error")
        assert res.delta == pytest.approx(skm.mean_absolute_error(y, b)
                                          - skm.mean_absolute_error(y, a), abs=TOL)
        with pytest.raises(ValueError, match="not decomposable"):
            test.test(y, a, b, metric="r2")
    # the paired t on per-item absolute errors is scipy's ttest_rel on them
    from scipy import stats
    want = stats.ttest_rel(np.abs(y - b), np.abs(y - a))
    assert PairedTTest().test(y, a, b, metric="neg_mean_absolute_error").pvalue == \
        pytest.approx(want.pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="McNemar compares accuracies"):
        McNemar().test(y, a, b, metric="neg_mean_absolute_error")


# ------------------------------------------------------------------ workflows
def test_compare_scores_and_pairs():
    y, a, b = _data(11, n=60)
    c = y + np.random.default_rng(2).normal(0, 1.0, y.size)
    preds = {"a": a, "b": b, "c": c}
    res = compare(y, preds, metrics=["r2", "neg_mean_absolute_error"],
                  test=PairedPermutation(n_resamples=199), random_state=0)
    frame = res.to_frame()
    assert len(frame) == 6
    for row in frame.itertuples():
        name = "r2" if row.metric == "r2" else "neg_mean_absolute_error"
        assert row.score_a == pytest.approx(_sk(name, y, preds[row.system_a]), abs=TOL)
        assert row.score_b == pytest.approx(_sk(name, y, preds[row.system_b]), abs=TOL)


def test_compare_many_systems_and_runs():
    """Six systems (the shared draw) and systems with several runs (averaged rows)."""
    rng = np.random.default_rng(12)
    y = rng.normal(0, 1, 40)
    preds = {f"s{k}": y + rng.normal(0, 0.5 + 0.1 * k, y.size) for k in range(6)}
    res = compare(y, preds, metrics="neg_mean_squared_error", correction=None,
                  test=BergKirkpatrickBootstrap(n_resamples=199), random_state=0)
    frame = res.to_frame()
    assert len(frame) == 15
    row = frame.iloc[0]
    assert row.score_a == pytest.approx(skm.mean_squared_error(y, preds[row.system_a]),
                                        abs=TOL)
    runs = {"a": [preds["s0"], preds["s1"]], "b": [preds["s2"], preds["s3"]]}
    res = compare(y, runs, metrics="r2", test=PairedPermutation(n_resamples=99),
                  random_state=0)
    pooled = skm.r2_score(np.tile(y, 2), np.concatenate(runs["a"]))
    assert res.to_frame().loc[0, "score_a"] == pytest.approx(pooled, abs=TOL)


def test_cross_val_compare_two_regressors():
    from sklearn.datasets import make_regression
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_predict
    from sklearn.tree import DecisionTreeRegressor

    X, y = make_regression(80, 4, noise=15.0, random_state=0)
    estimators = {"ridge": Ridge(alpha=1.0), "tree": DecisionTreeRegressor(max_depth=2,
                                                                           random_state=0)}
    cv = KFold(4, shuffle=True, random_state=0)
    res = sigtest.cross_val_compare(estimators, X, y, cv=cv,
                                    metrics=["r2", "neg_mean_absolute_error"],
                                    test=PairedPermutation(n_resamples=99), random_state=0)
    frame = res.to_frame().set_index("metric")
    for name, est in estimators.items():
        oof = cross_val_predict(est, X, y, cv=cv)
        np.testing.assert_allclose(res.predictions[name], oof)
    ridge = cross_val_predict(estimators["ridge"], X, y, cv=cv)
    assert frame.loc["r2", "score_a"] == pytest.approx(skm.r2_score(y, ridge), abs=TOL)
    assert frame.loc["mean_absolute_error", "score_a"] == pytest.approx(
        skm.mean_absolute_error(y, ridge), abs=TOL)
    with pytest.raises(ValueError, match="mixes regression metrics"):
        sigtest.cross_val_compare(estimators, X, y, metrics=["r2", "accuracy"])
    with pytest.raises(ValueError, match="predict_proba"):
        sigtest.cross_val_compare(estimators, X, y, metrics="r2", response_method="predict_proba")


def test_compare_datasets_of_regressors():
    rng = np.random.default_rng(13)
    data = {}
    for d in range(3):
        y = rng.normal(0, 1, 30)
        data[f"d{d}"] = (y, {"a": y + rng.normal(0, 0.9, 30), "b": y + rng.normal(0, 0.3, 30)})
    res = compare_datasets(data, metric="r2", test=PairedPermutation(n_resamples=99),
                           random_state=0)
    scores = res.scores
    for d, (y, preds) in data.items():
        for s, p in preds.items():
            assert scores.loc[d, s] == pytest.approx(skm.r2_score(y, p), abs=TOL)


@pytest.mark.parametrize("name", NAMES)
def test_get_scorer_equals_sklearn_scorer(name):
    """sigtest.get_scorer(name) on a fitted regressor equals scikit-learn's scorer."""
    from sklearn.neighbors import KNeighborsRegressor

    y, _, _ = _data(14, positive=True)  # neighbours' means of positive y are positive
    X = (y + np.random.default_rng(0).normal(0, 0.5, y.size))[:, None]
    est = KNeighborsRegressor(n_neighbors=3).fit(X[:50], y[:50])
    ours, theirs = get_scorer(name), skm.get_scorer(name)
    assert ours(est, X[50:], y[50:]) == pytest.approx(theirs(est, X[50:], y[50:]), abs=TOL)
    with pytest.raises(ValueError, match="'classes'.*regression metric"):
        get_scorer(name, classes=[0, 1])


def test_cli_compare_reads_float_files(tmp_path):
    y, a, b = _data(15, n=50)
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr)  # %.18e: every value distinct
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                   str(tmp_path / "b.txt"), "-m", "r2", "-m", "neg_mean_absolute_error",
                   "--test", "permutation", "-B", "99", "--seed", "0", "--format", "csv"],
                  out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue())).set_index("metric")
    assert got.loc["r2", "score_a"] == pytest.approx(skm.r2_score(y, a), abs=1e-9)
    assert got.loc["mean_absolute_error", "score_b"] == pytest.approx(
        skm.mean_absolute_error(y, b), abs=1e-9)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("name, y_bad, p_bad, arg", [
    ("neg_mean_squared_log_error", -1.0, None, "y_true"),
    ("neg_mean_squared_log_error", None, -1.5, "y_pred"),
    ("neg_root_mean_squared_log_error", None, -1.0, "y_pred"),
    ("neg_mean_gamma_deviance", 0.0, None, "y_true"),
    ("neg_mean_gamma_deviance", None, -0.5, "y_pred"),
    ("neg_mean_poisson_deviance", -0.1, None, "y_true"),
    ("neg_mean_poisson_deviance", None, 0.0, "y_pred"),
])
def test_values_outside_the_domain(name, y_bad, p_bad, arg):
    y, a, b = _data(16, n=30, positive=True)
    func = SKLEARN[name][0]
    if y_bad is not None:
        y = y.copy()
        y[4] = y_bad
    else:
        a = a.copy()
        a[4] = p_bad
    with pytest.raises(ValueError):  # scikit-learn refuses the same values
        func(y, a)
    plain = get_metric(name).name
    with pytest.raises(ValueError, match=f"'{arg}' parameter of the regression metric "
                                         f"'{plain}'"):
        get_metric(name)(y, a)
    engine_arg = "y_pred_a" if arg == "y_pred" else arg
    with pytest.raises(ValueError, match=f"'{engine_arg}'.*'{plain}'"):
        PairedPermutation(n_resamples=9).test(y, a, b, metric=name)
    # values just inside the domain are accepted (msle: > -1; poisson: y = 0)
    y, a, b = _data(16, n=30, positive=True)
    if name == "neg_mean_squared_log_error":
        assert np.isfinite(get_metric(name)(np.r_[y, -0.5], np.r_[a, 0.0]))
    if name == "neg_mean_poisson_deviance":
        assert get_metric(name)(np.r_[y, 0.0], np.r_[a, 1.0]) == pytest.approx(
            skm.mean_poisson_deviance(np.r_[y, 0.0], np.r_[a, 1.0]), abs=TOL)


@pytest.mark.parametrize("name", ["r2", "neg_mean_absolute_error", "neg_median_absolute_error"])
def test_bad_arrays(name):
    y, a, b = _data(17, n=20)
    plain = get_metric(name).name
    metric = get_metric(name)
    cases = [
        (np.array(["x", "y"] * 10), a, "y_true", "real numbers"),  # class labels
        (y, a.astype(str).astype(object) + "!", "y_pred", "real numbers"),
        (np.column_stack([y, y]), a, "y_true", "multi-output"),
        (y, np.where(np.arange(20) == 3, np.nan, a), "y_pred", "NaN"),
        (y, np.where(np.arange(20) == 3, np.inf, a), "y_pred", "NaN or infinity"),
        (y, a[:-1], "y_pred", "19 samples"),
        (y[:0], a[:0], "y_true", "empty"),
    ]
    for yy, pp, arg, what in cases:
        with pytest.raises(ValueError, match=f"'{arg}' parameter of the regression metric "
                                             f"'{plain}'.*{what}"):
            metric(yy, pp)
    with pytest.raises(ValueError, match=f"'y_pred_b'.*'{plain}'.*NaN"):
        PairedPermutation(n_resamples=9).test(y, a, np.where(np.arange(20) == 2, np.nan, b),
                                              metric=name)
    with pytest.raises(ValueError, match="'y_pred_a'.*multi-output"):
        BergKirkpatrickBootstrap(n_resamples=9).test(y, np.column_stack([a, a]), b,
                                                     metric=name)
    with pytest.raises(ValueError, match="'y_true'.*real numbers"):
        compare(np.array(["x", "y"] * 10), {"a": a, "b": b}, metrics=name)
    with pytest.raises(ValueError, match="regression metric.*1-D"):
        compare(np.column_stack([y, y]), {"a": a, "b": b}, metrics=name)


def test_unknown_keyword_and_max_error_weights():
    y, a, b = _data(18, n=20)
    with pytest.raises(TypeError, match="no_such"):
        PairedPermutation(n_resamples=9).test(y, a, b, metric="r2", no_such=1)
    with pytest.raises(TypeError, match="sample_weight"):
        get_metric("neg_max_error")(y, a, sample_weight=np.ones(20))


def test_bayesian_bootstrap_on_a_slow_metric_without_zero_division():
    """The Bayesian bootstrap's slow path passed zero_division=0.0 to every score
    function; median_absolute_error (and a user's r2_score) do not take it."""
    y, a, b = _data(19, n=40)
    test = sigtest.get_test("bayesian_bootstrap").set_params(n_resamples=99, random_state=0)
    for metric in ("neg_median_absolute_error", skm.r2_score):
        result = test.test(y, a, b, metric=metric)
        assert 0.0 <= result.prob_better <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r2", "neg_median_absolute_error"])
def test_permutation_test_size_and_power_on_regressors(name):
    """Seeded simulation: two regressors with exchangeable errors (H0 true) are
    rejected at the nominal rate; a clearly better one is detected.

    R = 300 data sets of N = 40, B = 199. Under H0 the Monte Carlo permutation
    p-value (c + 1)/(B + 1) is valid, so the rejection rate at alpha = 0.05 is
    at most 0.05; its binomial sd over R = 300 is sqrt(0.05 * 0.95 / 300) =
    0.0126, so [0.01, 0.10] (3.2 sd below, 4 sd above 0.05) fails by chance
    with probability < 1e-3. Under the alternative (error sd 1.0 vs 0.5) the
    power at N = 40 is near 1; >= 0.8 leaves a wide margin.
    """
    rng = np.random.default_rng(20)
    test = PairedPermutation(n_resamples=199)
    null = alt = 0
    R = 300
    for r in range(R):
        y = rng.normal(0, 1, 40)
        a = y + rng.normal(0, 0.7, 40)
        b = y + rng.normal(0, 0.7, 40)
        null += test.set_params(random_state=r).test(y, a, b, metric=name).pvalue <= 0.05
        if r < 50:
            b = y + rng.normal(0, 0.35, 40)
            a = y + rng.normal(0, 1.0, 40)
            alt += test.test(y, a, b, metric=name).pvalue <= 0.05
    assert 0.01 <= null / R <= 0.10, null / R
    assert alt / 50 >= 0.8, alt / 50
