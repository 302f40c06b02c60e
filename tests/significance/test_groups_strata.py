"""Issue 10: every significance test with ``groups=`` (clusters) and ``strata=``.

The engine turns clusters into rows; these tests check what the *tests* make
of it, against naive NumPy twins written here:

* with every item its own cluster (``groups=arange(N)``) each test gives the
  same answer as without groups (bit-identical where the computation is the
  same, within Monte Carlo error where only the random draws differ);
* the resampled distributions of BK, BCa and the permutation test agree with
  a plain cluster bootstrap / cluster permutation / stratified bootstrap
  written here (draw cluster indices, concatenate their items, score them),
  for a hard-label metric (compressed path), a soft one (generic path) and a
  metric without statistics (slow path);
* the exact permutation over clusters equals brute-force enumeration of the
  ``2**G`` swap patterns;
* the sign, Wilcoxon and t-tests equal scipy on cluster values computed here;
  McNemar with groups equals Durkalski's formula computed here;
* determinism, errors naming the argument, ``n_groups``/``n_strata`` in the
  results, one ``SmallSampleWarning`` for few clusters.

Tolerances of the distribution comparisons (two independent samples of
``B = 4000`` resampled differences, engine vs naive): a two-sample
Kolmogorov-Smirnov test must not reject at alpha = 1e-3; the means must agree
within 4.5 standard errors ``sqrt(sd1**2/B + sd2**2/B)`` (two-sided normal
tail 7e-6); the standard deviations within ``|log(sd1/sd2)| < 0.1``: the
standard error of a log standard deviation is about ``sqrt((kurtosis - 1) /
(4 B))``, ~0.011 per sample for these near-normal distributions, so the
difference has SE ~0.016 and 0.1 is ~6 SE. Each comparison is paired with a
power check: the *item-level* bootstrap of the same clustered data has a
standard deviation outside that band, so the comparison can tell the schemes
apart.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import f1_score, matthews_corrcoef

from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    McNemar,
    PairedPermutation,
    PairedTTest,
    SignTest,
    WilcoxonSignedRank,
)
from sigtest._engine import prepare_paired
from sigtest._engine.resampling import bootstrap_sums
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import Metric, get_metric

B = 4000
KS_ALPHA = 1e-3
MEAN_Z = 4.5
LOG_SD_TOL = 0.1


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def _clustered_labels(G=60, seed=0, K=3, lo=3, hi=12, effect=1.5):
    """Hard labels in G clusters; items shuffled.

    Each system's accuracy varies between clusters (a random effect per
    system and cluster), so the difference is correlated within clusters and
    the cluster bootstrap's spread is clearly wider than the item
    bootstrap's.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(lo, hi + 1, G)
    groups = np.repeat(np.arange(G), sizes)
    order = rng.permutation(groups.size)
    groups = groups[order]
    y = rng.integers(0, K, groups.size)
    shift = rng.integers(1, K, groups.size)

    def system(bias):  # each system has its own strength per cluster
        u = rng.normal(0.0, effect, G)[groups]
        right = rng.random(groups.size) < 1.0 / (1.0 + np.exp(-(bias + u)))
        return np.where(right, y, (y + shift) % K)

    return y, system(0.8), system(1.1), groups


def _clustered_soft(G=50, seed=0, K=3, lo=3, hi=10):
    """Distributions in G clusters: the systems' noise is shared within a cluster."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(lo, hi + 1, G)
    groups = rng.permutation(np.repeat(np.arange(G), sizes))
    n = groups.size
    y = rng.dirichlet(np.ones(K), n)
    noise = rng.dirichlet(np.ones(K), G)[groups]
    mix_a = rng.uniform(0.2, 0.8, G)[groups][:, None]
    mix_b = np.clip(mix_a + rng.normal(0.01, 0.1, G)[groups][:, None], 0.0, 1.0)
    a = mix_a * y + (1 - mix_a) * noise
    b = mix_b * y + (1 - mix_b) * noise
    return y, a, b, groups


def _members(groups):
    G = int(groups.max()) + 1
    return [np.flatnonzero(groups == g) for g in range(G)]


# --------------------------------------------------------------------------
# naive metric twins (vectorised, checked against scikit-learn once)
# --------------------------------------------------------------------------
def _accuracy(y, p):
    return float(np.mean(y == p))


def _confusion(y, p, K):
    return np.bincount(y * K + p, minlength=K * K).reshape(K, K).astype(float)


def _macro_f1(y, p, K=3):
    c = _confusion(y, p, K)
    tp = np.diag(c)
    denom = c.sum(0) + c.sum(1)
    return float(np.mean(np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)))


def _mcc(y, p, K=3):
    c = _confusion(y, p, K)
    t, q, s = c.sum(1), c.sum(0), c.sum()
    cov = np.trace(c) * s - t @ q
    den = math.sqrt((s * s - q @ q) * (s * s - t @ t))
    return 0.0 if den == 0 else float(cov / den)


def _mcc_score(y_true, y_pred):
    return _mcc(np.asarray(y_true), np.asarray(y_pred))


def _soft_f1_macro(y, p):
    """Soft macro F1: mean over classes of ``2 sum_i min(P_ik, Q_ik) / sum_i (P_ik + Q_ik)``."""
    return float(np.mean(2 * np.minimum(y, p).sum(0) / (y + p).sum(0)))


# The NumPy soft F1 (equal to the registered score function, checked below) keeps
# the 8000 calls of a naive bootstrap cheap: the registered one validates the
# distributions on every call (~0.9 ms a call, ~7 s a bootstrap under load).
SOFT_F1 = _soft_f1_macro
# Metric without statistics (slow path). The NumPy MCC (equal to scikit-learn's,
# checked below) keeps the thousands of score_func calls of the slow path cheap
# (scikit-learn's costs ~2 ms a call).
MCC_SLOW = Metric("mcc_slow", _mcc_score, greater_is_better=True)


def test_naive_metric_twins_equal_sklearn():
    y, a, _, _ = _clustered_labels(seed=3)
    assert _macro_f1(y, a) == pytest.approx(f1_score(y, a, average="macro"), abs=1e-12)
    assert _mcc(y, a) == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    y, a, _, _ = _clustered_labels(seed=4, K=2)
    assert _mcc(y, a) == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    soft_f1 = get_metric("soft_f1_macro").score_func
    for seed in (3, 4):
        y, a, b, g = _clustered_soft(seed=seed)
        idx = np.random.default_rng(seed).integers(0, y.shape[0], y.shape[0])
        for p in (a, b):
            assert _soft_f1_macro(y, p) == pytest.approx(soft_f1(y, p), abs=1e-12)
            assert _soft_f1_macro(y[idx], p[idx]) == pytest.approx(soft_f1(y[idx], p[idx]),
                                                                   abs=1e-12)


# --------------------------------------------------------------------------
# naive resampling twins
# --------------------------------------------------------------------------
def _naive_cluster_bootstrap(f, y, a, b, groups, n, seed, strata=None, items=False):
    """Raw ``f(B*) - f(A*)`` over ``n`` resamples of whole clusters (within strata).

    ``items=True`` resamples items instead (the wrong scheme, for power checks).
    """
    rng = np.random.default_rng(seed)
    members = [np.array([i]) for i in range(len(y))] if items else _members(groups)
    units = np.arange(len(members))
    if strata is None:
        by_stratum = [units]
    else:
        unit_strata = strata if items else np.array([strata[m[0]] for m in members])
        by_stratum = [units[unit_strata == h] for h in np.unique(unit_strata)]
    out = np.empty(n)
    for r in range(n):
        drawn = np.concatenate([own[rng.integers(0, own.size, own.size)]
                                for own in by_stratum])
        idx = np.concatenate([members[u] for u in drawn])
        out[r] = f(y[idx], b[idx]) - f(y[idx], a[idx])
    return out


def _naive_cluster_permutation(f, y, a, b, groups, n, seed):
    rng = np.random.default_rng(seed)
    G = int(groups.max()) + 1
    out = np.empty(n)
    for r in range(n):
        sw = (rng.random(G) < 0.5)[groups]
        sw_ = sw.reshape((-1,) + (1,) * (a.ndim - 1))
        out[r] = f(y, np.where(sw_, a, b)) - f(y, np.where(sw_, b, a))
    return out


def _assert_same_distribution(engine, naive, wrong=None):
    """KS, mean and sd agreement (tolerances in the module docstring)."""
    engine, naive = np.asarray(engine), np.asarray(naive)
    assert engine.size >= 0.99 * B and naive.size == B
    ks = stats.ks_2samp(engine, naive)
    assert ks.pvalue > KS_ALPHA, ks
    se = math.sqrt(engine.var() / engine.size + naive.var() / naive.size)
    assert abs(engine.mean() - naive.mean()) < MEAN_Z * se
    assert abs(math.log(engine.std() / naive.std())) < LOG_SD_TOL
    if wrong is not None:  # power: the wrong (item-level) scheme is told apart
        assert abs(math.log(np.std(wrong) / naive.std())) > 2 * LOG_SD_TOL


def _quiet(test, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        return test.test(*args, **kwargs)


# --------------------------------------------------------------------------
# (a) groups=arange(N): every item its own cluster
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def items():
    y, a, b, _ = _clustered_labels(G=80, seed=11)
    return y, a, b, np.arange(y.size)


@pytest.mark.parametrize("test", [
    SignTest(), SignTest(alternative="greater"), WilcoxonSignedRank(),
    PairedTTest(), PairedTTest(alternative="less"),
    PairedPermutation(exact=True), PairedPermutation(exact=True, alternative="greater"),
], ids=lambda t: repr(t))
def test_singleton_clusters_give_the_item_level_answer(items, test):
    """Bit-identical up to rounding: the per-cluster values are the per-item
    values (sign, Wilcoxon, t), and the exact permutation distribution over
    singleton clusters is the item-level one."""
    y, a, b, g = items
    plain, clustered = test.test(y, a, b), test.test(y, a, b, groups=g)
    assert clustered.pvalue == pytest.approx(plain.pvalue, rel=1e-12, abs=1e-15)
    if plain.confidence_interval is not None and np.isfinite(plain.confidence_interval[0]):
        np.testing.assert_allclose(clustered.confidence_interval, plain.confidence_interval,
                                   rtol=1e-12)
    assert (plain.n_groups, clustered.n_groups) == (None, y.size)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_singleton_clusters_mcnemar_is_the_uncorrected_chi_square(items, alternative):
    """Durkalski's X^2 with one item per cluster is (b - c)^2 / (b + c)."""
    y, a, b, g = items
    plain = McNemar(method="chi2", continuity=False, alternative=alternative).test(y, a, b)
    clustered = McNemar(method="chi2", alternative=alternative).test(y, a, b, groups=g)
    assert clustered.pvalue == pytest.approx(plain.pvalue, rel=1e-12)
    if alternative == "two-sided":
        assert clustered.params["test_statistic"] == pytest.approx(
            plain.params["test_statistic"], rel=1e-12)


def test_singleton_clusters_bootstrap_statistically_equal(items):
    """The delete-one-cluster jackknife of singletons is the item jackknife
    (acceleration equal to rounding); the bootstrap draws run on other rows
    (cluster rows vs cells), so p-values agree only within Monte Carlo error:
    |p1 - p2| < 4.5 * sqrt(2 p (1 - p) / B)."""
    y, a, b, g = items
    for test in (BergKirkpatrickBootstrap(n_resamples=B, random_state=3),
                 BCaInterval(n_resamples=B, random_state=3)):
        plain, clustered = test.test(y, a, b), test.test(y, a, b, groups=g)
        assert clustered.acceleration == pytest.approx(plain.acceleration, rel=1e-9)
        p = plain.pvalue
        assert abs(clustered.pvalue - p) < 4.5 * math.sqrt(2 * p * (1 - p) / B) + 1e-12
        _assert_same_distribution(clustered.null_distribution, plain.null_distribution)


# --------------------------------------------------------------------------
# (b) engine vs naive cluster bootstrap / cluster permutation
# --------------------------------------------------------------------------
CASES = {
    # name: (data maker, metric, naive score function)
    "accuracy (compressed path)": (_clustered_labels, "accuracy", _accuracy),
    "f1_macro (compressed path)": (_clustered_labels, "f1_macro", _macro_f1),
    "soft_f1_macro (generic path)": (_clustered_soft, "soft_f1_macro", SOFT_F1),
    "mcc without statistics (slow path)": (_clustered_labels, MCC_SLOW, _mcc),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    make, metric, f = CASES[request.param]
    y, a, b, g = make(seed=5)
    return request.param, y, a, b, g, metric, f


def test_cluster_bootstrap_matches_naive(case):
    name, y, a, b, g, metric, f = case
    naive = _naive_cluster_bootstrap(f, y, a, b, g, B, seed=100)
    wrong = _naive_cluster_bootstrap(f, y, a, b, g, 1000, seed=101, items=True)
    bk = BergKirkpatrickBootstrap(n_resamples=B, random_state=7).test(y, a, b, metric=metric,
                                                                      groups=g)
    bca = BCaInterval(n_resamples=B, random_state=8).test(y, a, b, metric=metric, groups=g)
    assert bk.n_groups == bca.n_groups == int(g.max()) + 1
    assert bk.params["resample_size"] == bk.n_groups
    _assert_same_distribution(bk.null_distribution, naive, wrong)
    _assert_same_distribution(bca.null_distribution, naive)
    # the percentile interval sits at the naive 2.5 % / 97.5 % quantiles: the
    # SE of a quantile is sqrt(p (1 - p) / B) / density ~ 0.042 sd for a
    # near-normal distribution at B = 4000, 0.06 sd for the difference of two;
    # 0.3 sd is 5 SE
    lo, hi = np.quantile(naive, [0.025, 0.975])
    pct = bca.ci(method="percentile")
    sd = naive.std()
    assert abs(pct.low - lo) < 0.3 * sd and abs(pct.high - hi) < 0.3 * sd


def test_cluster_permutation_matches_naive(case):
    name, y, a, b, g, metric, f = case
    naive = _naive_cluster_permutation(f, y, a, b, g, B, seed=200)
    test = PairedPermutation(n_resamples=B, exact=False, random_state=9)
    res = test.test(y, a, b, metric=metric, groups=g)
    assert res.resampling == "permutation" and res.n_groups == int(g.max()) + 1
    # power: swapping items instead of clusters gives a clearly narrower null
    rng = np.random.default_rng(201)
    wrong = np.empty(1000)
    for r in range(wrong.size):
        sw = (rng.random(y.shape[0]) < 0.5).reshape((-1,) + (1,) * (a.ndim - 1))
        wrong[r] = f(y, np.where(sw, a, b)) - f(y, np.where(sw, b, a))
    _assert_same_distribution(res.null_distribution, naive, wrong)
    # the p-value is the naive count's, within Monte Carlo error
    t = res.delta
    p_naive = (1 + np.count_nonzero(np.abs(naive) >= abs(t) - 1e-12)) / (B + 1)
    assert abs(res.pvalue - p_naive) < 4.5 * math.sqrt(2 * p_naive * (1 - p_naive) / B) + 1e-3


# --------------------------------------------------------------------------
# (c) stratified bootstrap vs a naive within-stratum bootstrap
# --------------------------------------------------------------------------
@pytest.mark.parametrize("design", ["strata", "groups+strata"])
@pytest.mark.parametrize("which", ["accuracy", "soft_f1_macro", "mcc_slow"])
def test_stratified_bootstrap_matches_naive(design, which):
    if which == "soft_f1_macro":
        y, a, b, g = _clustered_soft(seed=21)
        metric, f = "soft_f1_macro", SOFT_F1
    else:
        y, a, b, g = _clustered_labels(seed=21)
        metric, f = ("accuracy", _accuracy) if which == "accuracy" else (MCC_SLOW, _mcc)
    strata = g % 3  # clusters nest in strata
    if design == "strata":
        # item-level strata, unrelated to the clusters (which are ignored)
        strata = np.random.default_rng(22).integers(0, 4, y.shape[0])
        kw = {"strata": strata}
        naive = _naive_cluster_bootstrap(f, y, a, b, None, B, seed=300, strata=strata,
                                         items=True)
    else:
        kw = {"groups": g, "strata": strata}
        naive = _naive_cluster_bootstrap(f, y, a, b, g, B, seed=300, strata=strata)
    res = BCaInterval(n_resamples=B, random_state=10).test(y, a, b, metric=metric, **kw)
    assert res.n_strata == len(np.unique(strata))
    _assert_same_distribution(res.null_distribution, naive)
    bk = BergKirkpatrickBootstrap(n_resamples=B, random_state=10).test(y, a, b, metric=metric,
                                                                       **kw)
    # same seed, same draws: BK and BCa see the same stratified distribution
    np.testing.assert_array_equal(bk.null_distribution, res.null_distribution)


def test_stratified_bootstrap_keeps_stratum_sizes():
    """Strata = the gold class: every resample has exactly n_h items of class h
    (the true_k count columns of f1_macro's statistics); without strata they vary."""
    y, a, b, g = _clustered_labels(seed=31)
    K = 3
    n_h = np.bincount(y, minlength=K)
    paired = prepare_paired(y, a, b, "f1_macro", strata=y)
    sums_a, _ = bootstrap_sums(paired, 500, seed=1)
    np.testing.assert_array_equal(sums_a[:, 2 * K:3 * K], np.tile(n_h, (500, 1)))
    plain, _ = bootstrap_sums(prepare_paired(y, a, b, "f1_macro"), 500, seed=1)
    assert np.ptp(plain[:, 2 * K]) > 0
    # clusters within strata: clusters of equal size 4 whose items all have class g % 3
    G = 45
    g2 = np.repeat(np.arange(G), 4)
    y2 = g2 % 3
    a2 = np.where(np.random.default_rng(0).random(g2.size) < 0.7, y2, (y2 + 1) % 3)
    paired = prepare_paired(y2, a2, y2, "f1_macro", groups=g2, strata=g2 % 3)
    sums_a, _ = bootstrap_sums(paired, 300, seed=2)
    np.testing.assert_array_equal(sums_a[:, 2 * K:3 * K], np.tile([60, 60, 60], (300, 1)))


def test_bca_warns_only_when_the_sign_floor_sets_p():
    """Many discordant clusters and a tiny raw p: the Monte Carlo floor
    1/(B+1) sets p, not the sign-test floor 2**(1-d): no SmallSampleWarning."""
    y, a, _, g = _clustered_labels(G=60, seed=42)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        res = BCaInterval(n_resamples=500, random_state=0).test(y, a, y, groups=g)
    assert res.pvalue == pytest.approx(1 / 501) and res.params["n_discordant"] >= 40
    # 3 discordant clusters (A wrong on every item of clusters 0-2, B always
    # right): the sign floor 2**(1 - 3) sets p and the warning says so
    a3 = np.where(np.isin(g, [0, 1, 2]), (y + 1) % 3, y)
    with pytest.warns(SmallSampleWarning, match="sign-test bound"):
        res = BCaInterval(n_resamples=500, random_state=0).test(y, a3, y, groups=g)
    assert res.pvalue == pytest.approx(2.0 ** (1 - 3))


def test_bk_sample_size_with_strata_is_a_fraction_per_stratum():
    y, a, b, g = _clustered_labels(seed=41)
    strata = g % 3
    G_h = np.bincount(np.unique(np.c_[g, strata], axis=0)[:, 1])
    res = _quiet(BergKirkpatrickBootstrap(n_resamples=200, sample_size=0.5, random_state=0),
                 y, a, b, groups=g, strata=strata)
    assert res.params["resample_size"] == int(sum(np.floor(0.5 * G_h)))
    assert res.resampling == "subsample bootstrap" and res.acceleration is None
    with pytest.raises(ValueError, match="sample_size"):
        BergKirkpatrickBootstrap(n_resamples=200, sample_size=10).test(y, a, b, strata=strata)
    res = _quiet(BergKirkpatrickBootstrap.boostsa(random_state=0), y, a, b, groups=g)
    assert res.params["resample_size"] == math.floor(0.1 * res.n_groups + 1e-9)
    with pytest.raises(ValueError, match="n_groups=60"):
        BergKirkpatrickBootstrap(sample_size=61).test(y, a, b, groups=g)


# --------------------------------------------------------------------------
# (d) exact permutation over clusters = brute force over 2**G swap patterns
# --------------------------------------------------------------------------
@pytest.mark.parametrize("metric,f", [("accuracy", _accuracy), ("f1_macro", _macro_f1)])
def test_exact_cluster_permutation_equals_brute_force(metric, f):
    y, a, b, g = _clustered_labels(G=8, seed=51, lo=2, hi=6)
    G = 8
    deltas = np.empty(2**G)
    for k in range(2**G):
        sw = (((k >> np.arange(G)) & 1) == 1)[g]
        deltas[k] = f(y, np.where(sw, a, b)) - f(y, np.where(sw, b, a))
    t = f(y, b) - f(y, a)
    tol = 1e-9
    expected = {
        "two-sided": np.mean(np.abs(deltas) >= abs(t) - tol),
        "greater": np.mean(deltas >= t - tol),
        "less": np.mean(deltas <= t + tol),
    }
    for alternative, p in expected.items():
        with pytest.warns(SmallSampleWarning, match="G = 8 clusters"):
            res = PairedPermutation(exact=True, alternative=alternative).test(
                y, a, b, metric=metric, groups=g)
        assert res.resampling == "exact permutation"
        assert res.pvalue == pytest.approx(p, abs=1e-12)
    # the whole distribution: equal probabilities per distinct value
    with pytest.warns(SmallSampleWarning):
        res = PairedPermutation(exact=True).test(y, a, b, metric=metric, groups=g)
    values = np.round(res.null_distribution, 9)
    engine = {v: res.null_weights[values == v].sum() for v in np.unique(values)}
    brute = {v: np.mean(np.round(deltas, 9) == v) for v in np.unique(np.round(deltas, 9))}
    assert engine.keys() == brute.keys()
    for v in brute:
        assert engine[v] == pytest.approx(brute[v], abs=1e-12)


# --------------------------------------------------------------------------
# classical tests on cluster values vs scipy
# --------------------------------------------------------------------------
def _cluster_values(f_item, y, a, b, g):
    """Naive per-cluster means of per-item values."""
    G = int(g.max()) + 1
    va = np.array([f_item(y[g == k], a[g == k]) for k in range(G)])
    vb = np.array([f_item(y[g == k], b[g == k]) for k in range(G)])
    return va, vb


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_classical_tests_run_on_cluster_values(alternative):
    y, a, b, g = _clustered_labels(G=40, seed=61)
    va, vb = _cluster_values(_accuracy, y, a, b, g)
    d = vb - va
    res = SignTest(alternative=alternative).test(y, a, b, groups=g)
    n_pos, n_neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    assert (res.params["n_positive"], res.params["n_negative"]) == (n_pos, n_neg)
    assert res.pvalue == pytest.approx(
        stats.binomtest(n_pos, n_pos + n_neg, 0.5, alternative=alternative).pvalue, rel=1e-12)
    res = WilcoxonSignedRank(alternative=alternative).test(y, a, b, groups=g)
    ref = stats.wilcoxon(vb, va, alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    res = PairedTTest(alternative=alternative).test(y, a, b, groups=g)
    ref = stats.ttest_rel(vb, va, alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    np.testing.assert_allclose(res.confidence_interval, tuple(ref.confidence_interval()),
                               rtol=1e-10)
    assert res.params["df"] == 39 and res.n_groups == 40


def test_classical_tests_on_merged_cluster_rows():
    """400 clusters of 1-2 binary items: identical cluster rows are merged with
    multiplicities; the tests still see one value per cluster."""
    y, a, b, g = _clustered_labels(G=400, seed=63, K=2, lo=1, hi=2)
    assert prepare_paired(y, a, b, "accuracy", groups=g).counts is not None
    va, vb = _cluster_values(_accuracy, y, a, b, g)
    d = vb - va
    n_pos, n_neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    res = SignTest().test(y, a, b, groups=g)
    assert res.pvalue == pytest.approx(stats.binomtest(n_pos, n_pos + n_neg).pvalue, rel=1e-12)
    res = PairedTTest().test(y, a, b, groups=g)
    assert res.pvalue == pytest.approx(stats.ttest_rel(vb, va).pvalue, rel=1e-10)
    assert res.params["df"] == 399
    res = WilcoxonSignedRank().test(y, a, b, groups=g)
    assert res.pvalue == pytest.approx(stats.wilcoxon(vb, va).pvalue, rel=1e-10)


def test_classical_tests_on_soft_cluster_values_and_a_loss():
    """JSD is a loss (lower is better) and a mean of per-item values: the
    cluster value is the cluster mean, the difference is oriented A - B."""
    y, a, b, g = _clustered_soft(G=30, seed=62)
    jsd = get_metric("jsd").score_func
    va, vb = _cluster_values(jsd, y, a, b, g)
    res = PairedTTest().test(y, a, b, metric="jsd", groups=g)
    ref = stats.ttest_rel(va, vb)  # oriented: positive when B has the lower loss
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.params["test_statistic"] == pytest.approx(ref.statistic, rel=1e-9)
    res = WilcoxonSignedRank().test(y, a, b, metric="jsd", groups=g)
    assert res.pvalue == pytest.approx(stats.wilcoxon(va, vb).pvalue, rel=1e-9)


def _durkalski(y, a, b, g, alternative="two-sided", level=0.95):
    """Naive twin of Durkalski et al. (2003) from per-cluster discordant counts."""
    G = int(g.max()) + 1
    bk = np.bincount(g, weights=(b == y) & (a != y), minlength=G)  # B right, A wrong
    ck = np.bincount(g, weights=(a == y) & (b != y), minlength=G)  # A right, B wrong
    x = bk - ck
    z = x.sum() / math.sqrt(np.sum(x**2))
    p = {"two-sided": stats.chi2.sf(z * z, 1), "greater": stats.norm.sf(z),
         "less": stats.norm.cdf(z)}[alternative]
    N = y.shape[0]
    q = stats.norm.ppf(0.5 + level / 2)
    half = q * math.sqrt(np.sum(x**2)) / N
    return p, z * z, (x.sum() / N - half, x.sum() / N + half)


@pytest.mark.parametrize("sizes", ["varied", "small (merged rows)"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_clustered_mcnemar_equals_durkalski(sizes, alternative):
    if sizes == "varied":
        y, a, b, g = _clustered_labels(G=50, seed=71, K=2)
    else:  # 400 clusters of 1-2 binary items: few distinct cluster rows, merged
        y, a, b, g = _clustered_labels(G=400, seed=72, K=2, lo=1, hi=2)
        assert prepare_paired(y, a, b, "accuracy", groups=g).counts is not None
    p, x2, ci = _durkalski(y, a, b, g, alternative)
    res = McNemar(method="chi2", alternative=alternative).test(y, a, b, groups=g)
    assert res.pvalue == pytest.approx(p, rel=1e-10)
    assert res.params["test_statistic"] == pytest.approx(x2, rel=1e-10)
    assert res.interval_method == "durkalski"
    if alternative == "two-sided":
        np.testing.assert_allclose(res.confidence_interval, ci, rtol=1e-10)
        # the interval excludes 0 exactly when p <= 0.05
        assert (res.pvalue <= 0.05) == (res.confidence_interval[0] > 0
                                        or res.confidence_interval[1] < 0)
    # micro-F1 of single-label data is accuracy: same test; the error rate is
    # its loss, with the interval of the raw delta mirrored
    same = McNemar(method="chi2", alternative=alternative).test(y, a, b, metric="f1_micro",
                                                                groups=g)
    assert same.pvalue == pytest.approx(p, rel=1e-10)


def _weighted_durkalski(y, a, b, g, w):
    """Durkalski's X^2 and p from per-cluster discordant counts, items counted w times."""
    G = int(g.max()) + 1
    x = (np.bincount(g, weights=w * ((b == y) & (a != y)), minlength=G)
         - np.bincount(g, weights=w * ((a == y) & (b != y)), minlength=G))
    x2 = x.sum() ** 2 / np.sum(x**2)
    return stats.chi2.sf(x2, 1), x2


@pytest.mark.parametrize("sizes", ["varied", "small (merged rows)"])
def test_paired_data_carries_the_cluster_sizes(sizes):
    """Issue 15 leftover: the item count of every cluster row comes from the input path."""
    if sizes == "varied":
        y, a, b, g = _clustered_labels(G=50, seed=76, K=2)
    else:
        y, a, b, g = _clustered_labels(G=400, seed=77, K=2, lo=1, hi=2)
    w = np.random.default_rng(5).integers(1, 4, y.shape[0]).astype(float)
    for weights in (None, w):
        paired = prepare_paired(y, a, b, "accuracy", groups=g, sample_weight=weights)
        naive = np.bincount(g, weights=weights)  # items (or weight) per cluster
        if paired.counts is None:  # rows are the clusters in code order
            np.testing.assert_array_equal(paired.row_sizes, naive)
        else:  # merged rows: every cluster's size is its row's
            assert paired.row_sizes.shape == paired.counts.shape
            np.testing.assert_array_equal(np.sort(np.repeat(paired.row_sizes,
                                                            paired.counts.astype(int))),
                                          np.sort(naive))
            # and a row's size is the count column of its accuracy statistics
            np.testing.assert_array_equal(paired.row_sizes, paired.stats_a[:, -1])
        res = McNemar(method="chi2").test(y, a, b, groups=g, sample_weight=weights)
        p, x2 = _weighted_durkalski(y, a, b, g, np.ones_like(w) if weights is None else w)
        assert res.pvalue == pytest.approx(p, rel=1e-10)
        assert res.params["test_statistic"] == pytest.approx(x2, rel=1e-10)
    # not clustered: no sizes
    assert prepare_paired(y, a, b, "accuracy").row_sizes is None


def test_clustered_mcnemar_needs_no_count_statistic():
    """A 0/1 metric whose statistics hold no plain item count (here twice the count).

    The sizes of merged cluster rows used to be read from a count column of
    the statistics, so this metric raised; the carried sizes make it
    Durkalski's test as for accuracy.
    """
    y, a, b, g = _clustered_labels(G=400, seed=78, K=2, lo=1, hi=2)
    doubled = Metric("acc_doubled_count", lambda y, p, **kw: float(np.mean(np.asarray(y) == p)),
                     statistics=lambda y, p, **kw: np.c_[np.asarray(y) == p,
                                                         2.0 * np.ones(len(y))],
                     aggregate=lambda s, **kw: 2.0 * np.asarray(s)[..., 0] / np.asarray(s)[..., 1],
                     input_type="labels", decomposable=True)
    assert prepare_paired(y, a, b, doubled, groups=g).counts is not None  # merged rows
    res = McNemar(method="chi2").test(y, a, b, metric=doubled, groups=g)
    p, x2 = _weighted_durkalski(y, a, b, g, np.ones(y.shape[0]))
    assert res.pvalue == pytest.approx(p, rel=1e-10)
    assert res.params["test_statistic"] == pytest.approx(x2, rel=1e-10)


def test_clustered_mcnemar_with_a_loss_mirrors_the_interval():
    y, a, b, g = _clustered_labels(G=50, seed=73, K=2)
    err = Metric("error_rate", lambda y, p, **kw: float(np.mean(np.asarray(y) != p)),
                 greater_is_better=False,
                 statistics=lambda y, p, **kw: np.c_[np.asarray(y) != p, np.ones(len(y))],
                 aggregate=lambda s, **kw: np.asarray(s)[..., 0] / np.asarray(s)[..., 1],
                 input_type="labels", decomposable=True)
    acc = McNemar(method="chi2").test(y, a, b, groups=g)
    loss = McNemar(method="chi2").test(y, a, b, metric=err, groups=g)
    assert loss.pvalue == pytest.approx(acc.pvalue, rel=1e-12)
    np.testing.assert_allclose(loss.confidence_interval, [-acc.confidence_interval[1],
                                                          -acc.confidence_interval[0]])
    greater = McNemar(method="chi2", alternative="greater")
    assert greater.test(y, a, b, metric=err, groups=g).pvalue == pytest.approx(
        greater.test(y, a, b, groups=g).pvalue, rel=1e-12)


def test_clustered_mcnemar_refuses_exact_methods_and_fractional_values():
    y, a, b, g = _clustered_labels(G=30, seed=74, K=2)
    for method in ("exact", "mid-p"):
        with pytest.raises(ValueError, match="'method'.*chi2"):
            McNemar(method=method).test(y, a, b, groups=g)
    from sigtest._engine import prepare_paired_runs

    runs = prepare_paired_runs(y, [a, b], [b], "accuracy", groups=g)
    with pytest.raises(ValueError, match="0 or 1"):
        McNemar(method="chi2").test_paired(runs)
    with pytest.raises(ValueError, match="accuracies"):
        McNemar(method="chi2").test(y, a, b, metric="f1_macro", groups=g)


def test_clustered_mcnemar_without_discordant_cluster():
    y, a, _, g = _clustered_labels(G=30, seed=75, K=2)
    with pytest.warns(DegenerateDistributionWarning, match="no discordant cluster"):
        res = McNemar(method="chi2").test(y, a, a.copy(), groups=g)
    assert res.pvalue == 1.0 and np.isnan(res.confidence_interval.low)


# --------------------------------------------------------------------------
# strata change nothing for the tests that condition on the items
# --------------------------------------------------------------------------
@pytest.mark.parametrize("test", [
    SignTest(), WilcoxonSignedRank(), McNemar(), McNemar(method="chi2"),
    PairedPermutation(random_state=0), PairedPermutation(exact=False, random_state=1),
], ids=repr)
@pytest.mark.parametrize("metric", ["accuracy", "jsd"])
def test_strata_change_nothing_for_conditional_tests(test, metric):
    """Item-level data, with and without strata: bit-identical (the compressed
    cells split by stratum are merged back by the permutation kernel)."""
    if metric == "jsd":
        if isinstance(test, McNemar):
            pytest.skip("McNemar is for accuracy")
        y, a, b, g = _clustered_soft(seed=81)
    else:
        y, a, b, g = _clustered_labels(seed=81)
    strata = g % 4
    plain = test.test(y, a, b, metric=metric)
    with_strata = test.test(y, a, b, metric=metric, strata=strata)
    assert with_strata.pvalue == plain.pvalue
    assert with_strata.n_strata == 4 and plain.n_strata is None


def test_paired_t_refuses_strata():
    y, a, b, g = _clustered_labels(seed=82)
    with pytest.raises(ValueError, match="'strata'"):
        PairedTTest().test(y, a, b, strata=g % 3)


# --------------------------------------------------------------------------
# (e) determinism
# --------------------------------------------------------------------------
def _with_resamples(make_test, n):
    return lambda j: make_test(j).set_params(n_resamples=n)


@pytest.mark.parametrize("make_test", [
    lambda j: BergKirkpatrickBootstrap(n_resamples=2000, random_state=5, n_jobs=j),
    lambda j: BCaInterval(n_resamples=2000, random_state=5, n_jobs=j),
    lambda j: PairedPermutation(n_resamples=2000, exact=False, random_state=5, n_jobs=j),
])
@pytest.mark.parametrize("metric", ["accuracy", "soft", MCC_SLOW])
def test_same_seed_bit_identical_for_any_n_jobs(make_test, metric):
    if metric is MCC_SLOW:  # a score_func call per resample: fewer resamples
        make_test = _with_resamples(make_test, 200)
    if metric == "soft":
        y, a, b, g = _clustered_soft(seed=91)
        metric = "soft_f1_macro"
    else:
        y, a, b, g = _clustered_labels(seed=91)
    kw = {"groups": g, "strata": g % 3}
    results = [make_test(j).test(y, a, b, metric=metric, **kw) for j in (1, 2, 2)]
    for res in results[1:]:
        np.testing.assert_array_equal(res.null_distribution, results[0].null_distribution)
        assert res.pvalue == results[0].pvalue
        assert res.confidence_interval == results[0].confidence_interval or all(
            np.isnan(results[0].confidence_interval))
    # the ids are labels: renamed clusters and strata (strings) give the same result
    names = np.array([f"doc{k:03d}" for k in range(int(g.max()) + 1)])[g]
    renamed = make_test(1).test(y, a, b, metric=metric, groups=names,
                                strata=np.array(["x", "y", "z"])[g % 3])
    np.testing.assert_array_equal(renamed.null_distribution, results[0].null_distribution)


# --------------------------------------------------------------------------
# (f) errors naming the argument
# --------------------------------------------------------------------------
ALL_TESTS = [BergKirkpatrickBootstrap(n_resamples=50), BCaInterval(n_resamples=50),
             PairedPermutation(n_resamples=50), SignTest(), WilcoxonSignedRank(),
             PairedTTest(), McNemar(method="chi2")]


@pytest.mark.parametrize("test", ALL_TESTS, ids=repr)
def test_bad_designs_raise_value_error_naming_the_argument(test):
    y, a, b, g = _clustered_labels(G=30, seed=101)
    n = y.shape[0]
    with pytest.raises(ValueError, match="'groups'.*single cluster"):
        test.test(y, a, b, groups=np.zeros(n, int))
    with pytest.raises(ValueError, match="'groups'.*ids"):
        test.test(y, a, b, groups=g[:-1])
    with pytest.raises(ValueError, match="'strata'.*ids"):
        test.test(y, a, b, strata=np.zeros(n + 1))
    with pytest.raises(ValueError, match="'groups'.*1-D"):
        test.test(y, a, b, groups=np.c_[g, g])
    with pytest.raises(ValueError, match="'groups'.*NaN"):
        test.test(y, a, b, groups=np.where(g == 0, np.nan, g))
    across = np.arange(n) % 2  # every cluster of >= 2 items spans both strata
    with pytest.raises(ValueError, match="'strata'"):
        test.test(y, a, b, groups=g, strata=across)


# --------------------------------------------------------------------------
# (g) results carry the design; few clusters warn once
# --------------------------------------------------------------------------
@pytest.mark.parametrize("test", ALL_TESTS, ids=repr)
def test_results_carry_n_groups_and_n_strata(test):
    y, a, b, g = _clustered_labels(G=30, seed=111)
    strata = None if isinstance(test, PairedTTest) else g % 3
    res = _quiet(test, y, a, b, groups=g, strata=strata)
    assert res.n_groups == 30
    assert res.n_strata == (None if strata is None else 3)
    assert "clustered: 30 groups" in str(res)
    assert res.to_dict()["n_groups"] == 30
    plain = _quiet(test, y, a, b)
    assert plain.n_groups is None and plain.n_strata is None
    assert "clustered" not in str(plain)


@pytest.mark.parametrize("test", ALL_TESTS, ids=repr)
def test_few_clusters_warn_once(test):
    y, a, b, g = _clustered_labels(G=12, seed=121)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        test.test(y, a, b, groups=g)
    small = [w for w in caught if issubclass(w.category, SmallSampleWarning)]
    assert len(small) == 1, [str(w.message) for w in small]
    assert "12" in str(small[0].message) and "cluster" in str(small[0].message)
    assert small[0].filename == __file__  # attributed to the caller
    # enough clusters (BCa over clusters needs 60): no warning from the cluster count
    y, a, b, g = _clustered_labels(G=60, seed=122)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        test.test(y, a, b, groups=g)
    assert not [w for w in caught if issubclass(w.category, SmallSampleWarning)
                and "cluster" in str(w.message) and "G = " in str(w.message)]


@pytest.mark.parametrize("metric", ["accuracy", "soft_f1_macro"])
def test_swapping_the_systems_mirrors_clustered_results(metric):
    """A <-> B with groups and strata: the same draws, every resampled
    difference negated, the same two-sided p, the interval mirrored."""
    if metric == "accuracy":
        y, a, b, g = _clustered_labels(seed=131)
    else:
        y, a, b, g = _clustered_soft(seed=131)
    kw = {"metric": metric, "groups": g, "strata": g % 3}
    for test in (BCaInterval(n_resamples=1000, random_state=4),
                 PairedPermutation(n_resamples=1000, exact=False, random_state=4)):
        ab, ba = _quiet(test, y, a, b, **kw), _quiet(test, y, b, a, **kw)
        np.testing.assert_allclose(ba.null_distribution, -ab.null_distribution, rtol=0,
                                   atol=1e-15)
        assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-12)
        if isinstance(test, BCaInterval):
            np.testing.assert_allclose(ba.confidence_interval,
                                       [-ab.confidence_interval[1], -ab.confidence_interval[0]],
                                       rtol=1e-9)
