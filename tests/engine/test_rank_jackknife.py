"""Closed-form jackknife of the rank metrics (``sigtest._engine.rank_jackknife``).

The leave-one-out values of the multiclass ROC AUCs (one-vs-rest, one-vs-one,
``macro`` and ``weighted``) and of average precision (binary, one-vs-rest
``macro`` and ``weighted``) come from per-component closed forms. They must
equal, to 1e-12 relative, the path they replace: one pass of
``rank_weighted_scores`` over the sorted orders per left-out unit
(``_jackknife_ranked``, which equals scikit-learn), and a naive twin that
calls scikit-learn on the data without each item or cluster.
"""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.preprocessing import label_binarize

from sigtest._engine import prepare_paired
from sigtest._engine.rank_jackknife import AP_MAX_DISTINCT_WEIGHTS, ranked_jackknife
from sigtest._engine.resampling.jackknife import _jackknife_ranked, jackknife_values

RTOL = 1e-12

# name -> (metric, params); "ap_*" are average precision with scikit-learn's average
NAMES = {
    "roc_auc_ovr": ("roc_auc_ovr", {}),
    "roc_auc_ovr_weighted": ("roc_auc_ovr_weighted", {}),
    "roc_auc_ovo": ("roc_auc_ovo", {}),
    "roc_auc_ovo_weighted": ("roc_auc_ovo_weighted", {}),
    "ap_binary": ("average_precision", {}),
    "ap_macro": ("average_precision", {"average": "macro"}),
    "ap_weighted": ("average_precision", {"average": "weighted"}),
}
MULTI = [name for name in NAMES if name != "ap_binary"]


def _close(x, ref):
    """Equal to ``RTOL`` relative (``nan`` where ``ref`` is ``nan``)."""
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    assert x.shape == ref.shape
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(x), nan), (np.flatnonzero(np.isnan(x) != nan))
    bad = np.abs(x[~nan] - ref[~nan]) > RTOL * np.abs(ref[~nan])
    assert not bad.any(), (np.flatnonzero(bad), x[~nan][bad], ref[~nan][bad])


def _data(name, n, seed, ties=True, K=3):
    rng = np.random.default_rng(seed)
    if name == "ap_binary":
        y = rng.integers(0, 2, n)
        a = rng.normal(size=n) + y
        b = rng.normal(size=n) + 2 * y
        return y, (np.round(a, 1), np.round(b, 1)) if ties else (a, b)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    if ties:  # probabilities on a grid of eighths: many ties within and across classes
        a = rng.multinomial(8, np.ones(K) / K, size=n) / 8.0
    else:
        a = rng.dirichlet(np.ones(K), size=n)
    b = 0.6 * a + 0.4 * np.eye(K)[y]
    return y, (a, b)


def _weights(kind, n, seed):
    rng = np.random.default_rng(seed + 100)
    if kind == "int":
        return rng.integers(1, 4, n).astype(float)
    if kind == "few":  # a few distinct non-integer weights, one of them 0
        return rng.choice([0.0, 0.3, 0.7, 1.9], n)
    return rng.uniform(0.1, 2.0, n)  # continuous: every weight distinct


def _paired(name, y, a, b, **kwargs):
    metric, params = NAMES[name]
    return prepare_paired(y, a, b, metric, **params, **kwargs)


def _check_against_one_pass(paired):
    closed = jackknife_values(paired)
    ranked = _jackknife_ranked(paired)
    _close(closed[0], ranked[0])
    _close(closed[1], ranked[1])
    assert np.array_equal(closed[2], ranked[2])
    return closed


# --------------------------------------------------------------------------
# against the one-pass path (rank_weighted_scores per left-out unit)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NAMES))
@pytest.mark.parametrize("n, ties, seed", [(37, True, 0), (101, True, 1), (64, False, 2)])
@pytest.mark.parametrize("design", ["items", "int", "few", "clusters", "weighted clusters"])
def test_closed_form_equals_one_pass_per_unit(name, n, ties, seed, design):
    if "ovo" in name and design in ("int", "few", "weighted clusters"):
        pytest.skip("one-vs-one takes no sample_weight (as scikit-learn)")
    y, (a, b) = _data(name, n, seed, ties)
    w = None if design in ("items", "clusters") else _weights(
        "int" if design == "weighted clusters" else design, n, seed)
    groups = np.arange(n) % 7 if "clusters" in design else None
    paired = _paired(name, y, a, b, sample_weight=w, groups=groups)
    if name.startswith("ap") and groups is not None:  # no closed form: the one-pass path
        ra, _ = paired.rankings
        assert ranked_jackknife(ra, w, paired.item_groups, paired.n_groups) is None
    _check_against_one_pass(paired)


@pytest.mark.parametrize("name", MULTI)
def test_four_classes_and_continuous_weights(name):
    y, (a, b) = _data(name, 83, 5, ties=False, K=4)
    w = None if "ovo" in name else _weights("cont", 83, 5)
    paired = _paired(name, y, a, b, sample_weight=w)
    ra, _ = paired.rankings
    closed = ranked_jackknife(ra, w)
    if name.startswith("ap"):  # 83 distinct weights: the one-pass path
        assert (closed is None) == (w is not None)
    _check_against_one_pass(paired)


def test_average_precision_micro_keeps_the_one_pass_path():
    y, (a, b) = _data("ap_macro", 40, 3)
    paired = prepare_paired(y, a, b, "average_precision", average="micro")
    assert ranked_jackknife(paired.rankings[0]) is None
    _check_against_one_pass(paired)


def test_distinct_weight_limit():
    y, (a, b) = _data("ap_binary", 200, 4)
    levels = np.linspace(0.5, 2.0, AP_MAX_DISTINCT_WEIGHTS + 1)
    at_limit = levels[np.arange(200) % AP_MAX_DISTINCT_WEIGHTS]
    over = levels[np.arange(200) % (AP_MAX_DISTINCT_WEIGHTS + 1)]
    for w, has in ((at_limit, True), (over, False)):
        paired = _paired("ap_binary", y, a, b, sample_weight=w)
        assert (ranked_jackknife(paired.rankings[0], w) is not None) == has
        _check_against_one_pass(paired)


# --------------------------------------------------------------------------
# degenerate cases
# --------------------------------------------------------------------------
@pytest.mark.parametrize("w_kind", [None, "few"])
def test_binary_ap_with_one_positive_and_single_item_groups(w_kind):
    rng = np.random.default_rng(7)
    n = 31
    y = np.zeros(n, dtype=int)
    y[4] = 1
    a = rng.normal(size=n)  # no ties: every item alone in its group
    b = np.round(a, 0)      # heavy ties
    w = None if w_kind is None else _weights(w_kind, n, 7)
    if w is not None:
        w[4] = 0.7
    paired = _paired("ap_binary", y, a, b, sample_weight=w)
    theta_a, theta_b, _ = _check_against_one_pass(paired)
    assert theta_a[4] == 0.0 and theta_b[4] == 0.0  # no positive left: 0.0, as scikit-learn


@pytest.mark.parametrize("name", MULTI)
@pytest.mark.parametrize("design", ["items", "few", "clusters"])
def test_a_class_held_by_one_item(name, design):
    if "ovo" in name and design == "few":
        pytest.skip("one-vs-one takes no sample_weight")
    if name.startswith("ap") and design == "clusters":
        pytest.skip("average precision with clusters: the one-pass path")
    y, (a, b) = _data(name, 45, 8, ties=True, K=4)
    y[y == 3] = 2
    y[10] = 3  # class 3 held by item 10 only: leaving it out empties the class
    w = None if design != "few" else _weights("few", 45, 8)
    if w is not None:
        w[10] = 1.9
    groups = np.arange(45) % 6 if design == "clusters" else None
    paired = _paired(name, y, a, b, sample_weight=w, groups=groups)
    theta_a, _, _ = _check_against_one_pass(paired)
    if name.startswith("roc_auc") and groups is None:
        assert np.isnan(theta_a[10])  # an absent class: nan (as scikit-learn 1.9)


@pytest.mark.parametrize("seed", range(12))
def test_a_cluster_holding_every_item_of_a_class(seed):
    """Class 1 lives in cluster 2 only, under weights such as 0.1 + 0.2: without
    the cluster its weight is exactly 0 (nan, as the one-pass path), not a
    rounding residue of the total minus the cluster's sum."""
    rng = np.random.default_rng(seed)
    n = 40
    groups = np.arange(n) % 5
    y = rng.integers(0, 3, n)
    y[(y == 1) & (groups != 2)] = 0
    y[[2, 7, 12, 17]] = 1  # class 1: four items of cluster 2 (and maybe more)
    y[[0, 1]] = [0, 2]
    a = rng.dirichlet(np.ones(3), n)
    b = rng.dirichlet(np.ones(3), n)
    w = rng.choice([0.1, 0.2, 0.3, 0.7], n)
    for name in ("roc_auc_ovr", "roc_auc_ovr_weighted"):
        paired = _paired(name, y, a, b, sample_weight=w, groups=groups)
        theta_a, _, _ = _check_against_one_pass(paired)
        assert np.isnan(theta_a[2]) and not np.isnan(theta_a[[0, 1, 3, 4]]).any()


# --------------------------------------------------------------------------
# the naive twin: scikit-learn on the data without each unit
# --------------------------------------------------------------------------
def _sklearn(name, y, s, w, K):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "ap_binary":
            return skm.average_precision_score(y, s, sample_weight=w)
        if name.startswith("ap"):
            Y = label_binarize(y, classes=np.arange(K))
            return skm.average_precision_score(Y, s, average=name.split("_")[1],
                                               sample_weight=w)
        average = "weighted" if name.endswith("weighted") else "macro"
        return skm.roc_auc_score(y, s, multi_class=name.split("_")[2], average=average,
                                 sample_weight=w, labels=np.arange(K))


@pytest.mark.parametrize("name", list(NAMES))
@pytest.mark.parametrize("design", ["items", "few", "clusters"])
def test_equals_sklearn_leaving_out_each_unit(name, design):
    if "ovo" in name and design == "few":
        pytest.skip("one-vs-one takes no sample_weight")
    n, K = 33, 3
    y, (a, b) = _data(name, n, 11, ties=True, K=K)
    w = _weights("few", n, 11) if design == "few" else None
    groups = np.arange(n) % 5 if design == "clusters" else None
    paired = _paired(name, y, a, b, sample_weight=w, groups=groups)
    theta_a, theta_b, _ = jackknife_values(paired)
    U = n if groups is None else 5
    for u in range(U):
        keep = np.arange(n) != u if groups is None else groups != u
        wk = None if w is None else w[keep]
        ref = [_sklearn(name, y[keep], s[keep], wk, K) for s in (a, b)]
        _close([theta_a[u], theta_b[u]], ref)


def test_ovo_left_out_item_changes_only_its_classes_pairs():
    """One-vs-one ``weighted``: an item of class 0 changes the pairs (0, 1) and
    (0, 2) and their item weights; pair (1, 2) keeps its value and weight."""
    y, (a, b) = _data("roc_auc_ovo_weighted", 30, 12, ties=False)
    paired = _paired("roc_auc_ovo_weighted", y, a, b)
    theta, _, _ = jackknife_values(paired)
    i = int(np.flatnonzero(y == 0)[0])
    keep = np.arange(30) != i
    pairs, sizes = [], []
    for j, k in ((0, 1), (0, 2), (1, 2)):
        m = keep & ((y == j) | (y == k))
        auc_j = skm.roc_auc_score(y[m] == j, a[m, j])
        auc_k = skm.roc_auc_score(y[m] == k, a[m, k])
        pairs.append((auc_j + auc_k) / 2)
        sizes.append(m.sum())
    _close(theta[i], np.dot(sizes, pairs) / np.sum(sizes))
