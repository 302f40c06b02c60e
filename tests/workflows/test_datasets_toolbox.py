"""Issue 24, "Many datasets": the statistician's toolbox of compare_datasets.

* Friedman without tie correction reproduces Demšar's (2006) printed numbers;
* Conover, Quade and Miller post-hoc tests equal scikit-posthocs (its own test
  data and reference values, which come from R's PMCMRplus, and live on random
  tables), with every correction of ``adjust_pvalues``;
* effect sizes (Cohen's d, Cliff's delta, Akinshin's gamma) against naive twins;
* the Bayesian signed-rank test equal to baycomp given the same Dirichlet
  draws; the hierarchical model's data preparation and verdict probabilities
  equal to baycomp's (with a stand-in for Stan, which is not installed), its
  Gibbs sampler against a naive Metropolis twin on the same density (slow);
* ``plot_simplex``.
"""

import itertools
import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import sigtest
from sigtest import compare_datasets
from sigtest.tests_ import _bayes_datasets as bd
from sigtest.tests_ import _effect_sizes as es

# scikit-posthocs' test data (tests/test_posthocs.py, ``df_bn``): 3 blocks x 7 groups
DF_BN = np.array([[4, 3, 4, 4, 5, 6, 3], [1, 2, 3, 5, 6, 7, 7], [1, 2, 6, 4, 1, 5, 1]],
                 dtype=float)


def _lower(rows):
    """Symmetric matrix from the lower triangles scikit-posthocs' tests print."""
    k = len(rows)
    out = np.eye(k)
    for i, row in enumerate(rows):
        for j, v in enumerate(row[:i]):
            out[i, j] = out[j, i] = v
    return out


# Their reference values (from R's PMCMRplus), raw p-values of Conover-Friedman
CONOVER_RAW = _lower([
    [1], [0.9147508, 1], [0.1518030, 0.18071036, 1],
    [0.2140927, 0.25232845, 0.8305955, 1], [0.2140927, 0.25232845, 0.8305955, 1.0, 1],
    [0.0181602, 0.02222747, 0.2523284, 0.1807104, 0.1807104, 1],
    [0.5242303, 0.59465124, 0.3989535, 0.5242303, 0.5242303, 0.05991984, 1]])
# Quade (t form), raw p-values (their test multiplies them by 21 for Bonferroni)
QUADE_RAW = _lower([
    [1], [0.67651326, 1], [0.15432143, 0.29595042, 1],
    [0.17954686, 0.33809987, 0.92586499, 1], [0.2081421, 0.38443835, 0.85245022, 0.92586499, 1],
    [0.02267043, 0.0494024, 0.29595042, 0.25789648, 0.22378308, 1],
    [0.2081421, 0.38443835, 0.85245022, 0.92586499, 1.0, 0.22378308, 1]])
# Miller, simultaneous p-values
MILLER = _lower([
    [1], [1.0, 1], [0.9411963, 0.9588993, 1], [0.9724396, 0.9823818, 0.9999991, 1],
    [0.9724396, 0.9823818, 0.9999991, 1.0, 1],
    [0.4717981, 0.5256257, 0.9823818, 0.9588993, 0.9588993, 1],
    [0.9993864, 0.9997869, 0.9968576, 0.9993864, 0.9993864, 0.7803546, 1]])

DEMSAR_AUC = np.array([
    [.763, .768, .771, .798], [.599, .591, .590, .569], [.954, .971, .968, .967],
    [.628, .661, .654, .657], [.882, .888, .886, .898], [.936, .931, .916, .931],
    [.661, .668, .609, .685], [.583, .583, .563, .625], [.775, .838, .866, .875],
    [1.0, 1.0, 1.0, 1.0], [.940, .962, .965, .962], [.619, .666, .614, .669],
    [.972, .981, .9755, .975], [.957, .978, .946, .970]])


def random_table(rng, n, k, ties=False):
    values = rng.integers(0, 6, (n, k)) / 10 if ties else rng.random((n, k))
    return pd.DataFrame(values, index=[f"d{i}" for i in range(n)],
                        columns=[f"s{j}" for j in range(k)])


def naive_holm(p):
    p = np.asarray(p, dtype=float)
    m, order, out, running = p.size, np.argsort(p), np.empty(p.size), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def naive_adjust(p, correction):
    p = np.asarray(p, dtype=float)
    if correction is None:
        return p
    if correction == "holm":
        return naive_holm(p)
    if correction == "bonferroni":
        return np.minimum(1.0, p * p.size)
    # Benjamini-Hochberg: min over j >= i of m p_(j) / j
    m, order = p.size, np.argsort(p)
    out = np.empty(m)
    for rank, i in enumerate(order):
        out[i] = min(1.0, min(m * p[j] / (r + 1) for r, j in enumerate(order) if r >= rank))
    return out


# ------------------------------------------------------------------ Friedman, Demšar
def test_tie_correction_false_reproduces_demsar_table_6():
    table = pd.DataFrame(DEMSAR_AUC, columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"])
    plain = compare_datasets(table, metric="roc_auc", greater_is_better=True,
                             tie_correction=False)
    # Demšar (2006) sec. 3.2.3: chi2_F = 9.28, F_F = 3.69 (printed, 2 decimals)
    assert round(plain.friedman.statistic, 2) == 9.28
    assert round(plain.iman_davenport.statistic, 2) == 3.69
    assert plain.iman_davenport.df == (3.0, 39.0)
    # the printed formula, by hand from the ranks
    r = plain.average_ranks.to_numpy()
    n, k = DEMSAR_AUC.shape
    chi = 12 * n / (k * (k + 1)) * (np.sum(r ** 2) - k * (k + 1) ** 2 / 4)
    assert plain.friedman.statistic == pytest.approx(chi, rel=1e-12)
    assert plain.iman_davenport.statistic == pytest.approx(
        (n - 1) * chi / (n * (k - 1) - chi), rel=1e-12)
    # the default divides by scipy's tie correction (the mushroom row ties all four)
    default = compare_datasets(table, metric="roc_auc", greater_is_better=True)
    assert default.tie_correction and not plain.tie_correction
    assert default.friedman.statistic == pytest.approx(
        stats.friedmanchisquare(*DEMSAR_AUC.T).statistic, rel=1e-10)
    assert default.friedman.statistic > plain.friedman.statistic
    with pytest.raises((TypeError, ValueError), match="tie_correction"):
        compare_datasets(table, metric="roc_auc", greater_is_better=True, tie_correction="no")


# ------------------------------------------------------------------ post-hoc tests
@pytest.mark.parametrize("method, raw", [("conover", CONOVER_RAW), ("quade", QUADE_RAW)])
def test_conover_and_quade_equal_scikit_posthocs_reference_values(method, raw):
    result = compare_datasets(pd.DataFrame(DF_BN))
    got = result.pairwise(method, correction=None).to_numpy()
    np.testing.assert_allclose(got, raw, atol=1e-6)
    # their Bonferroni test: 21 pairs
    bonf = result.pairwise(method, correction="bonferroni").to_numpy()
    expected = np.minimum(raw * 21, 1.0)
    np.fill_diagonal(expected, 1.0)
    np.testing.assert_allclose(bonf, expected, atol=2e-5)


def test_miller_equals_scikit_posthocs_reference_values():
    result = compare_datasets(pd.DataFrame(DF_BN))
    np.testing.assert_allclose(result.pairwise("miller").to_numpy(), MILLER, atol=1e-6)
    np.testing.assert_array_equal(result.pairwise("miller", correction=None).to_numpy(),
                                  result.pairwise("miller").to_numpy())


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_posthoc_equal_scikit_posthocs_live(correction):
    sp = pytest.importorskip("scikit_posthocs")
    for seed, (n, k, ties) in enumerate([(10, 4, False), (25, 6, True), (7, 3, True)]):
        table = random_table(np.random.default_rng(seed), n, k, ties)
        result = compare_datasets(table)
        # scikit-posthocs ranks ascending: give it the negated scores
        for method, ref in (("conover", sp.posthoc_conover_friedman),
                            ("quade", sp.posthoc_quade)):
            ours = result.pairwise(method, correction=correction).to_numpy()
            theirs = ref(-table.to_numpy(), p_adjust=correction).to_numpy()
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(result.pairwise("miller").to_numpy(),
                                   sp.posthoc_miller_friedman(-table.to_numpy()).to_numpy(),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_every_method_takes_a_correction_over_the_tested_pairs(correction):
    table = random_table(np.random.default_rng(7), 12, 5)
    result = compare_datasets(table)
    x = table.to_numpy()
    n, k = x.shape
    ranks = np.array([stats.rankdata(-row) for row in x])
    pairs = list(itertools.combinations(range(k), 2))
    # Conover (1999, eq. 5.8.6), written out
    totals = ranks.sum(axis=0)
    den = np.sqrt(2 * (n * np.sum(ranks ** 2) - np.sum(totals ** 2)) / ((n - 1) * (k - 1)))
    conover = [2 * stats.t.sf(abs(totals[i] - totals[j]) / den, (n - 1) * (k - 1))
               for i, j in pairs]
    se = np.sqrt(k * (k + 1) / (6 * n))
    mean = ranks.mean(axis=0)
    z = [2 * stats.norm.sf(abs(mean[i] - mean[j]) / se) for i, j in pairs]
    wil = [stats.wilcoxon(x[:, i], x[:, j]).pvalue for i, j in pairs]
    for method, raw in (("conover", conover), ("holm", z), ("wilcoxon", wil)):
        got = result.pairwise(method, correction=correction).to_numpy()
        np.testing.assert_allclose([got[i, j] for i, j in pairs], naive_adjust(raw, correction),
                                   rtol=1e-10, err_msg=method)
    # against a control: the family is the k - 1 pairs with it
    ctrl = [2 * stats.t.sf(abs(totals[2] - totals[j]) / den, (n - 1) * (k - 1))
            for j in (0, 1, 3, 4)]
    got = result.pairwise("conover", control="s2", correction=correction)
    np.testing.assert_allclose(got.loc["s2", ["s0", "s1", "s3", "s4"]],
                               naive_adjust(ctrl, correction), rtol=1e-10)
    assert np.isnan(got.loc["s0", "s1"])


def test_default_correction_is_holm_and_simultaneous_methods_refuse_another():
    result = compare_datasets(random_table(np.random.default_rng(1), 9, 4))
    for method in ("conover", "quade", "holm", "wilcoxon"):
        pd.testing.assert_frame_equal(result.pairwise(method),
                                      result.pairwise(method, correction="holm"))
    # Nemenyi and Miller are simultaneous already: the default is accepted, another is not
    nem = result.pairwise("nemenyi")
    pd.testing.assert_frame_equal(nem, result.pairwise("nemenyi", correction=None))
    for method in ("nemenyi", "miller"):
        for correction in ("holm", "bonferroni"):
            with pytest.raises(ValueError, match="correction.*simultaneous"):
                result.pairwise(method, correction=correction)
        with pytest.raises(ValueError, match="control"):
            result.pairwise(method, control="s0")
    with pytest.raises(ValueError, match="correction"):
        result.pairwise("conover", correction="tukey")
    with pytest.raises(ValueError, match="'test' parameter"):
        result.pairwise("dunn")


def test_conover_and_quade_without_residual_variation_are_undefined_not_significant():
    # every dataset ranks a > b > c: the t statistics divide by zero
    ordered = compare_datasets(pd.DataFrame(np.tile([0.9, 0.8, 0.7], (5, 1)),
                                            columns=list("abc")))
    for method in ("conover", "quade"):
        with pytest.warns(UserWarning, match="no residual variation"):
            p = ordered.pairwise(method, correction=None).to_numpy()
        assert np.isnan(p[~np.eye(3, dtype=bool)]).all() and (np.diag(p) == 1).all()
    flat = compare_datasets(pd.DataFrame(np.ones((4, 3)), columns=list("abc")))
    with pytest.warns(UserWarning, match="no residual variation"):
        assert (flat.pairwise("conover").to_numpy() == 1).all()


# ------------------------------------------------------------------ effect sizes
def naive_hd_quantile(x, p):
    """Harrell and Davis (1982): sum of order statistics weighted by Beta-cdf increments."""
    x = np.sort(x)
    n = x.size
    a, b = p * (n + 1), (1 - p) * (n + 1)
    edges = stats.beta.cdf(np.arange(n + 1) / n, a, b)
    return float(np.sum(np.diff(edges) * x))


def test_effect_sizes_match_naive_twins():
    rng = np.random.default_rng(11)
    x = rng.normal(0.7, 0.05, 15)
    y = x + rng.normal(0.02, 0.03, 15)
    d = y - x
    assert es.cohen_d_paired(x, y) == pytest.approx(
        np.mean(d) / np.sqrt(np.sum((d - d.mean()) ** 2) / 14), rel=1e-12)
    wins = sum(int(yj > xi) - int(yj < xi) for xi in x for yj in y)
    assert es.cliff_delta(x, y) == pytest.approx(wins / 225, rel=1e-12)
    mx, my = naive_hd_quantile(x, 0.5), naive_hd_quantile(y, 0.5)
    c = 1 / stats.norm.ppf(0.75)
    mad_x = c * naive_hd_quantile(np.abs(x - mx), 0.5)
    mad_y = c * naive_hd_quantile(np.abs(y - my), 0.5)
    assert es.akinshin_gamma(x, y) == pytest.approx(
        (my - mx) / np.sqrt((mad_x ** 2 + mad_y ** 2) / 2), rel=1e-10)
    # antisymmetric, 0 for identical systems
    for f in (es.cohen_d_paired, es.cliff_delta, es.akinshin_gamma):
        assert f(y, x) == pytest.approx(-f(x, y), rel=1e-12)
        assert f(x, x) == 0


def test_magnitude_thresholds():
    assert [es.magnitude(v, "cohen_d") for v in (0.1, -0.2, 0.49, 0.5, 0.79, -0.8, 3)] == [
        "negligible", "small", "small", "medium", "medium", "large", "large"]
    assert [es.magnitude(v, "cliff_delta") for v in (0.146, 0.147, 0.33, -0.474, 1.0)] == [
        "negligible", "small", "medium", "large", "large"]
    assert es.magnitude(np.nan, "akinshin_gamma") == "undefined"
    with pytest.raises(ValueError, match="kind"):
        es.magnitude(0.3, "hedges_g")


def test_effect_sizes_table_against_the_best_and_oriented():
    table = random_table(np.random.default_rng(2), 10, 4)
    table["s3"] = table["s0"] + 0.2  # clearly the best
    result = compare_datasets(table)
    with pytest.warns(UserWarning, match="Cohen's d"):  # s0 = s3 - 0.2 on every dataset
        out = result.effect_sizes()
    assert list(out.index) == list(result.system_table().index) and out.index[0] == "s3"
    assert out.loc["s3", "cohen_d"] == 0 and out.loc["s3", "cohen_d_magnitude"] == "negligible"
    for system in ("s0", "s1", "s2"):
        assert out.loc[system, "cliff_delta"] == pytest.approx(
            es.cliff_delta(table[system], table["s3"]))
        assert out.loc[system, "cohen_d_magnitude"] == es.magnitude(out.loc[system, "cohen_d"],
                                                                   "cohen_d")
    # s0 vs s3: a constant difference: Cohen's d infinite (warned), gamma large
    errors = compare_datasets(1 - table, metric="error", greater_is_better=False)
    with pytest.warns(UserWarning, match="Cohen's d"):
        flipped = errors.effect_sizes(reference="s0")
    with pytest.warns(UserWarning, match="Cohen's d"):
        straight = result.effect_sizes(reference="s0")
    pd.testing.assert_frame_equal(flipped, straight)
    assert straight.loc["s3", "cohen_d"] == -np.inf  # positive = reference better
    with pytest.raises(ValueError, match="reference"):
        result.effect_sizes(reference="nope")


# ------------------------------------------------------------------ Bayesian signed-rank
def test_signed_rank_equals_baycomp_given_the_same_dirichlet_draws():
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(3)
    x = rng.uniform(0.6, 0.9, 12)
    y = x + rng.normal(0.01, 0.02, 12)
    y[3] = x[3]  # a zero difference
    for rope in (0.0, 0.01):
        ref = baycomp.SignedRankTest.sample(x, y, rope, nsamples=3000, random_state=5)
        alpha = np.ones(13)
        alpha[0] = 0.5
        weights = np.random.RandomState(5).dirichlet(alpha, 3000)
        ours = bd.signed_rank_samples(y - x, rope, weights)
        np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-12)


def test_signed_rank_probabilities_within_monte_carlo_error_of_baycomp():
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(4)
    x = rng.uniform(0.6, 0.9, 10)
    y = x + rng.normal(0.005, 0.01, 10)
    theirs = baycomp.SignedRankTest.probs(x, y, 0.005, nsamples=50_000, random_state=1)
    table = pd.DataFrame({"A": x, "B": y})
    post = compare_datasets(table).bayesian("A", "B", rope=0.005, n_draws=50_000,
                                            random_state=1)
    ours = (post.prob_worse, post.prob_equivalent, post.prob_better)
    # two independent Monte Carlo estimates of a probability p from 50 000 draws
    # each: |difference| <= 5 sd, sd = sqrt(2 p (1 - p) / 50 000)
    for a, b in zip(ours, theirs):
        assert abs(a - b) <= 5 * np.sqrt(2 * max(b * (1 - b), 1e-4) / 50_000)
    assert post.names == ("A", "B") and post.samples.shape == (50_000, 3)


def test_signed_rank_is_deterministic_and_oriented():
    table = pd.DataFrame({"A": [.80, .70, .90, .60, .75], "B": [.85, .74, .93, .66, .80]})
    result = compare_datasets(table)
    p1 = result.bayesian("A", "B", rope=0.01, n_draws=5000, random_state=3)
    p2 = result.bayesian("A", "B", rope=0.01, n_draws=5000, random_state=3)
    np.testing.assert_array_equal(p1.samples, p2.samples)
    assert p1.prob_better > 0.5
    # a loss reverses the orientation: prob_better still means B better
    losses = compare_datasets(1 - table, metric="error", greater_is_better=False)
    np.testing.assert_allclose(
        losses.bayesian("A", "B", rope=0.01, n_draws=5000, random_state=3).samples,
        p1.samples, rtol=1e-12, atol=1e-12)
    # identical systems with rope 0: the two verdicts share the draws evenly
    same = compare_datasets(table.assign(C=table["A"])).bayesian("A", "C", n_draws=100,
                                                                   random_state=0)
    assert (same.prob_worse, same.prob_equivalent, same.prob_better) == (0.5, 0.0, 0.5)


def test_bayesian_bad_input():
    result = compare_datasets(random_table(np.random.default_rng(0), 6, 3))
    with pytest.raises(ValueError, match="'b'"):
        result.bayesian("s0", "nope")
    with pytest.raises(ValueError, match="different"):
        result.bayesian("s0", "s0")
    with pytest.raises(ValueError, match="rope"):
        result.bayesian("s0", "s1", rope=-0.1)
    with pytest.raises(ValueError, match="prior"):
        result.bayesian("s0", "s1", prior=0)
    with pytest.raises(ValueError, match="n_draws"):
        result.bayesian("s0", "s1", n_draws=0)
    with pytest.raises(ValueError, match="same length"):
        sigtest.bayesian_signed_rank([1, 2, 3], [1, 2])
    x = np.random.default_rng(0).random((4, 10))
    with pytest.raises(ValueError, match="n_repeats"):
        sigtest.hierarchical_bayes(x, x + 0.1, n_repeats=3)
    with pytest.raises(ValueError, match="2-D"):
        sigtest.hierarchical_bayes(x[0], x[0])
    with pytest.raises(ValueError, match="vary within"):
        sigtest.hierarchical_bayes(x, x + 0.1)
    with pytest.raises(ValueError, match="n_chains"):
        sigtest.hierarchical_bayes(x, x[::-1], n_chains=0)


# ------------------------------------------------------------------ hierarchical model
def _fake_stan(captured, draws):
    """A stand-in for pystan 3 that records the data and returns given draws."""

    class Fit(dict):
        pass

    class Model:
        def sample(self, num_samples, num_chains):
            captured["sample"] = (num_samples, num_chains)
            return Fit(delta0=draws[:, 0][None, :], std0=draws[:, 1][None, :],
                       nu=draws[:, 2][None, :])

    def build(program_code, data):
        captured["data"] = data
        return Model()

    module = types.ModuleType("stan")
    module.build = build
    return module


def test_hierarchical_data_and_verdicts_equal_baycomp(monkeypatch, tmp_path):
    baycomp = pytest.importorskip("baycomp")
    monkeypatch.chdir(tmp_path)  # baycomp caches its last sample in the working directory
    rng = np.random.default_rng(8)
    x = rng.uniform(0.7, 0.9, (6, 10))
    y = x + rng.normal(0.01, 0.02, (6, 1)) + rng.normal(0, 0.02, (6, 10))
    scale = np.mean(np.std(y - x, axis=1))
    draws = np.column_stack([rng.normal(0.3, 0.2, 500), rng.uniform(0.05, 2, 500),
                             1 + rng.gamma(2, 10, 500)])
    captured = {}
    monkeypatch.setitem(sys.modules, "stan", _fake_stan(captured, draws))
    for rope, runs in ((0.01, 1), (0.0, 2)):
        ref = baycomp.HierarchicalTest.sample(x, y, rope, runs=runs, nsamples=500)
        data = captured["data"]
        diff, rope_s, got_scale, bounds = bd.model_data(y - x, rope, np.random.default_rng(0))
        np.testing.assert_allclose(diff, data["x"], rtol=1e-12)
        assert got_scale == pytest.approx(scale, rel=1e-12)
        d_lo, d_hi, s_hi, s0_hi, a_bounds, b_bounds = bounds
        assert (d_lo, d_hi, s_hi, s0_hi) == pytest.approx(
            (data["deltaLow"], data["deltaHi"], data["stdHi"], data["std0Hi"]), rel=1e-12)
        assert a_bounds == (data["lowerAlpha"], data["upperAlpha"])
        assert b_bounds == (data["lowerBeta"], data["upperBeta"])
        assert runs / 10 == pytest.approx(data["rho"])
        ours = bd._hierarchical_posterior(draws, rope_s, scale, rope, None)
        np.testing.assert_allclose(ours.samples, ref, rtol=1e-9, atol=1e-12)


def _naive_log_density(theta, data, rho, bounds):
    """The Stan model's log posterior, written out with the full M^-1 (vectorised over chains)."""
    q, m = data.shape
    d_lo, d_hi, s_hi, s0_hi, (a_lo, a_hi), (b_lo, b_hi) = bounds
    delta0, std0, nu1, ga, gb = (theta[:, i] for i in range(5))
    delta, sigma = theta[:, 5:5 + q], theta[:, 5 + q:]
    ok = ((delta0 > d_lo) & (delta0 < d_hi) & (std0 > 0) & (std0 < s0_hi) & (nu1 > 0)
          & (ga > a_lo) & (ga < a_hi) & (gb > b_lo) & (gb < b_hi)
          & np.all((sigma > 0) & (sigma < s_hi), axis=1))
    corr = (1 - rho) * np.eye(m) + rho
    inv = np.linalg.inv(corr)
    with np.errstate(all="ignore"):
        # nu - 1 ~ Gamma(shape ga, rate gb)
        lp = ga * np.log(gb) - special.gammaln(ga) + (ga - 1) * np.log(nu1) - gb * nu1
        # delta_i ~ Student-t(nu, delta0, std0)
        nu = (nu1 + 1)[:, None]
        z2 = ((delta - delta0[:, None]) / std0[:, None]) ** 2
        lp += np.sum(special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2)
                     - 0.5 * np.log(nu * np.pi) - np.log(std0[:, None])
                     - (nu + 1) / 2 * np.log1p(z2 / nu), axis=1)
        resid = data[None, :, :] - delta[:, :, None]
        quad = np.einsum("cqi,ij,cqj->cq", resid, inv, resid)
        lp += np.sum(-m * np.log(sigma) - 0.5 * quad / sigma ** 2, axis=1)
    return np.where(ok, lp, -np.inf)


@pytest.mark.slow
def test_hierarchical_gibbs_sampler_agrees_with_a_naive_metropolis_twin():
    # The same posterior sampled two ways: sigtest's Gibbs sampler and, here, 300
    # independent random-walk Metropolis chains on the Stan model's density
    # (one coordinate at a time, step sizes tuned in the burn-in), their last
    # 200 sweeps kept. Compared: posterior mean and quartiles of delta0 and the
    # mean verdict probabilities. Band: 5 Monte Carlo standard errors of the
    # difference (Gibbs: batch means over 20 batches; Metropolis: between-chain
    # spread), plus 0.005 for the Metropolis chains' residual burn-in bias.
    rng = np.random.default_rng(2024)
    q, m = 4, 6
    x = rng.uniform(0.7, 0.9, (q, m))
    y = x + rng.normal(0.01, 0.015, (q, 1)) + rng.normal(0, 0.02, (q, m))
    rope, rho = 0.01, 1 / m
    post = sigtest.hierarchical_bayes(x, y, rope=rope, n_draws=20_000, n_chains=4, burn_in=1000,
                                      random_state=7)
    data, rope_s, scale, bounds = bd.model_data(y - x, rope, np.random.default_rng(0))

    chains, sweeps, keep = 300, 1200, 200
    theta = np.empty((chains, 5 + 2 * q))
    theta[:, 0] = data.mean() + 0.1 * rng.standard_normal(chains)
    theta[:, 1] = np.abs(data.mean(axis=1).std() + 0.1 * rng.standard_normal(chains)) + 0.05
    theta[:, 2] = rng.gamma(1.5, 1 / 0.05, chains)
    theta[:, 3] = rng.uniform(1, 2, chains)
    theta[:, 4] = rng.uniform(0.01, 0.1, chains)
    theta[:, 5:5 + q] = data.mean(axis=1) + 0.1 * rng.standard_normal((chains, q))
    theta[:, 5 + q:] = data.std(axis=1) * rng.uniform(0.8, 1.2, (chains, q))
    step = np.full(theta.shape[1], 0.2)
    step[2], step[3], step[4] = 20.0, 0.3, 0.03
    lp = _naive_log_density(theta, data, rho, bounds)
    kept = []
    for sweep in range(sweeps):
        for j in range(theta.shape[1]):
            prop = theta.copy()
            prop[:, j] += step[j] * rng.standard_normal(chains)
            lp_new = _naive_log_density(prop, data, rho, bounds)
            accept = np.log(rng.random(chains)) < lp_new - lp
            theta[accept], lp[accept] = prop[accept], lp_new[accept]
            if sweep < sweeps - keep and sweep % 50 == 49:
                step[j] *= np.exp(np.mean(accept) - 0.35)
        if sweep >= sweeps - keep:
            kept.append(theta[:, :3].copy())
    twin = np.stack(kept)  # (keep, chains, 3): delta0, std0, nu - 1
    twin_post = bd._hierarchical_posterior(
        np.column_stack([twin[..., 0].ravel(), twin[..., 1].ravel(), 1 + twin[..., 2].ravel()]),
        rope_s, scale, rope, None)

    def gibbs_se(values):
        batches = values.reshape(20, -1).mean(axis=1)
        return batches.std(ddof=1) / np.sqrt(20)

    def twin_se(values):
        per_chain = values.reshape(keep, chains).mean(axis=0)
        return per_chain.std(ddof=1) / np.sqrt(chains)

    delta0 = post.parameters["delta0"] / scale
    pairs = [(delta0, twin[..., 0].ravel())]
    pairs += [(post.samples[:, i], twin_post.samples[:, i]) for i in range(3)]
    for ours, theirs in pairs:
        band = 5 * np.hypot(gibbs_se(ours), twin_se(theirs)) + 0.005
        assert abs(ours.mean() - theirs.mean()) <= band
    # quartiles of delta0 (scaled units; its posterior sd is about 0.5 here) within 0.05
    for level in (0.25, 0.5, 0.75):
        a, b = np.quantile(delta0, level), np.quantile(twin[..., 0], level)
        assert abs(a - b) <= 0.05 * max(1.0, abs(b))


def test_hierarchical_is_deterministic_and_finds_a_clear_difference():
    rng = np.random.default_rng(5)
    x = rng.uniform(0.7, 0.9, (8, 10))
    better = x + 0.05 + rng.normal(0, 0.01, (8, 10))
    kw = dict(rope=0.01, n_draws=2000, burn_in=300, random_state=4, names=("A", "B"))
    p1 = sigtest.hierarchical_bayes(x, better, **kw)
    p2 = sigtest.hierarchical_bayes(x, better, **kw)
    np.testing.assert_array_equal(p1.samples, p2.samples)
    assert p1.prob_better > 0.95 and p1.method == "hierarchical"
    assert p1.parameters["delta0"].mean() == pytest.approx(0.05, abs=0.01)
    assert "P(B better)" in str(p1)
    # one dataset with constant differences: baycomp's replacement, with a warning
    flat = better.copy()
    flat[0] = x[0] + 0.05
    with pytest.warns(UserWarning, match="constant differences"):
        sigtest.hierarchical_bayes(x, flat, **kw)


def test_truncated_draws_respect_their_bounds():
    rng = np.random.default_rng(0)
    g = bd._truncated_gamma(rng, np.full(20000, 1.5), np.full(20000, 2.0), 0.5)
    assert g.min() >= 0.5
    # the truncated law: P(G > 1 | G > 0.5) for Gamma(1.5, rate 2); 99.9 % binomial band
    p = special.gammaincc(1.5, 2.0) / special.gammaincc(1.5, 1.0)
    assert abs(np.mean(g > 1) - p) <= 3.3 * np.sqrt(p * (1 - p) / 20000)
    draws = [bd._truncated_normal(rng, 0.0, 1.0, 3.0, 4.0) for _ in range(2000)]
    assert min(draws) >= 3.0 and max(draws) <= 4.0
    p = (stats.norm.sf(3.2) - stats.norm.sf(4)) / (stats.norm.sf(3) - stats.norm.sf(4))
    assert abs(np.mean(np.array(draws) > 3.2) - p) <= 3.3 * np.sqrt(p * (1 - p) / 2000)


# ------------------------------------------------------------------ plot
def test_plot_simplex_draws_the_triangle_and_the_probabilities():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from sigtest.plotting import plot_simplex

    table = pd.DataFrame({"A": [.80, .70, .90, .60, .75, .66], "B": [.81, .72, .90, .62, .77,
                                                                     .67]})
    post = compare_datasets(table).bayesian("A", "B", rope=0.01, n_draws=3000,
                                            random_state=0)
    ax = plot_simplex(post)
    texts = {t.get_text().split(" = ")[0]: float(t.get_text().split(" = ")[1])
             for t in ax.texts}
    assert texts == pytest.approx({"P(A better)": round(post.prob_worse, 3),
                                   "P(equivalent)": round(post.prob_equivalent, 3),
                                   "P(B better)": round(post.prob_better, 3)})
    assert len(ax.collections) == 1  # the hexbin of the draws
    offsets = ax.collections[0].get_offsets()
    assert offsets[:, 0].min() >= -0.05 and offsets[:, 0].max() <= 1.05
    with pytest.raises(ValueError, match="posterior"):
        plot_simplex(table)
    matplotlib.pyplot.close("all")


def test_public_names():
    for name in ("bayesian_signed_rank", "hierarchical_bayes", "DatasetPosterior"):
        assert name in sigtest.__all__ and getattr(sigtest, name) is getattr(bd, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "plot_simplex" in __import__("sigtest.plotting").plotting.__all__


def test_ranks_friedman_cd_and_cliff_delta_equal_autorank():
    # autorank (Herbold 2020) in its non-parametric mode on a 20 x 5 table: mean ranks,
    # Friedman p, Nemenyi's critical difference and Cliff's delta against its first
    # row. autorank's CD takes q_alpha from statsmodels' qsturng approximation
    # (ours: scipy.stats.studentized_range), so it agrees to 1e-4, not 1e-12;
    # its Cohen's d pools the two systems' sd and its Akinshin gamma uses plain
    # medians and MADs (sigtest: the paired d_z and Harrell-Davis medians), so those
    # two differ by convention (docs/datasets_seeds.md) and are not compared.
    autorank = pytest.importorskip("autorank")
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.normal(0, 1, (20, 5)) + np.array([0, .3, .6, .9, 1.2]),
                         columns=list("ABCDE"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = autorank.autorank(table, alpha=0.05, verbose=False,
                                force_mode="nonparametric", effect_size="cliff_delta")
    res = compare_datasets(table)
    assert ref.omnibus == "friedman"
    np.testing.assert_allclose(res.average_ranks[ref.rankdf.index], ref.rankdf["meanrank"],
                               rtol=1e-12)
    assert res.friedman.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.critical_difference == pytest.approx(ref.cd, rel=1e-4)
    first = ref.rankdf.index[0]  # autorank's effect sizes are against its first row
    ours = res.effect_sizes(reference=first)["cliff_delta"]
    np.testing.assert_allclose(ours[ref.rankdf.index],
                               ref.rankdf["effect_size"].astype(float), atol=1e-12)
