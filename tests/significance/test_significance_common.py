"""Properties every test must have, for a set of metrics x the three tests."""

import warnings

import numpy as np
import pytest
from scipy.stats import binom
from sklearn.metrics import f1_score

from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    PairedPermutation,
    get_metric_names,
)
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import Metric

B = 400
HARD = ["accuracy", "f1_macro", "precision_micro", "recall_weighted"]
SOFT = ["soft_accuracy", "jsd", "cross_entropy", "soft_f1_macro", "po_jsd",
        "entropy_correlation"]
# every test x every metric: tests/significance/test_registry_common.py


def _error_rate_stats(y_true, y_pred, **params):
    wrong = (np.asarray(y_true) != np.asarray(y_pred)).astype(float)
    return np.column_stack([wrong, np.ones_like(wrong)])


# a hard-label loss (lower is better), cellwise so it uses the compressed path
ERROR_RATE = Metric(
    "error_rate",
    score_func=lambda y, p, **kw: float(np.mean(np.asarray(y) != np.asarray(p))),
    greater_is_better=False,
    statistics=_error_rate_stats,
    aggregate=lambda s, **kw: s[..., 0] / s[..., 1],
    cellwise=True,
)


def make_tests(**kw):
    return [
        BergKirkpatrickBootstrap(n_resamples=B, **kw),
        BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided", **kw),
        BCaInterval(n_resamples=B, **kw),
        PairedPermutation(n_resamples=B, **kw),
    ]


TEST_IDS = ["bk_greater", "bk_two_sided", "bca", "permutation"]


def hard_data(seed=0, n=150, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.65, y, (y + rng.integers(1, k, n)) % k)
    b = np.where(rng.random(n) < 0.75, y, (y + rng.integers(1, k, n)) % k)
    return y, a, b


def soft_data(seed=0, n=120, k=3):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    qa = 0.5 * p + 0.5 * rng.dirichlet(np.ones(k), n)
    qb = 0.8 * p + 0.2 * rng.dirichlet(np.ones(k), n)
    return p, qa, qb


def data_for(metric, seed=0):
    if metric in SOFT:
        return soft_data(seed)
    return hard_data(seed)


METRICS = HARD + SOFT + [ERROR_RATE]
METRIC_IDS = HARD + SOFT + ["error_rate"]


def run(test, data, metric, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDistributionWarning)
        return test.test(*data, metric=metric, **kw)


def _mc_tol(p, n):
    """4.5 SDs of the difference of two independent MC estimates of p (+ 2/n)."""
    return 4.5 * np.sqrt(2 * max(p * (1 - p), 0.01) / n) + 2 / n


@pytest.mark.parametrize("metric", METRICS, ids=METRIC_IDS)
@pytest.mark.parametrize("idx", range(4), ids=TEST_IDS)
def test_ab_swap_negates(metric, idx):
    y, a, b = data_for(metric)
    test = make_tests(random_state=3)[idx]
    r_ab = run(test, (y, a, b), metric)
    r_ba = run(test, (y, b, a), metric)
    assert r_ba.delta == -r_ab.delta
    assert r_ba.statistic == -r_ab.statistic
    assert r_ab.score_a == r_ba.score_b
    # the generic path draws the same items / swaps for (a, b) and (b, a):
    # then the resampled differences negate exactly; the compressed path
    # orders cells differently, so agreement is within Monte Carlo error
    exact = r_ab.resampling == "exact permutation"
    same_draws = exact or not (metric in HARD or metric is ERROR_RATE)
    if same_draws and not exact:  # exact patterns may be enumerated in another order
        np.testing.assert_allclose(r_ba.null_distribution, -r_ab.null_distribution,
                                   rtol=1e-12, atol=1e-15)
    if isinstance(test, BCaInterval):
        low, high = r_ab.confidence_interval
        se = np.std(r_ab.null_distribution)
        tol = 1e-9 * se if same_draws else 0.6 * se
        np.testing.assert_allclose(r_ba.confidence_interval, (-high, -low), atol=tol)
    elif test.alternative == "greater":
        # exactly one direction can show evidence; the other has p = 1
        assert max(r_ab.pvalue, r_ba.pvalue) == 1.0
    else:
        tol = 1e-12 if same_draws else _mc_tol(r_ab.pvalue, B)
        assert abs(r_ab.pvalue - r_ba.pvalue) <= tol


@pytest.mark.parametrize("metric", HARD + [ERROR_RATE], ids=HARD + ["error_rate"])
@pytest.mark.parametrize("idx", range(4), ids=TEST_IDS)
def test_sample_order_and_label_type_ignored(metric, idx):
    y, a, b = hard_data(1)
    test = make_tests(random_state=5)[idx]
    ref = run(test, (y, a, b), metric)
    order = np.random.default_rng(9).permutation(len(y))
    shuffled = run(test, (y[order], a[order], b[order]), metric)
    names = np.array(["ant", "bee", "cat"])  # sorts like 0 < 1 < 2
    as_str = run(test, (names[y], names[a], names[b]), metric)
    for other in (shuffled, as_str):
        assert other.score_a == ref.score_a and other.score_b == ref.score_b
        np.testing.assert_array_equal(other.null_distribution, ref.null_distribution)
        assert other.pvalue == ref.pvalue or np.isnan(ref.pvalue)
        np.testing.assert_array_equal(other.confidence_interval, ref.confidence_interval)


@pytest.mark.parametrize("metric", METRICS, ids=METRIC_IDS)
@pytest.mark.parametrize("idx", range(4), ids=TEST_IDS)
def test_same_random_state_identical(metric, idx):
    data = data_for(metric, 2)
    r1 = run(make_tests(random_state=11)[idx], data, metric)
    r2 = run(make_tests(random_state=11)[idx], data, metric)
    r3 = run(make_tests(random_state=12)[idx], data, metric)
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    assert r1.pvalue == r2.pvalue
    np.testing.assert_array_equal(r1.confidence_interval, r2.confidence_interval)
    if r1.resampling != "exact permutation":
        assert not np.array_equal(r1.null_distribution, r3.null_distribution)


@pytest.mark.parametrize("metric", METRICS, ids=METRIC_IDS)
@pytest.mark.parametrize("idx", range(4), ids=TEST_IDS)
def test_identical_systems_never_significant(metric, idx):
    y, a, _ = data_for(metric, 3)
    test = make_tests(random_state=0)[idx]
    with pytest.warns(DegenerateDistributionWarning):
        res = test.test(y, a, a.copy(), metric=metric)
    assert res.delta == 0 and res.statistic == 0
    assert res.pvalue == 1.0
    assert res.stars == "" and "*" not in str(res)
    if isinstance(test, BCaInterval):
        assert np.isnan(res.confidence_interval.low)


@pytest.mark.parametrize("metric", ["jsd", "cross_entropy"]
                         + [ERROR_RATE])
def test_loss_b_better_means_lower(metric):
    data = data_for(metric, 4)
    y, a, b = data
    bk = BergKirkpatrickBootstrap(n_resamples=2000, alternative="greater", random_state=0)
    res = bk.test(y, a, b, metric=metric)
    assert res.greater_is_better is False
    assert res.score_b < res.score_a  # B is the better system
    assert res.delta < 0 and res.statistic > 0
    assert res.pvalue < 0.01
    # B as baseline, A as candidate: no evidence at all for the worse system
    assert bk.test(y, b, a, metric=metric).pvalue == 1.0
    perm = PairedPermutation(n_resamples=2000, alternative="greater", random_state=0)
    assert perm.test(y, a, b, metric=metric).pvalue < 0.01
    less = perm.set_params(alternative="less").test(y, a, b, metric=metric).pvalue
    assert less > 0.99


@pytest.mark.parametrize("n", [50, 3000])
def test_one_differing_item_bootstrap(n):
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    b[0] = y[0]
    a = b.copy()
    a[0] = 1 - y[0]  # A wrong on item 0 only; scores ~0.7, delta = 1/n
    # at n = 3000 the tie delta* == 2 delta only survives the rounding of
    # score_b* - score_a* thanks to the score-relative tolerance
    with pytest.warns(SmallSampleWarning):
        res = BergKirkpatrickBootstrap(n_resamples=20_000, alternative="greater",
                                       random_state=0).test(y, a, b)
    # delta* >= 2 delta iff item 0 is drawn at least twice: P(Bin(N, 1/N) >= 2);
    # the unfloored (k + 1)/(B + 1) estimates it, the reported p is floored at
    # 2**-1 (one discordant item)
    expected = binom.sf(1, n, 1 / n)
    raw = res.params["pvalue_unfloored"]
    assert raw == pytest.approx(expected, abs=4.5 * np.sqrt(expected / 20_000))
    assert res.pvalue == 0.5


def _positive_precision_stats(y_true, y_pred, **params):
    y, p = np.asarray(y_true), np.asarray(y_pred)
    return np.column_stack([(p == 1) & (y == 1), p == 1]).astype(float)


# precision of class 1, nan when nothing is predicted positive
PRECISION_1 = Metric(
    "precision_1",
    score_func=lambda y, p, **kw: float(np.sum((p == 1) & (y == 1)) / np.sum(p == 1))
    if np.sum(p == 1) else float("nan"),
    statistics=_positive_precision_stats,
    aggregate=lambda s, **kw: np.divide(s[..., 0], s[..., 1], out=np.full(s.shape[:-1], np.nan),
                                        where=s[..., 1] > 0),
    cellwise=True,
)


def test_nan_resamples_are_dropped_with_warning():
    n = 40
    y = np.zeros(n, int)
    y[:2] = 1
    a = np.zeros(n, int)
    a[[0, 5]] = 1  # A: one of two positives right
    b = np.zeros(n, int)
    b[[0, 1]] = 1  # B: both right
    with pytest.warns(DegenerateDistributionWarning, match="not finite"):
        res = BCaInterval(n_resamples=1000, method="percentile", random_state=0).test(
            y, a, b, metric=PRECISION_1)
    # a resample is nan if it misses both of A's positives {0, 5} or both of
    # B's {0, 1}: P = 2 (38/40)^40 - (37/40)^40 ~ 0.213; 4.5 binomial SDs
    p_nan = 2 * (38 / 40) ** 40 - (37 / 40) ** 40
    sd = np.sqrt(1000 * p_nan * (1 - p_nan))
    assert abs(res.n_resamples - 1000 * (1 - p_nan)) < 4.5 * sd
    assert np.all(np.isfinite(res.null_distribution))
    assert np.isfinite(res.pvalue) and np.isfinite(res.confidence_interval.low)


def test_nan_observed_difference_is_not_significant():
    y = np.array([0, 1, 0, 1, 0, 0])
    a = np.zeros(6, int)  # never predicts the positive class: precision undefined
    b = np.array([0, 1, 0, 1, 0, 0])
    for test in make_tests(random_state=0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDistributionWarning)
            res = test.test(y, a, b, metric=PRECISION_1)
        assert np.isnan(res.delta)
        assert np.isnan(res.pvalue) and res.stars == "" and "*" not in str(res)


def test_class_absent_from_data_still_counts():
    y, a, b = hard_data(6, n=100, k=3)
    labels = [0, 1, 2, 3]  # class 3 occurs nowhere: its F1 is 0/0 -> zero_division
    res = BCaInterval(n_resamples=300, random_state=0).test(
        y, a, b, metric="f1_macro", labels=labels, zero_division=0.0)
    assert res.score_a == pytest.approx(
        f1_score(y, a, average="macro", labels=labels, zero_division=0.0))
    default = BCaInterval(n_resamples=300, random_state=0).test(
        y, a, b, metric="f1_macro", zero_division=0.0)
    assert res.score_a == pytest.approx(0.75 * default.score_a)
    np.testing.assert_allclose(res.null_distribution, 0.75 * default.null_distribution,
                               rtol=1e-12, atol=1e-15)


# a metric with only a score function: the engine's slow path (index batches)
MAE = Metric(
    "mae",
    score_func=lambda y, p, sample_weight=None, **kw: float(
        np.average(np.abs(np.asarray(y, float) - np.asarray(p, float)), weights=sample_weight)),
    greater_is_better=False,
)


def test_slow_path_metric_without_statistics():
    rng = np.random.default_rng(8)
    y = rng.normal(size=60)
    a = y + rng.normal(0, 1.0, 60)
    b = y + rng.normal(0, 0.5, 60)  # B better: lower MAE
    bk = BergKirkpatrickBootstrap(n_resamples=300, random_state=0).test(y, a, b, metric=MAE)
    assert bk.statistic > 0 and bk.pvalue < 0.05 and bk.n_resamples == 300
    assert bk.acceleration is None  # no closed-form jackknife without statistics
    bca = BCaInterval(n_resamples=300, random_state=0).test(y, a, b, metric=MAE)
    assert bca.confidence_interval.high < 0  # delta = mae_b - mae_a < 0
    assert np.isfinite(bca.acceleration)  # N score calls (item jackknife)
    perm = PairedPermutation(n_resamples=300, random_state=0).test(y, a, b, metric=MAE)
    assert perm.resampling == "permutation" and perm.pvalue < 0.05
    swapped = PairedPermutation(n_resamples=300, random_state=0).test(y, b, a, metric=MAE)
    # same swap masks for (a, b) and (b, a): the null distribution negates exactly
    np.testing.assert_allclose(swapped.null_distribution, -perm.null_distribution, atol=1e-15)
    assert swapped.pvalue == perm.pvalue
    with pytest.raises(ValueError, match="exact"):
        PairedPermutation(exact=True).test(y, a, b, metric=MAE)


def test_the_metric_lists_name_registered_metrics():
    """The lists above are used as given: an unknown name fails here, not silently."""
    assert set(HARD + SOFT) <= set(get_metric_names())
