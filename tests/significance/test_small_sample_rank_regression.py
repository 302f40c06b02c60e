"""Small-sample rules of the bootstrap tests on rank and regression metrics.

Every item of a rank or regression metric is discordant, so the general
rule (N and discordant items) never warned; but BCa (and, less, the
Berg-Kirkpatrick bootstrap) reject a true null too often on the ROC AUC and
average precision with few positives or negatives, and on the squared-error
regression metrics at small N. The limits (``RANK_MIN_CLASS_ITEMS``,
``REGRESSION_MIN_N``) come from benchmarks/bench_small_samples_ranking.py;
the slow tests rerun reduced versions of its cells, their bands written
where they are used.
"""

import warnings

import numpy as np
import pytest

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation, SmallSampleWarning
from sigtest._engine.small_sample import RANK_MIN_CLASS_ITEMS, REGRESSION_MIN_N


def _messages(test, *args, **kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = test.test(*args, **kwargs)
    return res, [str(w.message) for w in rec if issubclass(w.category, SmallSampleWarning)]


def _scorers(seed, n, n_pos):
    """Two equally good binormal scorers, noise correlation .5 (a true null)."""
    rng = np.random.default_rng(seed)
    y = np.zeros(n, dtype=int)
    y[:n_pos] = 1
    z = rng.standard_normal((n, 3))
    return (y, y + (z[:, 0] + z[:, 2]) / np.sqrt(2), y + (z[:, 1] + z[:, 2]) / np.sqrt(2))


def _regression(seed, n):
    """Exchangeable predictions: a shared and an own Gaussian error (a true null)."""
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n)
    c = 0.5 * rng.standard_normal(n)
    return y, y + c + 0.5 * rng.standard_normal(n), y + c + 0.5 * rng.standard_normal(n)


TESTS = {"bca": lambda: BCaInterval(n_resamples=199, random_state=0),
         "bk": lambda: BergKirkpatrickBootstrap(n_resamples=199, random_state=0)}


@pytest.mark.parametrize("kind", ["bca", "bk"])
@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_rank_metric_with_few_positives_warns_naming_metric_and_rarer_class(kind, metric):
    limit = RANK_MIN_CLASS_ITEMS[kind][metric]
    # N and the discordant items far above the general limits
    y, a, b = _scorers(0, max(300, 3 * limit), limit - 1)
    _, msgs = _messages(TESTS[kind](), y, a, b, metric=metric)
    assert len(msgs) == 1, msgs
    assert f"the rarer class has {limit - 1} items < {limit} for {metric!r}" in msgs[0]
    # the quantity at risk: BCa's interval and p-value, BK's p-value
    assert ("BCa's interval and p-value" if kind == "bca" else "the bootstrap p-value") \
        in msgs[0]
    assert "PairedPermutation" in msgs[0]
    # the rarer class may be the negatives
    _, msgs = _messages(TESTS[kind](), 1 - y, a, b, metric=metric)
    assert len(msgs) == 1 and f"has {limit - 1} items" in msgs[0]


@pytest.mark.parametrize("kind", ["bca", "bk"])
@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_rank_metric_at_its_class_limit_does_not_warn(kind, metric):
    limit = RANK_MIN_CLASS_ITEMS[kind][metric]
    y, a, b = _scorers(1, max(300, 3 * limit), limit)
    _, msgs = _messages(TESTS[kind](), y, a, b, metric=metric)
    assert msgs == []


def test_multiclass_auc_counts_the_smallest_class():
    rng = np.random.default_rng(2)
    y = np.r_[np.zeros(150, int), np.ones(150, int), np.full(10, 2)]
    logits = rng.normal(size=(y.size, 3)) + np.eye(3)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    q = np.roll(p, 1, axis=0)
    _, msgs = _messages(TESTS["bk"](), y, p, q, metric="roc_auc_ovr")
    assert len(msgs) == 1 and "has 10 items < 20 for 'roc_auc_ovr'" in msgs[0]


def test_zero_weight_items_do_not_count_for_the_rarer_class():
    y, a, b = _scorers(3, 600, 60)
    w = np.ones(y.size)
    w[:20] = 0.0  # 40 weighted positives left
    _, msgs = _messages(TESTS["bca"](), y, a, b, metric="roc_auc", sample_weight=w)
    assert len(msgs) == 1 and "has 40 items" in msgs[0]


@pytest.mark.parametrize("kind", ["bca", "bk"])
@pytest.mark.parametrize("metric", sorted({m for t in REGRESSION_MIN_N.values() for m in t}))
def test_regression_metric_below_its_n_warns_naming_it(kind, metric):
    limit = REGRESSION_MIN_N[kind].get(metric)
    y, a, b = _regression(4, 60 if limit is None else limit - 1)
    _, msgs = _messages(TESTS[kind](), y, a, b, metric=metric)
    if limit is None:  # this test keeps the general limits on this metric (N = 60: none)
        assert msgs == []
        return
    assert len(msgs) == 1, msgs
    assert f"N = {limit - 1} items < {limit} for {metric!r}" in msgs[0]
    y, a, b = _regression(4, limit)
    assert _messages(TESTS[kind](), y, a, b, metric=metric)[1] == []


def test_clustered_regression_counts_clusters():
    y, a, b = _regression(6, 400)
    groups = np.repeat(np.arange(80), 5)  # 80 clusters: above the general 30, below 150
    _, msgs = _messages(TESTS["bca"](), y, a, b, metric="r2", groups=groups)
    assert any("G = 80 clusters < 150 for 'r2'" in m for m in msgs), msgs


def _rejection_rate(make_test, data, reps, metric, seed0):
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            y, a, b = data(seed0 + r)
            test = make_test().set_params(random_state=r)
            hits += test.test(y, a, b, metric=metric).pvalue <= 0.05
    return hits / reps


@pytest.mark.slow
def test_bca_on_auc_over_rejects_below_the_class_limit_and_holds_at_it():
    # N = 200, true null, two-sided .05, BCa with B = 499 (the benchmark: B = 999,
    # 1,000 data sets: .091 with 10 positives, .056 with 50). 800 data sets: the
    # binomial SE at .05 is .0077, so .05 stays below .066 (2 SE) with 98 % chance
    # and .09 stays above .075 (2 SE of .09: .010): the bands separate.
    bca = lambda: BCaInterval(n_resamples=499, n_jobs=1)  # noqa: E731
    few = _rejection_rate(bca, lambda s: _scorers(s, 200, 10), 800, "roc_auc", 10_000)
    enough = _rejection_rate(bca, lambda s: _scorers(s, 200, 50), 800, "roc_auc", 20_000)
    assert few > 0.075, few
    assert enough < 0.066, enough
    # the permutation test of the ranks holds where BCa does not
    perm = lambda: PairedPermutation(n_resamples=499, n_jobs=1)  # noqa: E731
    held = _rejection_rate(perm, lambda s: _scorers(s, 200, 10), 800, "roc_auc", 10_000)
    assert held < 0.066, held


@pytest.mark.slow
def test_bca_on_rmse_over_rejects_at_small_n():
    # exchangeable predictions, N = 30: BCa .089 in the benchmark (1,000 data sets,
    # B = 999; .060 at N = 200, the limit: between them the cells are too close to
    # .06 for a short simulation to separate). 800 data sets at B = 499: above .066
    # separates .089 (2 SE below it: .069) from .05.
    bca = lambda: BCaInterval(n_resamples=499, n_jobs=1)  # noqa: E731
    rate = _rejection_rate(bca, lambda s: _regression(s, 30), 800,
                           "root_mean_squared_error", 30_000)
    assert rate > 0.066, rate
