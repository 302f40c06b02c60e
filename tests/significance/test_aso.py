"""almost_stochastic_order / aso_matrix: definitions, deepsig, simulation, orientation."""

import warnings
from statistics import NormalDist

import numpy as np
import pytest

from sigtest import ASOResult, DegenerateDistributionWarning, almost_stochastic_order, aso_matrix


def _naive_ratio(a, b):
    """Violation ratio from the definition, on a midpoint grid fine enough to be exact.

    F^{-1}(t) = x_(ceil(n t)) (order statistics of A), G^{-1} of B; the grid of
    4 n m midpoints lies strictly inside the intervals where both are constant,
    so the Riemann sums are the integrals.
    """
    n, m = len(a), len(b)
    t = (np.arange(4 * n * m) + 0.5) / (4 * n * m)
    f = np.sort(a)[np.ceil(n * t).astype(int) - 1]
    g = np.sort(b)[np.ceil(m * t).astype(int) - 1]
    d = g - f
    return np.mean(np.maximum(d, 0) ** 2) / np.mean(d ** 2)


@pytest.mark.parametrize("n, m", [(5, 5), (7, 3), (10, 12), (2, 9)])
def test_violation_ratio_is_the_definition(n, m):
    rng = np.random.default_rng(n * 100 + m)
    a, b = rng.normal(0, 1.5, n), rng.normal(0.3, 1, m)
    res = almost_stochastic_order(a, b, n_resamples=50, random_state=0)
    # B against A: the ratio of F = B's scores, G = A's
    assert res.violation_ratio == pytest.approx(_naive_ratio(b, a), rel=1e-12, abs=1e-14)
    # epsilon_min = clip(eps + sd * z, 0, 1) with the bootstrap sd
    z = NormalDist().inv_cdf(0.95)
    assert res.epsilon_min == pytest.approx(min(1, max(0, res.violation_ratio + res.sigma * z)))
    # the bootstrap sd is that of the ratios of resamples with replacement (seeded twin)
    # (the 50 resamples fit one chunk: all of B's draws, then all of A's)
    rng2 = np.random.default_rng(0)
    ib, ia = rng2.integers(0, m, size=(50, m)), rng2.integers(0, n, size=(50, n))
    boots = [_naive_ratio(b[j], a[i]) for i, j in zip(ia, ib)]
    boots = np.where(np.isnan(boots), 0.5, boots)
    assert res.sigma == pytest.approx(np.std(boots), rel=1e-9, abs=1e-12)
    # direction: A vs B and B vs A have complementary ratios
    rev = almost_stochastic_order(b, a, n_resamples=50, random_state=0)
    assert rev.violation_ratio == pytest.approx(1 - res.violation_ratio, abs=1e-12)


def test_violation_ratio_against_deepsig():
    """deepsig's compute_violation_ratio (test-only reference) on the same samples.

    deepsig integrates on the grid t = dt, 2 dt, ... and drops the first grid
    point from the numerator, so it converges to the exact ratio as dt -> 0:
    with dt = 5e-4 the error is at most a few grid cells (each holding a
    share ~dt * max(diff^2) / W2^2): measured below 2.2e-3, tolerance 4e-3.
    With deepsig's default dt = .005 the measured differences reach .025
    (n = 7: the breakpoints i/7 fall between grid points).
    """
    aso_mod = pytest.importorskip("deepsig.aso")
    rng = np.random.default_rng(5)
    for mu, n, m in ((0.3, 10, 10), (0.8, 7, 20)):
        a, b = rng.normal(mu, 1, n), rng.normal(0, 1, m)
        # deepsig's aso(a, b) is sigtest's almost_stochastic_order(b, a) (B against A)
        ours = almost_stochastic_order(b, a, n_resamples=10, random_state=0).violation_ratio
        ref = aso_mod.compute_violation_ratio(scores_a=a, scores_b=b, dt=5e-4)
        assert abs(ours - ref) <= 4e-3
        coarse = aso_mod.compute_violation_ratio(scores_a=a, scores_b=b, dt=0.005)
        assert abs(ours - coarse) <= 0.03


@pytest.mark.slow
def test_against_deepsig():
    """deepsig's aso() end to end (its bootstrap is slow: ~10 s per 300 resamples).

    Both use 150 bootstrap resamples with their own draws: each sd estimate has
    a relative standard error ~ 1/sqrt(2 * 150) = 5.8 %, the difference of the
    two ~ 8.2 %; the tolerance allows 4 SE of the sd term (z * .33 * sd) plus
    .03 for deepsig's grid (see above).
    """
    deepsig = pytest.importorskip("deepsig")
    rng = np.random.default_rng(5)
    for mu in (0.3,):
        a, b = rng.normal(mu, 1, 12), rng.normal(0, 1, 15)
        res = almost_stochastic_order(b, a, n_resamples=150, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = deepsig.aso(a, b, seed=0, show_progress=False, num_bootstrap_iterations=150)
        tol = 0.03 + 0.33 * NormalDist().inv_cdf(0.95) * res.sigma
        print(f"mu={mu}: sigtest {res.epsilon_min:.4f}, deepsig {ref:.4f}")
        assert abs(res.epsilon_min - ref) <= tol


@pytest.mark.slow
def test_simulation_dominance_and_identical_distributions():
    """Dror et al. (2019) behaviour, 200 seeded replications of 10 vs 10 seeds, B = 300.

    B ~ N(1, 1) against A ~ N(0, 1): epsilon_min small (median < .2, below .5 in at
    least 80 % of replications). Identical N(0, 1): the violation ratio is 1/2
    on average (symmetry; mean within .5 +- .05, about 4 SE of the mean of 200
    ratios of sd ~ .3). The bound is *not* a level-.05 test at the threshold
    .5: "B better" (epsilon_min < .5) is concluded in ~20 % of identical
    pairs (deepsig gives the same bound; Ulmer et al. 2022 recommend the
    threshold .2), which stays within the 99.9 % band of Bin(200, .05)
    (k <= 21). Measured (SeedSequence(21), 200 reps): dominance median .127,
    share < .5 .87; identical: mean ratio .516, share < .5 .18 (400 reps, 5 /
    10 / 20 seeds: .185 / .205 / .183 at .5; .055 / .035 / .035 at .2).
    """
    from scipy.stats import binom

    reps = 200
    eps_dom, eps_null, ratio_null = [], [], []
    for ss in np.random.SeedSequence(21).spawn(reps):
        rng = np.random.default_rng(ss)
        b = rng.normal(0, 1, 10)
        eps_dom.append(almost_stochastic_order(b, rng.normal(1, 1, 10), n_resamples=300,
                                               random_state=rng).epsilon_min)
        res = almost_stochastic_order(b, rng.normal(0, 1, 10), n_resamples=300,
                                      random_state=rng)
        eps_null.append(res.epsilon_min)
        ratio_null.append(res.violation_ratio)
    eps_dom, eps_null = np.array(eps_dom), np.array(eps_null)
    print(f"N(1,1) vs N(0,1): median eps_min {np.median(eps_dom):.3f}, "
          f"share < .5 {np.mean(eps_dom < 0.5):.3f}; identical: mean ratio "
          f"{np.mean(ratio_null):.3f}, share eps_min < .5 {np.mean(eps_null < 0.5):.3f}, "
          f"< .2 {np.mean(eps_null < 0.2):.3f}")
    assert np.median(eps_dom) < 0.2
    assert np.mean(eps_dom < 0.5) >= 0.8
    assert abs(np.mean(ratio_null) - 0.5) < 0.05
    band = binom.ppf(0.999, reps, 0.05)
    assert np.sum(eps_null < 0.2) <= band
    assert np.sum(eps_null < 0.5) > band  # the documented anti-conservativeness at .5


def test_result_object_and_determinism():
    a, b = [0.79, 0.80, 0.78, 0.81, 0.80], [0.81, 0.83, 0.80, 0.84, 0.82]
    r1 = almost_stochastic_order(a, b, random_state=3)
    r2 = almost_stochastic_order(a, b, random_state=3)
    assert isinstance(r1, ASOResult) and r1 == r2
    d = r1.to_dict()
    assert d["epsilon_min"] == r1.epsilon_min and d["n_a"] == 5 and d["n_resamples"] == 9999
    assert "epsilon_min" in str(r1)
    text = {0.1: "B is almost stochastically larger than A (epsilon_min < 0.2)",
            0.3: "only by the 0.5 threshold",
            0.7: "no almost stochastic order of B over A"}
    for eps, words in text.items():
        fake = ASOResult(epsilon_min=eps, violation_ratio=eps, sigma=0.0,
                         confidence_level=0.95, n_resamples=1, n_a=2, n_b=2)
        assert words in str(fake)
    assert 0 <= r1.epsilon_min <= 1
    # a higher confidence level gives a larger (more cautious) bound
    assert almost_stochastic_order(a, b, confidence_level=0.99, random_state=3).epsilon_min \
        >= r1.epsilon_min


def test_identical_samples_warn_and_give_one_half():
    with pytest.warns(DegenerateDistributionWarning, match="W2 = 0"):
        res = almost_stochastic_order([1.0, 2.0, 3.0], [3.0, 1.0, 2.0], random_state=0)
    assert res.violation_ratio == 0.5


@pytest.mark.parametrize("bad, match", [
    ([1.0], "scores_a.*at least 2"),
    ([1.0, np.nan], "scores_a.*NaN"),
    ([[1.0, 2.0], [3.0, 4.0]], "scores_a.*1-D"),
    (["x", "y"], "scores_a"),
])
def test_bad_scores(bad, match):
    with pytest.raises(ValueError, match=match):
        almost_stochastic_order(bad, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=match.replace("scores_a", "scores_b")):
        almost_stochastic_order([1.0, 2.0, 3.0], bad)


def test_bad_parameters():
    with pytest.raises(ValueError, match="confidence_level"):
        almost_stochastic_order([1, 2], [2, 3], confidence_level=1.0)
    with pytest.raises(ValueError, match="n_resamples"):
        almost_stochastic_order([1, 2], [2, 3], n_resamples=0)
    with pytest.raises(TypeError):
        almost_stochastic_order([1, 2], [2, 3], alpha=0.05)
    with pytest.raises(ValueError, match="at least two"):
        aso_matrix({"a": [1, 2, 3]})
    with pytest.raises(ValueError, match="scores\\['b'\\].*NaN"):
        aso_matrix({"a": [1, 2, 3], "b": [1, np.nan]})


def test_aso_matrix():
    rng = np.random.default_rng(0)
    scores = {"mid": rng.normal(1, 1, 8), "low": rng.normal(0, 1, 8),
              "high": rng.normal(2.5, 1, 8)}
    m = aso_matrix(scores, random_state=0)
    assert list(m.index) == ["mid", "low", "high"] and np.isnan(np.diag(m.values)).all()
    # small: the column system is better (B against A)
    assert m.loc["low", "high"] < 0.5 and m.loc["high", "low"] > 0.5
    # order of the systems does not matter
    rev = aso_matrix(dict(reversed(list(scores.items()))), random_state=0)
    np.testing.assert_array_equal(rev.loc[m.index, m.columns].values, m.values)
    # each pair: the single-pair computation at the Bonferroni level, with the
    # pair's child seed (pairs in sorted-name order)
    children = np.random.SeedSequence(0).spawn(3)
    pairs = [("high", "low"), ("high", "mid"), ("low", "mid")]
    for (a, b), child in zip(pairs, children):
        one = almost_stochastic_order(scores[a], scores[b], confidence_level=1 - 0.05 / 3,
                                      random_state=np.random.default_rng(child))
        assert m.loc[a, b] == pytest.approx(one.epsilon_min, abs=1e-12)
        z = NormalDist().inv_cdf(1 - 0.05 / 3)
        assert m.loc[b, a] == pytest.approx(
            min(1, max(0, 1 - one.violation_ratio + one.sigma * z)), abs=1e-12)
    # without Bonferroni the bounds are smaller or equal
    plain = aso_matrix(scores, random_state=0, correction=None)
    off = ~np.eye(3, dtype=bool)
    assert (plain.values[off] <= m.values[off] + 1e-12).all()


def test_b_clearly_better_reads_b_better():
    """almost_stochastic_order(A, B) with B clearly better: epsilon_min near 0, as a p-value."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.0, 1.0, 10), rng.normal(5.0, 1.0, 10)
    res = almost_stochastic_order(a, b, random_state=0)
    assert res.epsilon_min < 0.05 and res.violation_ratio == 0.0
    assert "B is almost stochastically larger than A" in str(res)
    assert almost_stochastic_order(b, a, random_state=0).epsilon_min == 1.0
    # the matrix: entry [a, b] is almost_stochastic_order(scores[a], scores[b])
    m = aso_matrix({"a": a, "b": b}, correction=None, random_state=0)
    assert m.loc["a", "b"] < 0.05 and m.loc["b", "a"] == 1.0


def test_aso_matrix_correction_is_bonferroni_or_none():
    scores = {"a": [1.0, 2.0, 3.5], "b": [1.5, 2.5, 3.0]}
    with pytest.raises(ValueError, match="'correction' parameter of aso_matrix"):
        aso_matrix(scores, correction="holm")
    with pytest.raises(TypeError, match="old keyword 'use_bonferroni'; it is now 'correction'"):
        aso_matrix(scores, use_bonferroni=False)
