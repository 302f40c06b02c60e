"""The Bayesian bootstrap of rank metrics: Dirichlet weights drawn in the kernel.

Reference: the documented stream rebuilt draw by draw in Python
(``rank_dirichlet.dirichlet_unit_weights``), mapped to the items, and
scikit-learn's weighted ``roc_auc_score`` / ``average_precision_score`` on the
unsorted data. The ziggurat sampler is checked against the exponential law.
"""

import warnings

import numba
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from sigtest._engine import prepare_paired
from sigtest._engine.bayesian import dirichlet_scores, posterior_keys
from sigtest._engine.rank_dirichlet import (
    _exponential,
    dirichlet_unit_weights,
    rank_dirichlet_scores,
)
from sigtest._engine.rank_metrics import ranked_pair

SK = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score}


def _kernel_exponentials(key, n):
    """``n`` exponentials of the kernel's sampler from one stream (called from Python)."""
    out = np.empty(n)
    z = np.uint64(key)
    for t in range(n):
        out[t], z = _exponential(z)
        z = np.uint64(z)  # numba returns a Python int, which it would type as int64
    return out


def _close(x, y, tol=1e-12):
    x, y = np.asarray(x), np.asarray(y)
    return np.all((np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= tol))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 60
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 1)  # ties within and across systems
    b = np.round(rng.normal(size=n) + 2 * y, 1)
    w = rng.integers(1, 4, n).astype(float)
    groups = rng.integers(0, 25, n)
    strata = rng.integers(0, 3, n)
    return y, a, b, w, groups, strata


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("case", ["plain", "weights", "groups", "strata", "groups_strata"])
def test_kernel_equals_sklearn_on_the_documented_weights(data, metric, case):
    y, a, b, w, groups, strata = data
    kw = {}
    if case == "weights":
        kw["sample_weight"] = w
    if case in ("groups", "groups_strata"):
        kw["groups"] = groups
    if case in ("strata", "groups_strata"):
        # strata constant within clusters when both are given
        kw["strata"] = groups % 3 if "groups" in kw else strata
    paired = prepare_paired(y, a, b, metric, **kw)
    rp = ranked_pair(paired)
    keys = posterior_keys(5, 25)
    scores = rank_dirichlet_scores(rp, keys, parallel=False)
    W = dirichlet_unit_weights(rp, keys)
    unit = rp.relabel if "groups" not in kw else np.asarray(paired.item_groups)
    item_w = np.ones(y.size) if "sample_weight" not in kw else w
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = [[SK[metric](y, s, sample_weight=W[r, unit] * item_w) for s in (a, b)]
               for r in range(keys.shape[0])]
    assert _close(scores, ref)
    # the engine's Bayesian bootstrap of a rank metric is this kernel on posterior_keys
    assert np.array_equal(dirichlet_scores(paired, 25, seed=5), scores)


def test_weights_are_dirichlet_scaled_within_each_stratum(data):
    y, a, b, _, _, strata = data
    rp = ranked_pair(prepare_paired(y, a, b, "roc_auc", strata=strata))
    W = dirichlet_unit_weights(rp, posterior_keys(0, 10))
    for h in range(3):
        in_h = strata[np.argsort(rp.relabel)] == h  # stratum of every relabelled item
        assert np.allclose(W[:, in_h].sum(axis=1), in_h.sum(), rtol=0, atol=1e-9)


def test_exponentials_follow_the_exponential_law():
    # 200,000 draws of the ziggurat: the KS test at level 1e-3 rejects a correct sampler
    # once in 1,000 runs, while a wrong layer table shifts the CDF by ~1/256 (KS power ~1).
    E = np.concatenate([_kernel_exponentials(k, 20_000) for k in posterior_keys(11, 10)])
    assert stats.kstest(E, "expon").pvalue > 1e-3
    assert E.min() >= 0.0
    # the tail beyond r = 7.697 (base layer, 1/256 of the draws): P = exp(-r) = 4.5e-4,
    # 90 expected; a Poisson count outside 90 +- 4.5 sd (43) has probability < 1e-5
    tail = int((E > 7.69711747013104972).sum())
    assert abs(tail - 200_000 * np.exp(-7.69711747013104972)) < 43
    # beyond 10: P = 4.5e-5, 9 expected; the tail is there at all (memorylessness)
    assert (E > 10.0).sum() > 0


def test_kernel_draws_equal_the_twin():
    rp = ranked_pair(prepare_paired([0, 1, 0, 1, 1, 0, 1, 0], np.arange(8.0),
                                    np.arange(8.0)[::-1], "roc_auc"))
    keys = posterior_keys(4, 300)
    twin = dirichlet_unit_weights(rp, keys)
    kernel = np.array([_kernel_exponentials(k, 8) for k in keys])
    kernel *= 8.0 / kernel.sum(axis=1, keepdims=True)
    assert np.allclose(twin, kernel, rtol=1e-14, atol=0)


def test_scores_do_not_depend_on_threads_or_parts(data):
    y, a, b, w, groups, _ = data
    rp = ranked_pair(prepare_paired(y, a, b, "roc_auc", groups=groups, sample_weight=w))
    keys = posterior_keys(1, 300)
    serial = rank_dirichlet_scores(rp, keys, parallel=False)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        threaded = rank_dirichlet_scores(rp, keys, parallel=True)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(serial, threaded)
    assert np.array_equal(rank_dirichlet_scores(rp, keys[100:200], parallel=False),
                          serial[100:200])


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("clustered", [False, True])
def test_posterior_spread_matches_the_bootstrap(metric, clustered):
    # The Bayesian and the ordinary bootstrap of a smooth statistic agree to first order
    # (Rubin 1981; Lo 1987): same centre, same spread. With B = 4000 draws each, the
    # relative Monte Carlo error of an sd is 1/sqrt(2B) = 1.1 %, of the ratio of two
    # 1.6 %: the 8 % band is 5 of those (finite-N differences are O(1/N), here < 0.1 %).
    from sigtest._engine.rank_metrics import rank_bootstrap_scores

    rng = np.random.default_rng(8)
    n = 3000
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 2)
    b = np.round(rng.normal(size=n) + 1.3 * y, 2)
    kw = {"groups": np.arange(n) // 3} if clustered else {}
    paired = prepare_paired(y, a, b, metric, **kw)
    post = dirichlet_scores(paired, 4000, seed=2)
    boot = rank_bootstrap_scores(paired, 4000, seed=3)
    d_post, d_boot = post[:, 1] - post[:, 0], boot[:, 1] - boot[:, 0]
    assert abs(d_post.std() / d_boot.std() - 1.0) < 0.08
    # centres: both near the observed difference, within 5 Monte Carlo sd of the mean
    observed = SK[metric](y, b) - SK[metric](y, a)
    assert abs(d_post.mean() - observed) < 5 * d_boot.std() / np.sqrt(4000)


def test_dirichlet_kernel_equals_the_value_pass_on_its_weights(data):
    """The whole kernel against its weights (the Python twin's stream, mapped to the
    relabelled items) passed to ``rank_metrics._value``: equal up to the twin's last bits."""
    from sigtest._engine.rank_metrics import _value

    y, a, b, *_ = data
    for metric in ("roc_auc", "average_precision"):
        rp = ranked_pair(prepare_paired(y, a, b, metric))
        keys = posterior_keys(4, 12)
        got = rank_dirichlet_scores(rp, keys, parallel=False)
        W = dirichlet_unit_weights(rp, keys)  # columns: relabelled items (draw order)
        for r in range(keys.shape[0]):
            for s in range(2):
                ref = _value(rp.kind, rp.items[s], rp.positive_weight[s], rp.ties[s],
                             rp.starts, rp.unit, rp.weighting, np.ascontiguousarray(W[r]),
                             np.zeros((3, rp.n_units)))
                assert _close(got[r, s], ref, 1e-13), (metric, r, s)
