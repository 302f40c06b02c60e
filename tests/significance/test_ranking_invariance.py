"""Tests on rank metrics answer a question about the rankings.

A rank metric (ROC AUC, average precision, any ``Metric`` with a
``ranking``) is unchanged by a strictly increasing transform of a system's
scores, so every registered test that accepts one must give the same
p-value and interval after such a transform of either system's scores (or
refuse the metric, naming tests that accept it). The paired permutation
used to swap the raw scores item by item, so its p-value depended on the
scales of the two systems; it now swaps within-system normalised ranks.
"""

import warnings

import numpy as np
import pytest

from sigtest import PairedPermutation, get_test, get_test_names
from sigtest._engine import prepare_paired
from sigtest._engine.rank_inputs import average_ranks, ranked_pair_of_ranks
from sigtest.metrics import get_metric, register_metric, unregister_metric
from sigtest.metrics._ranking import roc_auc_ranking, roc_auc_score


def _logit(p):
    return np.log(p) - np.log1p(-p)


#: strictly increasing transforms of probabilities in (0, 1)
TRANSFORMS = {
    "rank": lambda p: average_ranks(p),
    "power": lambda p: p ** 4,
    "logit": _logit,
}


def _data(seed, n=80, n_pos=25):
    """Binary labels, two systems' probabilities (rounded: ties within each)."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    y[:n_pos] = 1
    z = rng.standard_normal((n, 3))
    a = 1.0 * y + (z[:, 0] + z[:, 2]) / np.sqrt(2)
    b = 1.4 * y + (z[:, 1] + z[:, 2]) / np.sqrt(2)
    prob = lambda s: np.round(1.0 / (1.0 + np.exp(-s)), 2).clip(0.01, 0.99)  # noqa: E731
    return y, prob(a), prob(b)


@pytest.fixture(scope="module")
def user_rank_metric():
    """A user's metric with a ``ranking``: the binary ROC AUC under another name."""
    name = "user_ranked_auc"
    register_metric(name, roc_auc_score, response_method="predict_proba",
                    input_type="labels_proba", ranking=roc_auc_ranking, overwrite=True)
    yield name
    unregister_metric(name)


def _configured(name):
    test = get_test(name)
    params = test.get_params()
    if "n_resamples" in params:
        test.set_params(n_resamples=199)
    if "random_state" in params:
        test.set_params(random_state=3)
    if "n_jobs" in params:
        test.set_params(n_jobs=1)
    return test


def _outcome(test, y, a, b, metric):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-sample and undefined-p warnings
        res = test.test(y, a, b, metric=metric)
    ci = res.confidence_interval
    return res.pvalue, (np.nan, np.nan) if ci is None else (ci.low, ci.high)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "user"])
@pytest.mark.parametrize("name", get_test_names())
def test_every_test_is_invariant_to_increasing_transforms_of_rank_metric_scores(
        name, metric, user_rank_metric):
    metric = user_rank_metric if metric == "user" else metric
    y, a, b = _data(0)
    test = _configured(name)
    try:
        base = _outcome(test, y, a, b, metric)
    except ValueError as exc:
        # a test that refuses a rank metric names tests that accept it
        text = str(exc)
        assert any(alt in text for alt in ("PairedPermutation", "BCaInterval", "DeLong",
                                           "Bootstrap")), text
        return
    for tname, f in TRANSFORMS.items():
        for which in ("a", "b", "both"):
            ta = f(a) if which in ("a", "both") else a
            tb = f(b) if which in ("b", "both") else b
            got = _outcome(test, y, ta, tb, metric)
            np.testing.assert_allclose(got[0], base[0], rtol=1e-12, atol=0,
                                       err_msg=f"{name} p, {tname} of {which}")
            np.testing.assert_allclose(got[1], base[1], rtol=1e-12, atol=1e-15,
                                       err_msg=f"{name} interval, {tname} of {which}")


def test_permutation_of_auc_no_longer_depends_on_the_scale_of_the_scores():
    # the same AUCs, B's probabilities against their fourth powers: the raw-score
    # permutation gave p = 0.363 and 0.451 here (each system's AUC unchanged)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    a = 1.0 / (1.0 + np.exp(-rng.normal(y * 1.0)))
    b = 1.0 / (1.0 + np.exp(-rng.normal(y * 1.2)))
    test = PairedPermutation(n_resamples=999, random_state=0)
    p = test.test(y, a, b, metric="roc_auc").pvalue
    assert test.test(y, a, b ** 4, metric="roc_auc").pvalue == p


def _naive_auc_rows(y, scores):
    """Mann-Whitney AUC of every row of ``scores`` (ties 1/2), from scipy's average ranks."""
    from scipy.stats import rankdata

    ranks = rankdata(scores, axis=1)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    return (ranks[:, y == 1].sum(axis=1) - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def test_permutation_of_ranks_matches_a_naive_permutation_of_ranks():
    # the swapped quantities are the normalised ranks: swapping rank(a)/N and
    # rank(b)/N item by item in plain NumPy and scoring each mixed system gives
    # the same distribution (seeded Monte Carlo of both: compare the p-values)
    from scipy.stats import rankdata

    y, a, b = _data(1, n=60, n_pos=20)
    ra, rb = rankdata(a) / a.size, rankdata(b) / b.size
    np.testing.assert_array_equal(average_ranks(a), ra)
    B = 4000
    swap = np.random.default_rng(7).random((B, a.size)) < 0.5
    obs = abs(_naive_auc_rows(y, b[None]) - _naive_auc_rows(y, a[None]))[0]
    null = np.abs(_naive_auc_rows(y, np.where(swap, ra, rb))
                  - _naive_auc_rows(y, np.where(swap, rb, ra)))
    naive = (np.count_nonzero(null >= obs - 1e-12) + 1) / (B + 1)
    got = PairedPermutation(n_resamples=B, random_state=0).test(y, a, b,
                                                                 metric="roc_auc").pvalue
    # two Monte Carlo estimates of one p (about .1-.3 here): binomial SE <= .0075
    # each, so 5 SE of their difference is about .05
    assert abs(got - naive) < 0.05, (got, naive)


@pytest.mark.parametrize("metric", ["roc_auc_ovr", "roc_auc_ovo_weighted"])
def test_multiclass_auc_permutation_swaps_ranks_within_each_component(metric):
    rng = np.random.default_rng(2)
    n = 90
    y = rng.integers(0, 3, n)

    def proba(strength):
        z = rng.normal(size=(n, 3)) + strength * np.eye(3)[y]
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    a, b = proba(1.0), proba(1.3)
    paired = prepare_paired(y, a, b, get_metric(metric))
    rp = ranked_pair_of_ranks(paired)
    # every component's values are the average ranks of that component's scores
    for s, scores in enumerate((a, b)):
        for c in range(rp.starts.shape[0] - 1):
            lo, hi = rp.starts[c], rp.starts[c + 1]
            vals = rp.values[s, lo:hi]
            assert np.all(np.diff(vals) <= 0)  # still sorted descending
            assert vals.min() > 0 and vals.max() == 1.0
            assert np.isclose(vals.sum(), (hi - lo + 1) / 2.0)  # ranks 1..n over n
    res = PairedPermutation(n_resamples=499, random_state=0).test(y, a, b, metric=metric)
    assert 0 < res.pvalue <= 1
    # each system's score is its own (the ranks keep the order and the ties)
    m = get_metric(metric)
    assert res.score_a == pytest.approx(m.score_func(y, a, **m.kwargs))
