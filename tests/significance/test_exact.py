"""Exact permutation p-values: McNemar / sign test, brute-force enumeration."""

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import f1_score

from sigtest import PairedPermutation

# tolerance for ties of float deltas, as in the implementation (scipy style)
TOL = 100 * np.finfo(float).eps


def _systems(rng, n, k, acc_a, acc_b):
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < acc_a, y, (y + rng.integers(1, k, n)) % k)
    b = np.where(rng.random(n) < acc_b, y, (y + rng.integers(1, k, n)) % k)
    return y, a, b


@pytest.mark.parametrize("seed, n, k, acc_a, acc_b", [
    (0, 40, 2, 0.7, 0.8),
    (1, 200, 3, 0.6, 0.68),
    (2, 500, 4, 0.8, 0.8),
    (3, 1000, 5, 0.75, 0.73),
    (4, 25, 2, 0.5, 0.9),
])
def test_exact_accuracy_equals_mcnemar_sign_test(seed, n, k, acc_a, acc_b):
    y, a, b = _systems(np.random.default_rng(seed), n, k, acc_a, acc_b)
    n_b = int(np.sum((a != y) & (b == y)))  # only B right
    n_c = int(np.sum((a == y) & (b != y)))  # only A right
    res = PairedPermutation(exact=True).test(y, a, b, metric="accuracy")
    assert res.resampling == "exact permutation"
    assert res.pvalue == pytest.approx(binomtest(n_b, n_b + n_c, 0.5).pvalue, rel=1e-9)
    greater = PairedPermutation(exact=True, alternative="greater").test(y, a, b)
    assert greater.pvalue == pytest.approx(
        binomtest(n_b, n_b + n_c, 0.5, alternative="greater").pvalue, rel=1e-9)
    less = PairedPermutation(exact=True, alternative="less").test(y, a, b)
    assert less.pvalue == pytest.approx(
        binomtest(n_b, n_b + n_c, 0.5, alternative="less").pvalue, rel=1e-9)
    # exact weights form a distribution
    assert res.null_weights.sum() == pytest.approx(1.0)


def _macro_f1_rows(y, preds, k):
    """Macro F1 (0/0 -> 0) of every row of ``preds`` against ``y``, plain NumPy."""
    f1 = np.zeros(preds.shape[0])
    for c in range(k):
        tp = np.sum((preds == c) & (y == c), axis=1)
        fp = np.sum((preds == c) & (y != c), axis=1)
        fn = np.sum((preds != c) & (y == c), axis=1)
        den = 2 * tp + fp + fn
        f1 += np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0)
    return f1 / k


def _accuracy_rows(y, preds):
    return np.mean(preds == y, axis=1)


def _brute_force(y, a, b, score_rows):
    """All 2**N swap patterns, scored with a plain vectorised metric.

    Returns the observed delta and the N-pattern deltas (equally likely).
    """
    n = len(y)
    masks = np.array(list(itertools.product((False, True), repeat=n)))
    a_star = np.where(masks, b, a)
    b_star = np.where(masks, a, b)
    delta = score_rows(y, b[None, :])[0] - score_rows(y, a[None, :])[0]
    return delta, score_rows(y, b_star) - score_rows(y, a_star)


def _p_from(delta, d, alternative):
    tol = TOL * abs(delta)
    if alternative == "two-sided":
        return np.mean(np.abs(d) >= abs(delta) - tol)
    if alternative == "greater":
        return np.mean(d >= delta - tol)
    return np.mean(d <= delta + tol)


def test_plain_macro_f1_matches_sklearn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, (5, 15))
    p = rng.integers(0, 3, (5, 15))
    for yi, pi in zip(y, p):
        ref = f1_score(yi, pi, average="macro", labels=[0, 1, 2], zero_division=0.0)
        assert _macro_f1_rows(yi, pi[None, :], 3)[0] == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_exact_macro_f1_brute_force(seed):
    y, a, b = _systems(np.random.default_rng(10 + seed), 12, 3, 0.5, 0.7)
    delta, d = _brute_force(y, a, b, lambda t, p: _macro_f1_rows(t, p, 3))
    for alternative in ("two-sided", "greater", "less"):
        res = PairedPermutation(exact=True, alternative=alternative).test(
            y, a, b, metric="f1_macro", labels=[0, 1, 2], zero_division=0.0)
        assert res.delta == pytest.approx(delta, abs=1e-12)
        assert res.pvalue == pytest.approx(_p_from(delta, d, alternative), abs=1e-12)


def test_exact_accuracy_brute_force_generic_path():
    # sample weights disable the cell compression: exact over the 2**d items
    y, a, b = _systems(np.random.default_rng(7), 12, 2, 0.6, 0.75)
    res = PairedPermutation(exact=True).test(y, a, b, sample_weight=np.ones(12))
    delta, d = _brute_force(y, a, b, _accuracy_rows)
    assert res.pvalue == pytest.approx(_p_from(delta, d, "two-sided"), abs=1e-12)


def test_exact_true_raises_when_too_large():
    y, a, b = _systems(np.random.default_rng(5), 20_000, 10, 0.5, 0.5)
    with pytest.raises(ValueError, match="exact"):
        PairedPermutation(exact=True).test(y, a, b, metric="f1_macro")
    auto = PairedPermutation(n_resamples=199, random_state=0).test(y, a, b, metric="f1_macro")
    assert auto.resampling == "permutation" and auto.n_resamples == 199


@pytest.mark.parametrize("seed", [0, 1])
def test_monte_carlo_agrees_with_exact(seed):
    # binary macro-F1 on 60 items: few enough cells to enumerate exactly
    y, a, b = _systems(np.random.default_rng(20 + seed), 60, 2, 0.7, 0.8)
    exact = PairedPermutation(exact=True).test(y, a, b, metric="f1_macro")
    B = 4000
    mc = PairedPermutation(n_resamples=B, exact=False, random_state=seed).test(
        y, a, b, metric="f1_macro")
    assert mc.resampling == "permutation"
    # (c + 1)/(B + 1) is unbiased up to 1/B; 4.5 binomial SDs (two-sided 7e-6)
    sd = np.sqrt(exact.pvalue * (1 - exact.pvalue) / B)
    assert abs(mc.pvalue - exact.pvalue) <= 4.5 * sd + 1 / B


def test_identical_systems_exact():
    y, a, _ = _systems(np.random.default_rng(3), 50, 3, 0.7, 0.7)
    with pytest.warns(Warning, match="single point"):
        res = PairedPermutation(exact=True).test(y, a, a.copy())
    assert res.pvalue == 1.0 and res.n_resamples == 1


def test_one_differing_item():
    y = np.zeros(30, int)
    a = y.copy()
    b = y.copy()
    a[0] = 1  # only A is wrong, on one item
    res = PairedPermutation().test(y, a, b)
    assert res.resampling == "exact permutation"
    assert res.pvalue == 1.0  # sign test with one discordant pair
    assert PairedPermutation(alternative="greater").test(y, a, b).pvalue == pytest.approx(0.5)
