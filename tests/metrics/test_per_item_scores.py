"""Per-item scores (issue 22 s4): the metric "mean" with y_true=None.

References: accuracy on labels built to match (y_true all 1, y_pred = the
0/1 score), which takes the same cell path, so p-values and intervals are
equal; scipy's ``ttest_rel``, ``wilcoxon`` and ``binomtest`` on graded
scores; a naive enumeration of the exact permutation test; scipy's paired
BCa bootstrap (Monte Carlo tolerance).
"""

import itertools
import warnings

import numpy as np
import pytest
import scipy.stats as st

import sigtest
from sigtest import get_test
from sigtest.metrics import get_metric
from sigtest.metrics._scores import mean_score

N = 90


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(0)
    a = (rng.random(N) < 0.55).astype(float)
    b = (rng.random(N) < 0.72).astype(float)
    return a, b


@pytest.fixture(scope="module")
def graded():
    """Judge scores in [0, 10] with one decimal (ties and zero differences occur)."""
    rng = np.random.default_rng(1)
    a = np.round(rng.uniform(0, 10, 40), 1)
    b = np.round(np.clip(a + rng.normal(0.6, 1.5, 40), 0, 10), 1)
    b[:3] = a[:3]  # zero differences
    return a, b


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _test(name, **params):
    test = get_test(name)
    own = test.get_params(deep=False)
    settings = {"n_resamples": 999, "random_state": 5, **params}
    return test.set_params(**{k: v for k, v in settings.items() if k in own})


TESTS = ["permutation", "berg_kirkpatrick", "bca", "bootstrap", "mcnemar", "sign", "wilcoxon",
         "paired_t", "bayesian_bootstrap"]


def test_mean_metric_is_registered_decomposable_and_cellwise():
    m = get_metric("mean")
    assert (m.input_type, m.decomposable, m.cellwise, m.greater_is_better) == (
        "scores", True, True, True)
    rng = np.random.default_rng(2)
    s, w = rng.uniform(0, 10, 30), rng.integers(0, 4, 30).astype(float)
    assert mean_score(None, s) == pytest.approx(np.mean(s), abs=1e-12)
    assert mean_score(None, s, sample_weight=w) == pytest.approx(np.average(s, weights=w),
                                                                 abs=1e-12)
    assert m(None, list(s)) == pytest.approx(np.mean(s), abs=1e-12)
    # the registry contract: aggregate of the summed statistics is the score
    assert m.aggregate(m.statistics(None, s).sum(0)) == pytest.approx(np.mean(s), abs=1e-12)
    assert m.aggregate(w @ m.statistics(None, s)) == pytest.approx(
        np.mean(np.repeat(s, w.astype(int))), abs=1e-12)


@pytest.mark.parametrize("name", TESTS)
def test_binary_scores_equal_accuracy_on_matching_labels(binary, name):
    a, b = binary
    ones = np.ones(N, dtype=int)
    got = _quiet(_test(name).test, None, a, b, metric="mean")
    ref = _quiet(_test(name).test, ones, a.astype(int), b.astype(int), metric="accuracy")
    assert (got.score_a, got.score_b) == (ref.score_a, ref.score_b) == (a.mean(), b.mean())
    if ref.prob_better is not None:  # the Bayesian bootstrap: posterior probabilities
        assert ref.prob_better > 0.5 and got.prob_better == ref.prob_better
    else:
        assert 0 < ref.pvalue < 1 and got.pvalue == ref.pvalue
    np.testing.assert_array_equal(got.confidence_interval, ref.confidence_interval)


@pytest.mark.parametrize("name", ["permutation", "bca", "sign", "paired_t"])
def test_binary_scores_equal_accuracy_with_clusters(binary, name):
    a, b = binary
    groups = np.repeat(np.arange(N // 3), 3)  # three samples per question
    kw = {"method": "chi2"} if name == "mcnemar" else {}
    got = _quiet(_test(name, **kw).test, None, a, b, metric="mean", groups=groups)
    ref = _quiet(_test(name, **kw).test, np.ones(N, int), a.astype(int), b.astype(int),
                 metric="accuracy", groups=groups)
    assert got.pvalue == ref.pvalue and got.n_groups == N // 3


def test_clustered_mcnemar_on_binary_scores_equals_accuracy(binary):
    a, b = binary
    groups = np.repeat(np.arange(N // 3), 3)
    test = sigtest.McNemar(method="chi2")
    got = _quiet(test.test, None, a, b, metric="mean", groups=groups)
    ref = _quiet(test.test, np.ones(N, int), a.astype(int), b.astype(int), metric="accuracy",
                 groups=groups)
    assert got.pvalue == ref.pvalue


def test_graded_scores_classical_tests_match_scipy(graded):
    a, b = graded
    d = b - a
    t = sigtest.PairedTTest().test(None, a, b, metric="mean")
    assert t.pvalue == pytest.approx(st.ttest_rel(b, a).pvalue, rel=1e-12)
    w = _quiet(sigtest.WilcoxonSignedRank().test, None, a, b, metric="mean")
    assert w.pvalue == pytest.approx(st.wilcoxon(b, a).pvalue, rel=1e-12)
    s = sigtest.SignTest().test(None, a, b, metric="mean")
    ref = st.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
    assert s.pvalue == pytest.approx(ref, rel=1e-12)
    assert t.delta == pytest.approx(d.mean(), abs=1e-12)


def test_graded_scores_exact_permutation_matches_naive_enumeration(graded):
    a, b = graded
    a, b = a[:14], b[:14]  # 2**14 sign patterns: enumerated by both
    d = b - a
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=d.size)))
    null = signs @ d / d.size
    obs = d.mean()
    tol = 1e-9 * max(1.0, abs(obs))
    naive = np.mean(np.abs(null) >= abs(obs) - tol)
    got = sigtest.PairedPermutation(n_resamples=9999, random_state=0).test(
        None, a, b, metric="mean")
    assert got.pvalue == pytest.approx(naive, rel=1e-12)


def test_graded_scores_bca_interval_close_to_scipy_bootstrap(graded):
    a, b = graded
    got = sigtest.BCaInterval(n_resamples=20_000, random_state=0).test(
        None, a, b, metric="mean")
    ref = st.bootstrap((a, b), lambda x, y: np.mean(y - x), paired=True, n_resamples=20_000,
                       method="BCa", random_state=0).confidence_interval
    # two independent Monte Carlo runs of B = 20,000: the 2.5 % / 97.5 % quantiles of
    # the bootstrap distribution (sd ~0.2 here) differ by a few 0.01 at most
    assert got.confidence_interval.low == pytest.approx(ref.low, abs=0.04)
    assert got.confidence_interval.high == pytest.approx(ref.high, abs=0.04)


def test_score_of_one_system_equals_accuracy(binary):
    a, _ = binary
    got = sigtest.score(None, a, metric="mean", n_resamples=999, random_state=0)
    ref = sigtest.score(np.ones(N, int), a.astype(int), "accuracy", n_resamples=999,
                        random_state=0)
    assert got.estimate == ref.estimate and got.confidence_interval == ref.confidence_interval


def test_compare_equals_accuracy_and_is_independent_of_system_order(binary):
    a, b = binary
    c = np.roll(b, 7)
    preds = {"m1": a, "m2": b, "m3": c}
    kw = dict(test=("permutation", "bca"), random_state=0)
    got = _quiet(sigtest.compare, None, preds, metrics="mean", **kw).to_frame()
    ref = _quiet(sigtest.compare, np.ones(N, int), {k: v.astype(int) for k, v in preds.items()},
                 metrics="accuracy", **kw).to_frame()
    cols = ["system_a", "system_b", "score_a", "score_b", "pvalue", "ci_low", "ci_high"]
    assert got[cols].equals(ref[cols])
    rev = _quiet(sigtest.compare, None, dict(reversed(list(preds.items()))), metrics="mean",
                 **kw).to_frame()
    key = lambda f: {frozenset((r.system_a, r.system_b)): r.pvalue for r in f.itertuples()}
    assert key(rev) == key(got)


def test_compare_with_groups_runs_and_datasets(binary):
    a, b = binary
    groups = np.repeat(np.arange(N // 3), 3)
    preds = {"m1": a, "m2": b}
    got = _quiet(sigtest.compare, None, preds, metrics="mean", groups=groups, random_state=0)
    ref = _quiet(sigtest.compare, np.ones(N, int), {k: v.astype(int) for k, v in preds.items()},
                 metrics="accuracy", groups=groups, random_state=0)
    assert got.to_frame()["pvalue"].tolist() == ref.to_frame()["pvalue"].tolist()
    assert got.n_groups == N // 3
    # several runs of each system: averaged per item (runs="average")
    runs = {"m1": [a, np.roll(a, 1)], "m2": [b, np.roll(b, 2)]}
    res = _quiet(sigtest.compare, None, runs, metrics="mean", random_state=0).to_frame()
    assert res["score_a"].iloc[0] == pytest.approx(a.mean())
    # compare_datasets: (None, systems, groups) per dataset
    data = {f"d{k}": (None, {"m1": np.roll(a, k), "m2": np.roll(b, k), "m3": np.roll(a, 2 * k)},
                      groups) for k in range(3)}
    cmp = _quiet(sigtest.compare_datasets, data, metric="mean", random_state=0)
    assert cmp.comparisons["d1"].n_groups == N // 3
    assert list(cmp.average_ranks.index) == ["m1", "m2", "m3"]


def test_ranks_of_scores(binary):
    a, b = binary
    res = _quiet(sigtest.compare, None, {"m1": a, "m2": b}, metrics="mean", random_state=0)
    ranks = res.ranks(n_resamples=200)
    assert ranks.set_index("system").loc["m2", "rank"] == 1


# --------------------------------------------------------------------- bad input
def test_y_true_must_be_none_for_mean_and_given_otherwise(binary):
    a, b = binary
    test = sigtest.PairedPermutation(n_resamples=99)
    with pytest.raises(ValueError, match="'y_true' parameter must be None"):
        test.test(np.ones(N), a, b, metric="mean")
    with pytest.raises(ValueError, match="'y_true' parameter is None.*'accuracy'"):
        test.test(None, a, b, metric="accuracy")
    with pytest.raises(ValueError, match="'y_true' parameter must be None"):
        sigtest.compare(np.ones(N), {"x": a, "y": b}, metrics="mean")
    with pytest.raises(ValueError, match="'y_true' parameter is None.*'f1_macro'"):
        sigtest.compare(None, {"x": a, "y": b}, metrics=("mean", "f1_macro"))
    with pytest.raises(ValueError, match="'y_true' parameter is None"):
        sigtest.score(None, a, "accuracy")
    with pytest.raises(ValueError, match="'y_true' parameter of mean_score must be None"):
        mean_score([1, 1], [1, 0])


@pytest.mark.parametrize("bad, name, match", [
    (np.array([0.5, np.nan]), "y_pred_b", "NaN or infinity"),
    (np.array([0.5, np.inf]), "y_pred_b", "NaN or infinity"),
    (np.array(["a", "b"]), "y_pred_b", "numeric"),
    (np.zeros((2, 2)), "y_pred_b", "1-D"),
    (np.zeros(3), "y_pred_b", "3 items but 'y_pred_a' has 2"),
])
def test_bad_scores_name_the_argument(bad, name, match):
    with pytest.raises(ValueError, match=f"'{name}'.*{match}|{match}.*'{name}'"):
        sigtest.PairedPermutation().test(None, np.array([1.0, 0.0]), bad, metric="mean")


def test_bad_scores_in_compare_name_the_system(binary):
    a, b = binary
    with pytest.raises(ValueError, match="System 'y'.*NaN"):
        sigtest.compare(None, {"x": a, "y": np.where(b > 0, np.nan, 0.0)}, metrics="mean")
    with pytest.raises(ValueError, match="System 'y'.*every system must score the same"):
        sigtest.compare(None, {"x": a, "y": b[:-1]}, metrics="mean")


def test_labels_keyword_is_refused_for_scores(binary):
    a, b = binary
    with pytest.raises(ValueError, match="'labels' parameter has no meaning"):
        sigtest.PairedPermutation().test(None, a, b, metric="mean", labels=[0, 1])
    with pytest.raises(ValueError, match="'labels' parameter has no meaning"):
        sigtest.compare(None, {"x": a, "y": b}, metrics="mean", labels=[0, 1])
    with pytest.raises(ValueError, match="'pos_label' parameter is only used"):
        sigtest.compare(None, {"x": a, "y": b}, metrics="mean", pos_label=1)


@pytest.mark.parametrize("side", ["y_pred_a", "y_pred_b"])
def test_mcnemar_refuses_graded_scores_naming_the_argument(binary, side):
    a, b = binary
    graded = {"y_pred_a": (a * 0.5, b), "y_pred_b": (a, b * 0.5)}[side]
    with pytest.raises(ValueError, match=f"McNemar needs per-item scores 0 or 1.*'{side}'"):
        sigtest.McNemar().test(None, *graded, metric="mean")


def test_cells_only_when_they_pay(binary, graded):
    """0/1 scores: at most 4 cells (accuracy's path); graded scores: one row per item."""
    from sigtest._engine import prepare_paired

    a, b = binary
    assert prepare_paired(None, a, b, "mean").counts.shape[0] <= 4
    ga, gb = graded  # 40 items, ~35 distinct pairs of ratings: more than 40 / 20 cells
    assert prepare_paired(None, ga, gb, "mean").counts is None
    assert prepare_paired(None, ga, gb, "mean", compress=True).counts is not None
    # both paths give the same exact permutation p-value
    test = sigtest.PairedPermutation(n_resamples=999, random_state=0)
    cells = test.test_paired(prepare_paired(None, ga[:12], gb[:12], "mean", compress=True))
    items = test.test_paired(prepare_paired(None, ga[:12], gb[:12], "mean"))
    assert cells.pvalue == pytest.approx(items.pvalue, rel=1e-12)
