"""Multiple-comparison corrections against statsmodels and scipy."""

import numpy as np
import pytest
from scipy.stats import false_discovery_control

from sigtest import adjust_pvalues
from sigtest.tests_._corrections import CORRECTIONS

multitest = pytest.importorskip("statsmodels.stats.multitest")

#: sigtest's method names -> statsmodels' (the reference, test-only); every
#: statsmodels name is also a sigtest name, for the same method
_STATSMODELS = {"holm": "holm", "bonferroni": "bonferroni", "fdr_bh": "fdr_bh",
                "sidak": "sidak", "holm-sidak": "holm-sidak", "hochberg": "simes-hochberg",
                "hommel": "hommel", "fdr_by": "fdr_by", "bh": "fdr_bh", "by": "fdr_by",
                **{name: name for name in multitest.multitest_alias
                   if not name.startswith("lfdr")}}


def _families():
    rng = np.random.default_rng(0)
    yield np.array([0.01, 0.04, 0.03, 0.2, 0.5])
    yield np.array([0.001, 0.001, 0.02, 0.02, 0.02, 1.0])  # ties
    yield np.array([0.0, 1.0])
    yield np.array([0.3])
    yield np.array([0.01, 0.02, 0.03, 0.04, 0.05, 1.0, 1.0])  # ties at 1
    yield np.round(rng.beta(0.3, 2, size=30), 2)  # many ties
    for size in (10, 45, 435):
        # a mixture of nulls (uniform) and small p-values
        yield np.concatenate([rng.uniform(size=size // 2), rng.beta(0.2, 5, size - size // 2)])


def test_every_method_has_a_reference():
    assert set(_STATSMODELS) == set(CORRECTIONS)


@pytest.mark.parametrize("method", CORRECTIONS)
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


def test_hommel_by_hand():
    # (0.01, ..., 0.05): the global Simes p-value min_j 5 p_(j) / j = 0.05 is
    # the largest for every hypothesis. (0.001, 0.04, 0.05): H1's largest Simes
    # p-value is that of the full set, min(3 * .001, 3 * .04 / 2, .05) = .003;
    # H2, H3: that of {H2, H3}, min(2 * .04, .05) = .05
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.02, 0.03, 0.04, 0.05], "hommel"),
                               [0.05] * 5, rtol=1e-12)
    np.testing.assert_allclose(adjust_pvalues([0.001, 0.04, 0.05], "hommel"),
                               [0.003, 0.05, 0.05], rtol=1e-12)


def _hommel_closed_testing(p):
    """Hommel's adjusted p-values by brute force over every intersection (small m)."""
    from itertools import combinations

    m = len(p)
    out = np.zeros(m)
    for size in range(1, m + 1):
        for subset in combinations(range(m), size):
            q = np.sort(p[list(subset)])
            simes = min(1.0, np.min(size * q / np.arange(1, size + 1)))
            for i in subset:
                out[i] = max(out[i], simes)
    return out


def test_hommel_is_the_closed_simes_procedure():
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = rng.beta(0.4, 2, size=rng.integers(1, 9))
        np.testing.assert_allclose(adjust_pvalues(p, "hommel"), _hommel_closed_testing(p),
                                   rtol=1e-12)


@pytest.mark.parametrize("method", CORRECTIONS)
def test_nan_left_out_of_the_family(method):
    # statsmodels/statsmodels#2899: one NaN changes (holm) or poisons (hommel,
    # fdr_bh: all NaN) the others in multipletests; here the family is the
    # non-NaN p-values
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan])
    out = adjust_pvalues(p, method)
    assert np.isnan(out[[1, 4]]).all()
    _, expected, _, _ = multitest.multipletests(p[[0, 2, 3]], method=_STATSMODELS[method])
    np.testing.assert_allclose(out[[0, 2, 3]], expected, rtol=1e-12)


def test_all_nan_stays_nan():
    assert np.isnan(adjust_pvalues([np.nan, np.nan], "hommel")).all()


@pytest.mark.parametrize("method", CORRECTIONS)
def test_adjusted_not_smaller_and_bounded(method):
    p = np.random.default_rng(1).uniform(size=50)
    out = adjust_pvalues(p, method)
    assert np.all(out >= p) and np.all(out <= 1)


def test_every_statsmodels_method_name_is_accepted_or_refused_with_the_closest():
    names = set(multitest.multitest_alias)
    accepted = names & set(CORRECTIONS)
    assert names - accepted <= {"lfdr", "lfdr_sl"}
    assert {"simes-hochberg", "fdr_tsbh", "fdr_tsbky", "fdr_gbs", "sh", "fdr_2sbky"} <= accepted
    for name in names - accepted:
        with pytest.raises(ValueError, match=f"'method' parameter of adjust_pvalues.*{name}.*"
                                             "not adjusted p-values.*'fdr_bh'"):
            adjust_pvalues([0.01, 0.2], name)


@pytest.mark.parametrize("method", ["fdr_tsbh", "fdr_tsbky", "fdr_2sbky"])
@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.25])
@pytest.mark.parametrize("family", list(_families()), ids=lambda p: f"m{p.size}")
def test_two_stage_methods_adjust_at_their_level_as_statsmodels(method, alpha, family):
    _, expected, _, _ = multitest.multipletests(family, alpha=alpha, method=method)
    np.testing.assert_allclose(adjust_pvalues(family, method, alpha=alpha), expected,
                               rtol=1e-12, atol=0)


def test_two_stage_uses_the_first_stage_rejections():
    # m = 4, alpha = .05, BKY: stage one is BH at .05/1.05 = .0476: sorted p
    # .001 .01 .03 .9 -> BH-adjusted .004 .02 .04 .9, r1 = 3 rejections, so
    # m0 = 1 and the adjusted p-values are BH's x (1/4) x 1.05
    p = np.array([0.01, 0.9, 0.001, 0.03])
    np.testing.assert_allclose(adjust_pvalues(p, "fdr_tsbky"),
                               np.array([0.02, 0.9, 0.004, 0.04]) * 0.25 * 1.05, rtol=1e-12)
    # no first-stage rejection: BH's x 1.05 (capped at 1)
    np.testing.assert_allclose(adjust_pvalues([0.5, 0.96], "fdr_tsbky"), [1.0, 1.0])
    np.testing.assert_allclose(adjust_pvalues([0.5, 0.9], "fdr_tsbh"), [0.9, 0.9])


def test_alpha_only_for_the_two_stage_methods():
    with pytest.raises(ValueError, match="'alpha'.*two-stage.*'holm' does not use it"):
        adjust_pvalues([0.01, 0.2], "holm", alpha=0.1)
    with pytest.raises(ValueError, match="'alpha'.*\\(0, 1\\)"):
        adjust_pvalues([0.01, 0.2], "fdr_tsbh", alpha=1.5)
    with pytest.raises(ValueError, match="'alpha'"):
        adjust_pvalues([0.01, 0.2], "fdr_tsbh", alpha=True)


@pytest.mark.parametrize("pvalues, what", [(["0.01", "0.2"], "strings"),
                                           ([True, False], "booleans"),
                                           ([0.01 + 0j, 0.2], "complex"),
                                           (np.array([0.01, "0.2"], dtype=object), "str"),
                                           (np.array([0.01, True], dtype=object), "bool")])
def test_pvalues_that_are_not_real_numbers_are_refused(pvalues, what):
    with pytest.raises(TypeError, match=f"'pvalues' parameter must hold p-values.*{what}"):
        adjust_pvalues(pvalues, "holm")


def test_pvalues_of_object_dtype_holding_numbers_are_read():
    p = np.array([0.01, 0.04, 0.03], dtype=object)
    np.testing.assert_array_equal(adjust_pvalues(p), adjust_pvalues(p.astype(float)))
    # None (a test that could not be computed) is NaN, as before
    np.testing.assert_array_equal(adjust_pvalues([0.01, None, 0.04]),
                                  adjust_pvalues([0.01, np.nan, 0.04]))


def test_bad_input():
    with pytest.raises(ValueError, match="'method' parameter of adjust_pvalues.*sidak-ish"):
        adjust_pvalues([0.1], "sidak-ish")
    with pytest.raises(ValueError, match="'method'"):
        adjust_pvalues([0.1], 3)
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        adjust_pvalues([-0.1, 0.5], "hommel")
    with pytest.raises(ValueError, match="\\[0, 1\\]"):
        adjust_pvalues([0.1, 1.5], "holm")
    with pytest.raises(ValueError, match="1-D"):
        adjust_pvalues([[0.1]], "holm")


@pytest.mark.slow
def test_family_wise_error_under_the_global_null():
    # the methods added in issue 24. m = 10 independent true nulls (uniform
    # p-values), 20 000 seeded families: P(at least one adjusted p <= .05).
    # Exact values: Sidak and Holm-Sidak (same first step) 1 - (1 - a)^m = alpha;
    # Hommel (Simes' test under the global null) alpha; Hochberg and BY at most
    # alpha. 99.9 % binomial band: +- 3.29 sqrt(.05 .95 / 20000) = +- .0051.
    # Measured (about 12 s): sidak .0516, holm-sidak .0516, hommel .0509,
    # hochberg .0506, fdr_by .0162.
    rng = np.random.default_rng(20240)
    reps, m, alpha = 20000, 10, 0.05
    p = rng.uniform(size=(reps, m))
    band = 3.29 * np.sqrt(alpha * (1 - alpha) / reps)
    for method in ("sidak", "holm-sidak", "hommel", "hochberg", "fdr_by"):
        rate = np.mean([adjust_pvalues(row, method).min() <= alpha for row in p])
        if method in ("sidak", "holm-sidak", "hommel"):
            assert abs(rate - alpha) <= band, (method, rate)
        else:
            assert rate <= alpha + band, (method, rate)


@pytest.mark.parametrize("correction", ["fdr_2sbky", "simes-hochberg"])
def test_compare_adjusts_with_statsmodels_names_at_its_level(correction):
    # before: compare refused both names; a two-stage method adjusts at compare's alpha
    from sigtest import PairedPermutation, compare

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 120)
    systems = {f"s{i}": np.where(rng.random(120) < acc, y, 1 - y)
               for i, acc in enumerate((0.6, 0.7, 0.8, 0.9))}
    res = compare(y, systems, metrics="accuracy", correction=correction, alpha=0.1,
                  test=PairedPermutation(n_resamples=199), random_state=0)
    frame = res.to_frame()
    kw = {"alpha": 0.1} if correction == "fdr_2sbky" else {}
    np.testing.assert_allclose(frame["pvalue_adj"],
                               adjust_pvalues(frame["pvalue"].to_numpy(), correction, **kw),
                               rtol=1e-12)
