"""Issue 20: every item favours one system -> the strongest evidence, not "identical systems".

When every bootstrap resample gives the observed difference (every item
favours the same system by the same amount) the bootstrap distribution is a
single point. Only a point at 0 is "identical systems" (p = 1, no interval);
a point at delta != 0 gives the exact sign-test p of the d discordant items
all going one way and the point interval [delta, delta]. The references are
the exact sign-flip (permutation) p-values written naively here.
"""

import math
import warnings

import numpy as np
import pytest

import sigtest
from sigtest import (
    BCaInterval,
    BergKirkpatrickBootstrap,
    DegenerateDistributionWarning,
    HierarchicalBootstrap,
    PairedPermutation,
    SmallSampleWarning,
)
ONE_WAY = "favours the same system"


def _exact_sign_flip_p(diffs, alternative):
    """Exact paired permutation p of the mean difference, by enumerating the sign
    patterns of the nonzero differences that give each count of positive signs.

    All nonzero |differences| are equal here, so a pattern is summarised by the
    number k of positive signs (C(d, k) patterns of probability 2**-d each).
    """
    diffs = np.asarray(diffs, dtype=float)
    nz = diffs[diffs != 0]
    d = nz.size
    mag = abs(nz[0])
    assert np.all(np.abs(nz) == mag)
    observed = nz.sum()
    total = 0
    for k in range(d + 1):
        stat = mag * (2 * k - d)
        if alternative == "two-sided":
            hit = abs(stat) >= abs(observed)
        elif alternative == "greater":
            hit = stat >= observed
        else:
            hit = stat <= observed
        if hit:
            total += math.comb(d, k)
    return total / 2**d


def _one_way(n, n_discordant):
    """A wrong on the first ``n_discordant`` items, B right everywhere; y = 0."""
    y = np.zeros(n, int)
    a = np.zeros(n, int)
    a[:n_discordant] = 1
    return y, a, y.copy()


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_bk_every_item_one_way_is_at_most_the_exact_permutation_p(alternative):
    y, a, b = _one_way(30, 30)
    exact = _exact_sign_flip_p(np.ones(30), alternative)  # 2**-29, 2**-30, 1
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BergKirkpatrickBootstrap(n_resamples=999, alternative=alternative,
                                       random_state=0).test(y, a, b)
    assert res.pvalue <= exact
    assert res.pvalue == exact  # the exact sign-test value itself
    if alternative == "two-sided":
        assert exact == 2.0 ** (1 - 30)
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        ci = res.ci()
    assert ci.low <= res.delta <= ci.high and np.isfinite(ci).all()
    # B worse on every item: the mirror image
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        mirror = BergKirkpatrickBootstrap(n_resamples=999, alternative=alternative,
                                          random_state=0).test(y, b, a)
    assert mirror.pvalue == _exact_sign_flip_p(-np.ones(30), alternative)


@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
def test_bca_every_item_one_way_gives_the_exact_p_and_a_finite_interval(method):
    y, a, b = _one_way(30, 30)
    exact = _exact_sign_flip_p(np.ones(30), "two-sided")
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BCaInterval(n_resamples=999, method=method, random_state=0).test(y, a, b)
    assert res.pvalue <= exact
    assert tuple(res.confidence_interval) == (1.0, 1.0) == (res.delta, res.delta)
    perm = PairedPermutation(exact=True).test(y, a, b)
    assert res.pvalue <= perm.pvalue
    # ci() at other levels gives the same point, and agrees with p
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        assert tuple(res.ci(0.99)) == (1.0, 1.0)


def test_bca_few_items_one_way_widens_the_point_to_zero():
    """4 of 4 items one way: exact p = 2**-3 = .125 > .05, so the interval must
    contain 0 (p <= 1 - level iff the interval excludes 0)."""
    y, a, b = _one_way(4, 4)
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BCaInterval(n_resamples=999, random_state=0).test(y, a, b)
    assert res.pvalue == _exact_sign_flip_p(np.ones(4), "two-sided") == 0.125
    assert tuple(res.confidence_interval) == (0.0, 1.0)
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        assert tuple(res.ci(0.8)) == (1.0, 1.0)  # 1 - .8 = .2 > .125: excludes 0


def test_more_discordant_items_never_make_the_answer_worse():
    """95, 99 and 100 of 100 items favour B: p never grows, the interval stays
    finite and contains delta (old: 100 of 100 gave p = 1 and nan)."""
    previous = 1.0
    for d in (95, 99, 100):
        y, a, b = _one_way(100, d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDistributionWarning)
            bca = BCaInterval(n_resamples=999, random_state=0).test(y, a, b)
            bk = BergKirkpatrickBootstrap(n_resamples=999, alternative="two-sided",
                                          random_state=0).test(y, a, b)
        assert bca.pvalue <= previous and bk.pvalue <= previous
        assert bca.pvalue <= _exact_sign_flip_p(a - b, "two-sided") or d < 100
        low, high = bca.confidence_interval
        assert np.isfinite([low, high]).all() and low <= bca.delta <= high
        previous = max(bca.pvalue, bk.pvalue)
    assert previous == 2.0 ** (1 - 100)


def test_soft_metric_and_loss_constant_difference():
    """A constant non-zero per-item difference of a soft score and of a loss."""
    n = 12
    y = np.tile([[1.0, 0.0]], (n, 1))
    a = np.tile([[0.6, 0.4]], (n, 1))
    b = np.tile([[0.8, 0.2]], (n, 1))
    exact = _exact_sign_flip_p(np.full(n, 0.2), "greater")  # 2**-12
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BergKirkpatrickBootstrap(n_resamples=499, alternative="greater",
                                       random_state=0).test(y, a, b, metric="soft_accuracy")
    assert res.pvalue == exact
    # cross entropy is a loss: B lower is better, "greater" means B better
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BergKirkpatrickBootstrap(n_resamples=499, alternative="greater",
                                       random_state=0).test(y, a, b, metric="cross_entropy")
    assert res.delta < 0 and res.pvalue == exact


def test_identical_systems_keep_p_one_and_no_interval():
    y, a, _ = _one_way(30, 10)
    for test in (BergKirkpatrickBootstrap(n_resamples=199, random_state=0),
                 BCaInterval(n_resamples=199, random_state=0)):
        with pytest.warns(DegenerateDistributionWarning, match="identical systems"):
            res = test.test(y, a, a.copy())
        assert res.pvalue == 1.0 and np.isnan(res.confidence_interval).all()


def test_bca_margins_with_every_item_one_way():
    """Non-inferiority: B right on every item, A wrong on every one: shown at the
    exact one-sided p 2**-N (old: p = 1 and a nan interval)."""
    y, a, b = _one_way(30, 30)
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BCaInterval(n_resamples=499, random_state=0, alternative="non-inferiority",
                          margin=0.05).test(y, a, b)
    assert res.pvalue == _exact_sign_flip_p(np.ones(30), "greater") == 2.0 ** -30
    assert res.confidence_interval.low == 1.0 and res.confidence_interval.high == math.inf
    # equivalence within .05 is not shown: delta = 1 is beyond the margin
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = BCaInterval(n_resamples=499, random_state=0, alternative="equivalence",
                          margin=0.05).test(y, a, b)
    assert res.pvalue == 1.0


def test_hierarchical_every_item_one_way():
    y, a, b = _one_way(30, 30)
    with pytest.warns(DegenerateDistributionWarning, match=ONE_WAY):
        res = HierarchicalBootstrap(n_resamples=499, alternative="two-sided",
                                    random_state=0).test(y, [a] * 5, [b] * 5)
    assert res.pvalue <= _exact_sign_flip_p(np.ones(30), "two-sided")
    assert tuple(res.confidence_interval) == (1.0, 1.0)
    assert res.params["n_discordant"] == 30


def test_compare_shows_a_finite_interval_for_every_item_one_way():
    y, a, b = _one_way(30, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDistributionWarning)
        res = sigtest.compare(y, {"A": a, "B": b}, metrics="accuracy", random_state=0)
    row = res.to_frame().iloc[0]
    assert abs(row.delta) == 1.0
    assert (row.ci_low, row.ci_high) == (row.delta, row.delta)  # was (nan, nan)
    # compare's p is the exact permutation test's (fsum of pattern weights)
    assert row.pvalue == pytest.approx(_exact_sign_flip_p(np.ones(30), "two-sided"), rel=1e-12)
    assert "nan" not in str(res)


def test_point_mass_pvalue_is_the_exact_sign_test():
    from sigtest._engine.small_sample import point_mass_pvalue

    for d in (1, 2, 5, 30, 60):
        ones = np.ones(d)
        for alt in ("two-sided", "greater", "less"):
            assert point_mass_pvalue(1.0, d, alt) == _exact_sign_flip_p(ones, alt)
            assert point_mass_pvalue(-1.0, d, alt) == _exact_sign_flip_p(-ones, alt)
    assert point_mass_pvalue(0.0, 0) == 1.0 and point_mass_pvalue(1e-17, 3, atol=1e-16) == 1.0
    assert math.isnan(point_mass_pvalue(math.nan, 3))
    # a margin: the point beyond the null value
    assert point_mass_pvalue(0.2, 4, "greater", null_value=-0.05) == 2.0 ** -4
    assert point_mass_pvalue(0.2, 4, "less", null_value=0.05) == 1.0


def test_small_sample_warning_is_not_needed_for_the_exact_point_p():
    """The point p is the exact permutation p: no SmallSampleWarning about the
    bootstrap's size, only the DegenerateDistributionWarning."""
    y, a, b = _one_way(6, 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        BergKirkpatrickBootstrap(n_resamples=199, random_state=0).test(y, a, b)
    kinds = {type(w.message) for w in caught}
    assert DegenerateDistributionWarning in kinds and SmallSampleWarning not in kinds
