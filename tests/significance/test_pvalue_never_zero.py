"""A p-value is never 0, and its log10 is finite, for every registered test.

With every one of d > 1,075 discordant items favouring one system, the
bootstrap tests (Berg-Kirkpatrick, BCa, the hierarchical bootstrap) give
the exact sign test's ``2**(1 - d)``, which underflowed to 0.0 in double
precision (``log10_pvalue`` nan), and the exact permutation p-value, whose
pattern probabilities underflow, had no log10. The references below are
naive: the sign test's ``(1 - d) log10 2`` written out, binomial tails
summed by ``logsumexp``, and a log-space convolution of the swap
distribution written here.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln, logsumexp

import sigtest
from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    HierarchicalBootstrap,
    McNemar,
    PairedPermutation,
)
from sigtest._engine.pvalues import SMALLEST_PVALUE

LOG10_2 = math.log10(2.0)


def _one_way(n, k=2):
    """``y, a, b`` of n items in k classes: A wrong and B right on every item."""
    y = np.arange(n) % k
    return y, (y + 1) % k, y.copy()


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


@pytest.mark.parametrize("alternative, log10_p", [
    ("two-sided", (1 - 1200) * LOG10_2),  # 2**(1 - d)
    ("greater", -1200 * LOG10_2),         # 2**-d
])
@pytest.mark.parametrize("make", [
    lambda alt: BergKirkpatrickBootstrap(n_resamples=99, alternative=alt, random_state=0),
    lambda alt: BCaInterval(n_resamples=99, random_state=0),
    lambda alt: PairedPermutation(alternative=alt, random_state=0),
    lambda alt: McNemar(alternative=alt),
], ids=["bk", "bca", "permutation", "mcnemar"])
def test_all_items_one_way_gives_positive_p_and_its_exact_log10(make, alternative, log10_p):
    test = make(alternative)
    if isinstance(test, BCaInterval):
        log10_p = (1 - 1200) * LOG10_2  # BCa is two-sided
    res = _quiet(lambda: test.test(*_one_way(1200)))
    assert res.pvalue == SMALLEST_PVALUE > 0.0
    assert res.log10_pvalue == pytest.approx(log10_p, rel=1e-13)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_hierarchical_bootstrap_all_items_one_way_gives_positive_p(alternative):
    y, a, b = _one_way(1500, k=3)
    res = _quiet(lambda: HierarchicalBootstrap(n_resamples=99, alternative=alternative,
                                               random_state=0).test(y, [a, a], [b, b, b]))
    d = 1500
    assert res.pvalue == SMALLEST_PVALUE > 0.0
    assert res.params["pvalue_floor"] == SMALLEST_PVALUE
    expected = (1 - d if alternative == "two-sided" else -d) * LOG10_2
    assert res.log10_pvalue == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("d, expected", [
    (1023, 2.0 ** -1022),  # the smallest normal double: exact
    (1075, 2.0 ** -1074),  # the smallest subnormal: still exact
    (1076, SMALLEST_PVALUE),  # 2**-1075 rounds to 0: clipped
])
def test_sign_floor_is_exact_while_a_double_holds_it(d, expected):
    res = _quiet(lambda: BergKirkpatrickBootstrap(n_resamples=99, alternative="two-sided",
                                                  random_state=0).test(*_one_way(d)))
    assert res.pvalue == expected > 0.0
    assert res.log10_pvalue == pytest.approx((1 - d) * LOG10_2, rel=1e-13)


@pytest.mark.parametrize("alternative", ["non-inferiority", "equivalence"])
def test_margin_point_mass_has_the_exact_log10(alternative):
    # every item favours B by the same amount (delta = 1): inside no margin of 0.05 for
    # equivalence (p = 1), beyond it for non-inferiority (p = 2**-d)
    res = _quiet(lambda: BCaInterval(n_resamples=99, alternative=alternative, margin=0.05,
                                     random_state=0).test(*_one_way(1200)))
    if alternative == "non-inferiority":
        assert res.pvalue == SMALLEST_PVALUE
        assert res.log10_pvalue == pytest.approx(-1200 * LOG10_2, rel=1e-13)
    else:
        assert res.pvalue == 1.0 and res.log10_pvalue == 0.0


def _log10_sign_test(n_b, n_a, mid_p=False):
    """Naive two-sided exact sign test of n_b items for B and n_a for A, in log10."""
    n, k = n_b + n_a, min(n_b, n_a)
    j = np.arange(k + 1)
    terms = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
    w = np.ones(k + 1)
    if mid_p:
        w[-1] = 0.5
    return min(0.0, (math.log(2) + logsumexp(terms, b=w) - n * math.log(2)) / math.log(10))


@pytest.mark.parametrize("n_b, n_a", [(1300, 30), (2000, 100)])
@pytest.mark.parametrize("mid_p", [False, True])
def test_exact_permutation_log10_matches_the_sign_test(n_b, n_a, mid_p):
    # accuracy: the lattice path, tilted toward each tail
    n = n_b + n_a + 40  # 40 ties
    y = np.zeros(n, dtype=int)
    a = np.r_[np.ones(n_b, dtype=int), np.zeros(n_a + 40, dtype=int)]
    b = np.r_[np.zeros(n_b, dtype=int), np.ones(n_a, dtype=int), np.zeros(40, dtype=int)]
    res = _quiet(lambda: PairedPermutation(mid_p=mid_p, random_state=0).test(y, a, b))
    assert res.resampling == "exact permutation"
    assert res.pvalue == SMALLEST_PVALUE
    assert res.log10_pvalue == pytest.approx(_log10_sign_test(n_b, n_a, mid_p), rel=1e-13)


def _log10_weighted_swap_pvalue(w, signs, alternative):
    """Naive: P(T* as extreme as T) for T* = sum_i w_i e_i, e_i = +-1 fair, in log10.

    The distribution of U = sum_i w_i [e_i = +1] by a log-space convolution,
    one item at a time; T* = 2 U - sum(w).
    """
    log_pmf = np.zeros(1)
    for wi in w.tolist():
        out = np.full(log_pmf.size + wi, -np.inf)
        out[:log_pmf.size] = log_pmf + math.log(0.5)
        out[wi:] = np.logaddexp(out[wi:], log_pmf + math.log(0.5))
        log_pmf = out
    t_star = 2 * np.arange(log_pmf.size) - w.sum()
    t = float(np.dot(w, signs))
    hit = np.abs(t_star) >= abs(t) if alternative == "two-sided" else t_star >= t
    return logsumexp(log_pmf[hit]) / math.log(10)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_exact_permutation_log10_with_weights_matches_a_naive_convolution(alternative):
    # integer weights 1-3: three lattice steps per direction (a multi-group tilt)
    rng = np.random.default_rng(1)
    n = 1400
    w = rng.integers(1, 4, n)
    y, a, b = np.zeros(n, dtype=int), np.ones(n, dtype=int), np.zeros(n, dtype=int)
    for_a = rng.random(n) < 0.03
    a[for_a], b[for_a] = 0, 1
    res = _quiet(lambda: PairedPermutation(alternative=alternative, random_state=0).test(
        y, a, b, sample_weight=w))
    assert res.resampling == "exact permutation" and res.pvalue == SMALLEST_PVALUE
    expected = _log10_weighted_swap_pvalue(w, np.where(for_a, -1, 1), alternative)
    assert res.log10_pvalue == pytest.approx(expected, rel=1e-12)


def test_exact_permutation_log10_of_enumerated_patterns():
    # macro-F1 varies in several statistics: the pattern enumeration (1,501 patterns),
    # all 1,500 discordant items one way: the sign test's 2**(1 - d)
    n = 1500
    y = np.r_[np.zeros(n, dtype=int), np.ones(20, dtype=int), np.full(20, 2)]
    a = np.r_[np.ones(n, dtype=int), y[n:]]
    res = _quiet(lambda: PairedPermutation(random_state=0).test(y, a, y.copy(),
                                                                metric="f1_macro"))
    assert res.resampling == "exact permutation" and res.null_distribution.size == n + 1
    assert res.pvalue == SMALLEST_PVALUE
    assert res.log10_pvalue == pytest.approx((1 - n) * LOG10_2, rel=1e-13)


# ------------------------------------------------------------------- property
#: Metrics each test accepts (the refusals are documented and tested elsewhere).
_DECOMPOSABLE = ["accuracy", "mean_absolute_error", "log_loss", "soft_accuracy"]
_ANY = _DECOMPOSABLE + ["f1_macro", "r2", "roc_auc", "brier_score"]
_METRICS = {"mcnemar": ["accuracy"], "delong": ["roc_auc"], "sign": _DECOMPOSABLE,
            "wilcoxon": _DECOMPOSABLE, "paired_t": _DECOMPOSABLE}


@st.composite
def _mostly_one_way(draw, name):
    """Data for test ``name``: mostly large N with (nearly) every item favouring one system.

    N above 1,075 (where ``2**(1 - N)`` underflows) in three draws of four,
    else 5-200; the items going the other way: none, 1, 5 or a random
    share of up to one half; 7 ties or none.
    """
    metric = draw(st.sampled_from(_METRICS.get(name, _ANY)))
    n = draw(st.one_of(st.integers(1076, 2500), st.integers(1076, 2500),
                       st.integers(1076, 2500), st.integers(5, 200)))
    n_other = draw(st.sampled_from([0, 0, 1, 5, "share"]))  # items the other way
    if n_other == "share":
        n_other = draw(st.integers(0, n // 2))
    n_tied = min(draw(st.sampled_from([0, 7])), n - n_other)  # items where A and B agree
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = sigtest.get_metric(metric).input_type
    if kind == "labels":
        y = rng.integers(0, 3, n)
        good, bad = y.copy(), (y + 1) % 3
    elif kind == "regression":
        y = rng.lognormal(0.0, 0.5, n)
        good, bad = y * 1.01, y * 1.5
    elif kind == "proba":
        y = np.eye(3)[rng.integers(0, 3, n)]
        good, bad = 0.9 * y + 0.1 / 3, 0.9 * np.roll(y, 1, axis=1) + 0.1 / 3
    else:  # binary labels and P(positive)
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        good, bad = np.where(y == 1, 0.9, 0.1), np.where(y == 1, 0.2, 0.8)
    a, b = bad.copy(), good.copy()
    a[:n_other], b[:n_other] = good[:n_other], bad[:n_other]
    a[n_other:n_other + n_tied] = b[n_other:n_other + n_tied]
    if draw(st.booleans()):  # A the better one
        a, b = b, a
    return dict(y=y, a=a, b=b, metric=metric)


def _make(name, seed):
    cls = sigtest.get_test(name)
    cls = cls if isinstance(cls, type) else type(cls)
    params = cls().get_params()
    kwargs = {key: value for key, value in (("n_resamples", 99), ("random_state", seed),
                                             ("n_jobs", 1)) if key in params}
    return cls(**kwargs)


@pytest.mark.parametrize("name", sigtest.get_test_names())
@settings(max_examples=8, deadline=None)
@given(draw=st.data(), seed=st.integers(0, 2**32 - 1))
def test_every_test_gives_positive_p_and_finite_log10(name, draw, seed):
    data = draw.draw(_mostly_one_way(name), label="data")
    res = _quiet(lambda: _make(name, seed).test(data["y"], data["a"], data["b"],
                                                metric=data["metric"]))
    if name == "bayesian_bootstrap":  # a posterior, not a test: no p-value by design
        assert math.isnan(res.pvalue) and math.isnan(res.log10_pvalue)
        return
    assert 0.0 < res.pvalue <= 1.0, res.pvalue
    assert math.isfinite(res.log10_pvalue) and res.log10_pvalue <= 0.0, res.log10_pvalue
    if res.pvalue >= 2.2250738585072014e-308:  # a normal double: its own log10
        assert res.log10_pvalue == pytest.approx(math.log10(res.pvalue), rel=1e-9, abs=1e-12)
    else:  # the log10 says how small: the p-value is its value, or the smallest double
        assert res.log10_pvalue < -307.0
        expected = 10.0 ** res.log10_pvalue
        assert res.pvalue == pytest.approx(max(expected, SMALLEST_PVALUE), rel=1e-6,
                                           abs=SMALLEST_PVALUE)
