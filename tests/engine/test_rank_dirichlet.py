"""The Bayesian bootstrap of rank metrics: Dirichlet weights drawn in the kernel.

Reference twin: the documented stream rebuilt in NumPy (word ``t + 1`` of
draw ``b``'s SplitMix64 stream -> ``-log((x >> 11) + 1/2) 2^-53``, normalised
within each stratum), mapped to the items, and scikit-learn's weighted
``roc_auc_score`` / ``average_precision_score`` on the unsorted data.
"""

import warnings

import numba
import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from sigtest._engine import prepare_paired
from sigtest._engine.bayesian import dirichlet_scores, posterior_keys
from sigtest._engine.rank_dirichlet import rank_dirichlet_scores, unit_draw_order
from sigtest._engine.rank_metrics import ranked_pair
from sigtest._engine.rng import GOLDEN, splitmix64

SK = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score}


def _exponentials(keys, n):
    """``E[b, t]``: the ``t``-th exponential of draw ``b`` (the documented stream)."""
    t = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = splitmix64(keys[:, None] + t[None, :] * GOLDEN)
    return -np.log(((words >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0 ** -53)


def _reference_unit_weights(rp, keys):
    """Weights of every unit (relabelled item, or cluster) of each draw."""
    units, bounds = unit_draw_order(rp)
    E = _exponentials(keys, units.shape[0])
    W = np.empty_like(E)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        part = E[:, lo:hi]
        W[:, units[lo:hi]] = part * ((hi - lo) / part.sum(axis=1, keepdims=True))
    return W


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
    W = _reference_unit_weights(rp, keys)
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
    W = _reference_unit_weights(rp, posterior_keys(0, 10))
    for h in range(3):
        in_h = strata[np.argsort(rp.relabel)] == h  # stratum of every relabelled item
        assert np.allclose(W[:, in_h].sum(axis=1), in_h.sum(), rtol=0, atol=1e-9)


def test_exponentials_follow_the_exponential_law():
    # 20,000 draws: the KS test at level 1e-3 rejects a correct sampler once in 1,000 runs;
    # a wrong scale (Exp(2)) or uniform bits read wrongly gives p < 1e-30 at this size
    E = _exponentials(posterior_keys(11, 20), 1000).ravel()
    assert stats.kstest(E, "expon").pvalue > 1e-3
    assert E.min() > 0.0


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
