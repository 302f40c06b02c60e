"""BayesianBootstrap and its engine (issue 12 part 3) against naive NumPy twins.

Tolerances. Two independent Monte Carlo samples of the same distribution are
compared three ways: (i) the two-sample Kolmogorov-Smirnov test must not
reject at 1e-3 (its p-value is uniform under equality, so a false alarm has
probability 1e-3 per comparison; every draw is seeded, so the outcome is
fixed); (ii) the means differ by at most 5 standard errors of a difference of
means, ``5 sd sqrt(2 / B)``; (iii) the standard deviations differ by at most
``5 / sqrt(B)`` relatively (the relative SE of a sample sd is about
``1 / sqrt(2 B)`` for a near-normal sample, so that of the ratio of two is
``1 / sqrt(B)``). The KS test catches differences in shape, (ii) and (iii)
smaller shifts of location and scale than KS alone would.
"""

import math
import os

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sigtest import BayesianBootstrap, BCaInterval, compare, get_test, get_test_names
from sigtest._engine import bayesian
from sigtest._engine.bayesian import dirichlet_sums, posterior_deltas, posterior_rng
from sigtest._engine import prepare_paired
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import Metric

B = 20_000


def hard(n=300, k=3, seed=0, qa=0.65, qb=0.72):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < qa, y, (y + rng.integers(1, k, n)) % k)
    b = np.where(rng.random(n) < qb, y, (y + rng.integers(1, k, n)) % k)
    return y, a, b


def soft(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    qa = 0.5 * p + 0.5 * rng.dirichlet(np.ones(k), n)
    qb = 0.7 * p + 0.3 * rng.dirichlet(np.ones(k), n)
    return p, qa, qb


# ----------------------------------------------------------------- naive twins
def naive_items(item_paired, n_draws, seed, strata=None):
    """Bayesian bootstrap on items with numpy's Dirichlet: ``N pi @ item statistics``.

    ``item_paired`` holds one row per item (``compress=False``). With
    ``strata`` (one code per item) an independent Dirichlet per stratum,
    scaled to the stratum's size.
    """
    rng = np.random.default_rng(seed)
    n = item_paired.n_samples
    if strata is None:
        W = rng.dirichlet(np.ones(n), size=n_draws) * n
    else:
        W = np.zeros((n_draws, n))
        for h in np.unique(strata):
            idx = np.flatnonzero(strata == h)
            W[:, idx] = rng.dirichlet(np.ones(idx.size), size=n_draws) * idx.size
    return item_paired.deltas(W @ item_paired.stats_a, W @ item_paired.stats_b)


def naive_clusters(item_paired, groups, n_draws, seed):
    """Bayesian cluster bootstrap: Dirichlet over clusters of the items' summed statistics."""
    codes, inverse = np.unique(groups, return_inverse=True)
    G = codes.size
    sa = np.zeros((G, item_paired.stats_a.shape[1]))
    sb = np.zeros_like(sa)
    np.add.at(sa, inverse, item_paired.stats_a)
    np.add.at(sb, inverse, item_paired.stats_b)
    W = np.random.default_rng(seed).dirichlet(np.ones(G), size=n_draws) * G
    return item_paired.deltas(W @ sa, W @ sb)


def assert_same_distribution(x, y):
    assert stats.ks_2samp(x, y).pvalue > 1e-3
    sd = max(np.std(x), np.std(y))
    assert abs(np.mean(x) - np.mean(y)) <= 5 * sd * math.sqrt(1 / x.size + 1 / y.size)
    assert abs(np.std(x) / np.std(y) - 1) <= 5 / math.sqrt(min(x.size, y.size))


# --------------------------------------------------------------------- engine
@pytest.mark.parametrize("metric", ["accuracy", "f1_macro", "jsd"])
def test_engine_matches_naive_dirichlet_on_items(metric):
    """Cells (Gamma(n_c) per cell) or items vs numpy's Dirichlet over the N items."""
    y, a, b = soft() if metric == "jsd" else hard()
    paired = prepare_paired(y, a, b, metric)
    assert paired.compressed == (metric != "jsd")  # the cell path for hard labels
    engine = posterior_deltas(paired, B, seed=1)
    items = prepare_paired(y, a, b, metric, compress=False)
    assert_same_distribution(engine, naive_items(items, B, seed=2))


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_cell_path_equals_item_path_in_distribution(metric):
    y, a, b = hard(seed=4)
    cells = posterior_deltas(prepare_paired(y, a, b, metric), B, seed=3)
    items = posterior_deltas(prepare_paired(y, a, b, metric, compress=False), B, seed=5)
    assert_same_distribution(cells, items)


def test_item_path_is_the_naive_formula_with_the_same_draws():
    """Generic path: weights ``N E / sum(E)`` with ``E ~ Exp(1)`` from the documented
    generator, drawn resample after resample, then ``W @ stats``; equal to rounding."""
    y, a, b = soft(n=50, seed=1)
    w = np.random.default_rng(0).random(50) + 0.5
    paired = prepare_paired(y, a, b, "jsd", sample_weight=w)
    sums_a, sums_b = dirichlet_sums(paired, 300, seed=11)
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(7,)))
    E = rng.standard_exponential((300, 50))
    W = 50 * E / E.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(sums_a, W @ paired.stats_a, rtol=1e-12)
    np.testing.assert_allclose(sums_b, W @ paired.stats_b, rtol=1e-12)
    # the weights have mean 1: the sums are the observed totals on average
    total_a, _ = paired.totals()
    np.testing.assert_allclose(sums_a.mean(axis=0), total_a, rtol=0.05)


def test_cell_weights_are_gamma_of_the_counts():
    """Compressed rows: ``N G_c / sum G`` with ``G_c ~ Gamma(n_c)`` from the same generator."""
    y, a, b = hard(n=120, seed=2)
    paired = prepare_paired(y, a, b, "accuracy")
    sums_a, _ = dirichlet_sums(paired, 200, seed=3)
    G = posterior_rng(3).standard_gamma(paired.counts, size=(200, paired.counts.size))
    W = 120 * G / G.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(sums_a, W @ paired.stats_a, rtol=1e-12)


def test_chunks_do_not_change_the_draws(monkeypatch):
    """Memory bound: chunks of resamples draw the same stream as one block."""
    y, a, b = soft(n=40, seed=3)
    paired = prepare_paired(y, a, b, "jsd")
    whole = posterior_deltas(paired, 500, seed=5)
    monkeypatch.setattr(bayesian, "_CHUNK_ELEMENTS", 40 * 7)  # 7 resamples per chunk
    np.testing.assert_allclose(posterior_deltas(paired, 500, seed=5), whole, rtol=1e-13,
                               atol=1e-15)


def test_posterior_mean_and_normal_limit_for_accuracy():
    """Accuracy difference = sum_i pi_i d_i: posterior mean d-bar, variance
    s^2 / (N + 1) with s^2 the population variance of the per-item d_i
    (Dirichlet moments); for large N the usual paired SE s / sqrt(N)."""
    n = 20_000
    y, a, b = hard(n=n, seed=6, qa=0.70, qb=0.71)
    paired = prepare_paired(y, a, b, "accuracy")
    draws = posterior_deltas(paired, 8000, seed=0)
    d = (b == y).astype(float) - (a == y)
    sd_exact = d.std() / math.sqrt(n + 1)
    assert abs(draws.mean() - paired.delta) <= 5 * sd_exact / math.sqrt(draws.size)
    # relative SE of a sample sd ~ 1 / sqrt(2 B) = 0.8 %: 4 % is 5 SE
    assert abs(draws.std() / sd_exact - 1) <= 0.04
    assert abs(draws.std() / (d.std(ddof=1) / math.sqrt(n)) - 1) <= 0.04
    # and the shape is normal: KS against N(d-bar, sd_exact)
    assert stats.kstest(draws, "norm", args=(d.mean(), sd_exact)).pvalue > 1e-3


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_clusters_dirichlet_over_clusters_and_widen():
    """groups=: a Dirichlet over clusters (merged identical clusters get Gamma(count));
    with correlated items in a cluster the posterior is wider than the item one."""
    rng = np.random.default_rng(7)
    G, m = 150, 4
    groups = np.repeat(np.arange(G), m)
    # two kinds of documents: A is good on one, B on the other (the difference is
    # correlated within a document)
    kind = np.repeat(rng.random(G) < 0.5, m)
    y = rng.integers(0, 2, G * m)
    a = np.where(rng.random(G * m) < np.where(kind, 0.9, 0.6), y, 1 - y)
    b = np.where(rng.random(G * m) < np.where(kind, 0.6, 0.9), y, 1 - y)
    clustered = prepare_paired(y, a, b, "accuracy", groups=groups)
    assert clustered.compressed  # identical cluster rows merged
    engine = posterior_deltas(clustered, B, seed=1)
    items = prepare_paired(y, a, b, "accuracy", compress=False)
    assert_same_distribution(engine, naive_clusters(items, groups, B, seed=2))
    plain = posterior_deltas(prepare_paired(y, a, b, "accuracy"), B, seed=1)
    assert engine.std() > 1.2 * plain.std()  # 1.34 measured (design effect)


def test_strata_dirichlet_within_each_stratum():
    """strata=: an independent Dirichlet per stratum scaled to its size; for accuracy
    the variance is sum_h (n_h / N)^2 s_h^2 / (n_h + 1)."""
    y, a, b = hard(n=400, seed=8)
    strata = np.where(np.arange(400) < 100, "small", "large")
    paired = prepare_paired(y, a, b, "accuracy", strata=strata)
    engine = posterior_deltas(paired, B, seed=1)
    items = prepare_paired(y, a, b, "accuracy", compress=False)
    assert_same_distribution(engine, naive_items(items, B, seed=2, strata=strata))
    d = (b == y).astype(float) - (a == y)
    var = sum((np.sum(strata == h) / 400) ** 2 * d[strata == h].var()
              / (np.sum(strata == h) + 1) for h in ("small", "large"))
    assert abs(engine.std() / math.sqrt(var) - 1) <= 5 / math.sqrt(2 * B)


MAE = Metric(
    "mae",
    score_func=lambda y, p, sample_weight=None, **kw: float(
        np.average(np.abs(np.asarray(y, float) - np.asarray(p, float)), weights=sample_weight)),
    greater_is_better=False,
)


def test_slow_path_weighted_score_func():
    """A metric without statistics: score_func(..., sample_weight=Dirichlet weights)."""
    rng = np.random.default_rng(9)
    y = rng.normal(size=80)
    a = y + rng.normal(0, 1.0, 80)
    b = y + rng.normal(0, 0.8, 80)
    paired = prepare_paired(y, a, b, MAE)
    assert not paired.has_statistics
    engine = posterior_deltas(paired, 4000, seed=1)
    W = np.random.default_rng(2).dirichlet(np.ones(80), size=4000)
    naive = W @ np.abs(y - b) - W @ np.abs(y - a)
    assert_same_distribution(engine, naive)
    res = BayesianBootstrap(n_resamples=500, random_state=0).test(y, a, b, metric=MAE)
    assert res.statistic > 0 and res.prob_better > 0.5


def test_slow_path_needs_sample_weight():
    unweighted = Metric("mae_plain", score_func=lambda y, p: float(np.mean(np.abs(y - p))),
                        greater_is_better=False)
    y = np.linspace(0, 1, 30)
    with pytest.raises(ValueError, match="sample_weight"):
        BayesianBootstrap(n_resamples=10, random_state=0).test(y, y + 0.1, y + 0.2,
                                                               metric=unweighted)


# ----------------------------------------------------------------- the test
def test_probabilities_are_the_posterior_fractions():
    y, a, b = hard(n=500, seed=10)
    res = BayesianBootstrap(rope=0.02, n_resamples=3000, random_state=0).test(y, a, b)
    t = res.null_distribution  # accuracy: oriented = raw
    assert res.prob_worse == np.mean(t < -0.02)
    assert res.prob_better == np.mean(t > 0.02)
    assert res.prob_equivalent == np.mean(np.abs(t) <= 0.02)
    assert res.prob_worse + res.prob_equivalent + res.prob_better == pytest.approx(1.0,
                                                                                    abs=1e-15)
    assert math.isnan(res.pvalue) and res.n_resamples == 3000
    assert res.resampling == "bayesian bootstrap" and res.interval_method == "credible"
    low, high = res.confidence_interval
    np.testing.assert_allclose([low, high], np.quantile(t, [0.025, 0.975]))
    assert res.confidence_level == 0.95 and res.params["rope"] == 0.02
    # a wider ROPE moves mass into "equivalent"
    wide = BayesianBootstrap(rope=0.2, n_resamples=3000, random_state=0).test(y, a, b)
    assert wide.prob_equivalent == 1.0
    text = str(res)
    assert "P(B better)" in text and "p-value" not in text


def test_rope_zero_continuous_posterior_has_no_equivalence():
    y, a, b = hard(n=300, seed=11)
    res = BayesianBootstrap(n_resamples=2000, random_state=0).test(y, a, b)
    assert res.prob_equivalent == 0.0  # P(delta == 0) = 0 for a continuous posterior
    assert res.prob_worse + res.prob_better == 1.0


def test_loss_orientation():
    """jsd is a loss: B with lower jsd is better, prob_better = P(delta < -rope)."""
    p, qa, qb = soft(n=300, seed=12)
    res = BayesianBootstrap(rope=0.005, n_resamples=3000, random_state=0).test(
        p, qa, qb, metric="jsd")
    assert res.delta < 0 and res.statistic > 0
    draws = res.null_distribution
    assert res.prob_better == np.mean(draws < -0.005) > 0.9
    assert res.prob_worse == np.mean(draws > 0.005)
    swapped = BayesianBootstrap(rope=0.005, n_resamples=3000, random_state=0).test(
        p, qb, qa, metric="jsd")
    # generic path: same weights, A and B columns swapped -> draws exactly negated
    np.testing.assert_array_equal(swapped.null_distribution, -draws)
    assert (swapped.prob_worse, swapped.prob_better) == (res.prob_better, res.prob_worse)


def test_posterior_mean_near_the_observed_delta_for_f1():
    y, a, b = hard(n=600, seed=13)
    res = BayesianBootstrap(n_resamples=4000, random_state=1).test(y, a, b, metric="f1_macro")
    draws = res.null_distribution
    # f1 is a ratio: its posterior mean differs from the observed value by O(1/N)
    # (0.002 here) besides the Monte Carlo error 5 sd / sqrt(B)
    assert abs(draws.mean() - res.delta) <= 5 * draws.std() / math.sqrt(draws.size) + 2e-3
    assert res.params["posterior_mean"] == pytest.approx(draws.mean())


def test_identical_systems_are_exactly_equivalent():
    y, a, _ = hard(n=200, seed=14)
    with pytest.warns(DegenerateDistributionWarning, match="point mass"):
        res = BayesianBootstrap(rope=0.0, n_resamples=500, random_state=0).test(y, a, a.copy())
    assert (res.prob_worse, res.prob_equivalent, res.prob_better) == (0.0, 1.0, 0.0)
    assert tuple(res.confidence_interval) == (0.0, 0.0) and math.isnan(res.pvalue)


def test_small_samples_warn():
    y, a, b = hard(n=12, seed=15)
    with pytest.warns(SmallSampleWarning, match="too narrow"):
        BayesianBootstrap(n_resamples=200, random_state=0).test(y, a, b)


def test_determinism_seed_and_n_jobs():
    y, a, b = hard(n=300, seed=16)
    runs = [BayesianBootstrap(rope=0.01, n_resamples=1000, random_state=42, n_jobs=j)
            .test(y, a, b, metric=m) for j in (1, 2, None) for m in ("accuracy", "f1_macro")]
    for i in range(2):
        first = runs[i]
        for other in runs[i::2][1:]:
            np.testing.assert_array_equal(other.null_distribution, first.null_distribution)
            assert other.prob_better == first.prob_better
    other_seed = BayesianBootstrap(n_resamples=1000, random_state=43).test(y, a, b)
    assert not np.array_equal(other_seed.null_distribution, runs[0].null_distribution)


def test_compare_bit_identical_for_any_n_jobs_and_blas_threads():
    """Issue 20: the weighted sums went through BLAS, whose thread count (all cores
    in the caller, one in a joblib worker) changed the last bit of the intervals."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(5)
    n = 274
    y = rng.integers(0, 3, n)
    systems = {f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
               for i, acc in enumerate([0.5, 0.6, 0.7])}
    kwargs = dict(metrics=["accuracy", "f1_macro", "precision_macro"],
                  test=BayesianBootstrap(n_resamples=999), random_state=5,
                  sample_weight=rng.uniform(0.1, 3.0, n))  # item rows: no cells
    # several BLAS threads (the test processes run BLAS on one: conftest.py)
    with threadpool_limits(limits=max(2, os.cpu_count() or 2), user_api="blas"):
        ref = compare(y, systems, n_jobs=1, **kwargs).to_frame()
    pd.testing.assert_frame_equal(compare(y, systems, n_jobs=2, **kwargs).to_frame(), ref,
                                  check_exact=True)
    with threadpool_limits(1):
        one_thread = compare(y, systems, n_jobs=1, **kwargs).to_frame()
    pd.testing.assert_frame_equal(one_thread, ref, check_exact=True)


@pytest.mark.parametrize("params, match", [
    ({"rope": -0.01}, "'rope' parameter"),
    ({"rope": float("inf")}, "'rope' parameter"),
    ({"rope": float("nan")}, "'rope' parameter"),
    ({"rope": "0.1"}, "'rope' parameter"),
    ({"n_resamples": 0}, "'n_resamples' parameter"),
    ({"confidence_level": 1.0}, "'confidence_level' parameter"),
    ({"random_state": -1}, "'random_state' parameter"),
    ({"n_jobs": 0}, "'n_jobs' parameter"),
])
def test_validation(params, match):
    y, a, b = hard(n=50)
    with pytest.raises((ValueError, TypeError), match=match):
        BayesianBootstrap(**params).test(y, a, b)


def test_registered_and_compare_reports_no_significance():
    assert "bayesian_bootstrap" in get_test_names()
    assert isinstance(get_test("bayesian_bootstrap", rope=0.01), BayesianBootstrap)
    y, a, b = hard(n=400, seed=17, qa=0.5, qb=0.9)
    # b and c are identical systems: a point-mass posterior, said once by compare
    with pytest.warns(DegenerateDistributionWarning, match="point mass"):
        res = compare(y, {"a": a, "b": b, "c": b.copy()}, metrics="accuracy",
                      test=BayesianBootstrap(rope=0.01, n_resamples=500), random_state=0)
    frame = res.to_frame()
    # no p-value: nothing is called significant (the probabilities are the answer)
    assert frame["pvalue"].isna().all() and not frame["significant"].any()
    assert np.isfinite(frame[["ci_low", "ci_high"]].to_numpy()).all()


def test_credible_interval_close_to_the_bootstrap_percentile_interval():
    """Rubin (1981): the Bayesian bootstrap posterior has the spread of the bootstrap
    distribution; the two 95 % intervals agree to Monte Carlo error (4000 draws each:
    quantiles of the tails move by ~5 % of the sd)."""
    y, a, b = hard(n=800, seed=18)
    bayes = BayesianBootstrap(n_resamples=4000, random_state=0).test(y, a, b, metric="f1_macro")
    boot = BCaInterval(method="percentile", n_resamples=4000, random_state=0).test(
        y, a, b, metric="f1_macro")
    sd = bayes.null_distribution.std()
    np.testing.assert_allclose(bayes.confidence_interval, boot.confidence_interval,
                               atol=0.25 * sd)


def test_prob_better_is_calibrated_under_equal_systems():
    """Frequentist calibration: with equally good systems (true delta = 0) the posterior
    P(B better) is about uniform, so it exceeds 0.95 in about 5 % of data sets (it is
    the percentile bootstrap's one-sided p in disguise). 1000 data sets of N = 300
    (cells: ~1 s): the binomial 99.9 % band of 0.05 is [0.029, 0.074]."""
    rng = np.random.default_rng(2026)
    n_sets, n = 1000, 300
    hits = 0
    for _ in range(n_sets):
        y = rng.integers(0, 2, n)
        a = np.where(rng.random(n) < 0.75, y, 1 - y)
        b = np.where(rng.random(n) < 0.75, y, 1 - y)
        paired = prepare_paired(y, a, b, "accuracy")
        draws = posterior_deltas(paired, 1000, seed=int(rng.integers(2**31)))
        hits += np.mean(draws > 0) > 0.95
    lo, hi = stats.binom.ppf([0.0005, 0.9995], n_sets, 0.05) / n_sets
    assert lo <= hits / n_sets <= hi, hits / n_sets


def _generated_invalid_cases():
    """(param, bad value) from the constraints, as scikit-learn generates them."""
    from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

    from sigtest.utils._param_validation import _resolve  # lazy recipes -> sklearn objects

    cases = []
    for name, constraints in _resolve(BayesianBootstrap._parameter_constraints).items():
        made = [make_constraint(c) for c in constraints]
        for constraint in made:
            try:
                bad = generate_invalid_param_val(constraint)
            except NotImplementedError:
                continue
            if not any(c.is_satisfied_by(bad) for c in made):
                cases.append(pytest.param(name, bad, id=f"{name}-{bad!r}"))
        cases.append(pytest.param(name, object(), id=f"{name}-object"))
    return cases


@pytest.mark.parametrize("name, bad", _generated_invalid_cases())
def test_invalid_parameters_generated_from_constraints(name, bad):
    y, a, b = hard(n=40)
    with pytest.raises((ValueError, TypeError), match=f"'{name}' parameter"):
        BayesianBootstrap(**{name: bad}).test(y, a, b)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_clusters_within_strata():
    """groups= and strata=: a Dirichlet over the clusters of each stratum, scaled to its
    number of clusters, against the naive twin on cluster sums."""
    rng = np.random.default_rng(19)
    G, m = 120, 3
    groups = np.repeat(np.arange(G), m)
    strata = np.repeat(np.where(np.arange(G) < 40, "news", "web"), m)
    y = rng.integers(0, 2, G * m)
    a = np.where(rng.random(G * m) < np.repeat(rng.uniform(0.5, 0.9, G), m), y, 1 - y)
    b = np.where(rng.random(G * m) < np.repeat(rng.uniform(0.5, 0.9, G), m), y, 1 - y)
    engine = posterior_deltas(prepare_paired(y, a, b, "accuracy", groups=groups,
                                             strata=strata), B, seed=1)
    items = prepare_paired(y, a, b, "accuracy", compress=False)
    sa = np.zeros((G, 2))
    sb = np.zeros((G, 2))
    np.add.at(sa, groups, items.stats_a)
    np.add.at(sb, groups, items.stats_b)
    naive_rng = np.random.default_rng(2)
    W = np.zeros((B, G))
    for idx in (np.arange(40), np.arange(40, G)):
        W[:, idx] = naive_rng.dirichlet(np.ones(idx.size), size=B) * idx.size
    assert_same_distribution(engine, items.deltas(W @ sa, W @ sb))


def test_undefined_metric_on_every_draw_gives_nan_probabilities():
    undefined = Metric(
        "always_nan",
        score_func=lambda y, p, sample_weight=None, **kw: float("nan"),
        statistics=lambda y, p, **kw: np.ones((len(y), 1)),
        aggregate=lambda s, **kw: np.full(np.shape(s)[:-1], np.nan),
    )
    y = np.arange(30) % 2
    with pytest.warns(DegenerateDistributionWarning, match="undefined"):
        res = BayesianBootstrap(n_resamples=50, random_state=0).test(
            y, y, 1 - y, metric=undefined)
    assert res.n_resamples == 0
    assert all(math.isnan(p) for p in (res.prob_worse, res.prob_equivalent, res.prob_better))
