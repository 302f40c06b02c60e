"""Multiple-comparison corrections against statsmodels and scipy."""

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from sigtest.tests_._corrections import adjust_pvalues

multitest = pytest.importorskip("statsmodels.stats.multitest")

_STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "fdr_bh": "fdr_bh"}


def _families():
    rng = np.random.default_rng(0)
    yield np.array([0.01, 0.04, 0.03, 0.2, 0.5])
    yield np.array([0.001, 0.001, 0.02, 0.02, 0.02, 1.0])  # ties
    yield np.array([0.0, 1.0])
    yield np.array([0.3])
    for size in (10, 45, 435):
        # a mixture of nulls (uniform) and small p-values
        yield np.concatenate([rng.uniform(size=size // 2), rng.beta(0.2, 5, size - size // 2)])


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
@pytest.mark.parametrize("family", list(_families()), ids=lambda p: f"m{p.size}")
def test_matches_statsmodels(method, family):
    _, expected, _, _ = multitest.multipletests(family, alpha=0.05, method=_STATSMODELS[method])
    np.testing.assert_allclose(adjust_pvalues(family, method), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("family", list(_families()), ids=lambda p: f"m{p.size}")
def test_fdr_bh_matches_scipy(family):
    np.testing.assert_allclose(adjust_pvalues(family, "fdr_bh"),
                               false_discovery_control(family, method="bh"), rtol=1e-12)


def test_holm_by_hand():
    # sorted: .01*3 = .03, .03*2 = .06, .04*1 = .04 -> running max .03 .06 .06
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "holm"), [0.03, 0.06, 0.06])


def test_none_returns_copy():
    p = np.array([0.2, 0.01])
    out = adjust_pvalues(p, None)
    np.testing.assert_array_equal(out, p)
    out[0] = 1
    assert p[0] == 0.2


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_nan_left_out_of_the_family(method):
    p = np.array([0.01, np.nan, 0.04, 0.03])
    out = adjust_pvalues(p, method)
    assert np.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2, 3]], adjust_pvalues(p[[0, 2, 3]], method))


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjusted_not_smaller_and_bounded(method):
    p = np.random.default_rng(1).uniform(size=50)
    out = adjust_pvalues(p, method)
    assert np.all(out >= p) and np.all(out <= 1)


def test_bad_input():
    with pytest.raises(ValueError, match="correction"):
        adjust_pvalues([0.1], "sidak-ish")
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        adjust_pvalues([0.1, 1.5], "holm")
    with pytest.raises(ValueError, match="1-D"):
        adjust_pvalues([[0.1]], "holm")
