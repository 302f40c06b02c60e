"""Hard-label metrics: values, scikit-learn equality, sufficient statistics."""

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from sigtest import PairedPermutation
from sigtest.exceptions import UndefinedMetricWarning
from sigtest.metrics import (
    accuracy_score,
    f1_score,
    get_metric,
    multilabel_f1_score,
    precision_score,
    recall_score,
)
from sigtest.metrics._hard import (
    _accuracy_aggregate,
    _accuracy_statistics,
    _f1_aggregate,
    _precision_aggregate,
    _prf_statistics,
    _recall_aggregate,
)
from sigtest.metrics._hard_multilabel import _multilabel_f1_aggregate, _multilabel_f1_statistics

PRF = {
    "precision": (precision_score, _precision_aggregate, 0),
    "recall": (recall_score, _recall_aggregate, 1),
    "f1": (f1_score, _f1_aggregate, 2),
}


def _sk_prf(which, y, p, **kw):
    """The value of scikit-learn's precision_recall_fscore_support for ``which``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return skm.precision_recall_fscore_support(y, p, **kw)[PRF[which][2]]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


# ----------------------------------------------------------------- hand-computed values
def _jurafsky_martin_example():
    """Confusion matrix of Jurafsky & Martin (SLP, Fig. 4.5/4.6), rows = system output."""
    classes = ["urgent", "normal", "spam"]
    counts = {  # (system, gold): count
        ("urgent", "urgent"): 8, ("urgent", "normal"): 10, ("urgent", "spam"): 1,
        ("normal", "urgent"): 5, ("normal", "normal"): 60, ("normal", "spam"): 50,
        ("spam", "urgent"): 3, ("spam", "normal"): 30, ("spam", "spam"): 200,
    }  # fmt: skip
    y, p = [], []
    for (sys_, gold), c in counts.items():
        y += [gold] * c
        p += [sys_] * c
    return classes, np.array(y), np.array(p)


def test_jurafsky_martin_precision_recall():
    classes, y, p = _jurafsky_martin_example()
    prec = precision_score(y, p, labels=classes, average=None)
    np.testing.assert_allclose(prec, [8 / 19, 60 / 115, 200 / 233], rtol=1e-15)
    assert round(prec[0], 2) == 0.42 and round(prec[1], 2) == 0.52 and round(prec[2], 2) == 0.86
    rec = recall_score(y, p, labels=classes, average=None)
    np.testing.assert_allclose(rec, [8 / 16, 60 / 100, 200 / 251], rtol=1e-15)
    micro = precision_score(y, p, average="micro")
    assert micro == pytest.approx(268 / 367, rel=1e-15)
    assert round(micro, 2) == 0.73
    macro = precision_score(y, p, average="macro")
    assert macro == pytest.approx((8 / 19 + 60 / 115 + 200 / 233) / 3, rel=1e-15)
    assert round(macro, 2) == 0.60
    # pos_label by label, whatever the class order
    assert precision_score(y, p, pos_label="spam") == pytest.approx(200 / 233, rel=1e-15)
    assert recall_score(y, p, pos_label="urgent", labels=classes) == pytest.approx(0.5)
    f1_u = 2 * 8 / (19 + 16)
    assert f1_score(y, p, pos_label="urgent") == pytest.approx(f1_u, rel=1e-15)
    weighted = f1_score(y, p, average="weighted")
    f1 = [2 * 8 / 35, 2 * 60 / 215, 2 * 200 / 484]
    assert weighted == pytest.approx((16 * f1[0] + 100 * f1[1] + 251 * f1[2]) / 367, rel=1e-14)


def test_small_hand_computed():
    y = [0, 0, 1, 1, 2, 2]
    p = [0, 1, 1, 1, 0, 2]
    assert accuracy_score(y, p) == pytest.approx(4 / 6)
    # class 0: TP 1, pred 2, true 2; class 1: TP 2, pred 3, true 2; class 2: TP 1, pred 1, true 2
    np.testing.assert_allclose(precision_score(y, p, average=None), [1 / 2, 2 / 3, 1])
    np.testing.assert_allclose(recall_score(y, p, average=None), [1 / 2, 1, 1 / 2])
    np.testing.assert_allclose(f1_score(y, p, average=None), [2 / 4, 4 / 5, 2 / 3])
    assert f1_score(y, p) == pytest.approx((1 / 2 + 4 / 5 + 2 / 3) / 3)
    assert f1_score(y, p, average="micro") == pytest.approx(4 / 6)
    assert accuracy_score(y, p, sample_weight=[1, 1, 1, 1, 0, 3]) == pytest.approx(6 / 7)


def test_argmax_input_ties_to_lowest_column():
    y = [0, 1, 2, 1]
    scores = np.array([[0.5, 0.5, 0.0], [0.2, 0.4, 0.4], [0.1, 0.2, 0.7], [0.0, 1.0, 0.0]])
    # argmax with ties -> [0, 1, 2, 1]
    assert accuracy_score(y, scores) == 1.0
    assert f1_score(np.eye(3)[y], scores) == 1.0
    # soft true distribution reduced by argmax as well
    assert accuracy_score(scores, [0, 1, 2, 0]) == 0.75


# ----------------------------------------------------------------- scikit-learn equality
def _random_case(rng):
    n = int(rng.integers(1, 40))
    k = int(rng.integers(1, 6))
    y = rng.integers(0, k, n)
    p = rng.integers(0, k, n)
    if rng.random() < 0.3:  # a system that collapses to few classes
        p = np.minimum(p, 1)
    if rng.random() < 0.5:
        names = np.array(["ant", "bee", "cat", "dog", "eel", "fox", "gnu"])[rng.permutation(7)]
        y, p, pool = names[y], names[p], names
    else:
        pool = np.arange(7) * 3 - 5
        y, p = pool[y], pool[p]
    labels = None
    r = rng.random()
    if r < 0.25:  # labels with classes absent from the data
        labels = np.unique(np.concatenate([y, p, pool[k : k + 2]]))
    elif r < 0.4:  # a subset of the classes, in a shuffled order
        present = np.unique(np.concatenate([y, p]))
        labels = rng.permutation(present)[: max(1, present.size - 1)]
    w = None
    if rng.random() < 0.5:
        w = rng.random(n) * (rng.random(n) < 0.8)
        if w.sum() == 0:
            w[0] = 1.0
    return y, p, labels, w


@pytest.mark.parametrize("seed", range(24))
def test_prf_equals_sklearn(seed):
    """96 random cases x 4 averages x 4 zero_division values x 3 metrics."""
    rng = np.random.default_rng(seed)
    for _ in range(4):
        y, p, labels, w = _random_case(rng)
        for average in ("macro", "micro", "weighted", None):
            for zd in (0.0, 1.0, np.nan, "warn"):
                kw = dict(labels=labels, average=average, sample_weight=w, zero_division=zd)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UndefinedMetricWarning)
                    want = skm.precision_recall_fscore_support(y, p, **kw)[:3]
                    got = [PRF[which][0](y, p, **kw) for which in ("precision", "recall", "f1")]
                for g, v in zip(got, want):
                    np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-14, equal_nan=True)


@pytest.mark.parametrize("seed", range(30))
def test_pos_label_equals_sklearn_by_label(seed):
    rng = np.random.default_rng(seed)
    y, p, _, w = _random_case(rng)
    present = np.unique(np.concatenate([y, p]))
    c = present[rng.integers(present.size)]
    c = c.item()  # a Python scalar, as a user would type it
    for which, (func, _, _) in PRF.items():
        got = _quiet(func, y, p, pos_label=c, sample_weight=w)
        want = _sk_prf(which, y, p, labels=[c], average="macro", sample_weight=w)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert got == _quiet(func, y, p, labels=[c], sample_weight=w)
        assert got == _quiet(func, y, p, pos_label=c, average="binary", sample_weight=w)
        # labels fixes the class set; pos_label still picks its class by label
        assert got == _quiet(func, y, p, pos_label=c, labels=present[::-1], sample_weight=w)
        if present.size == 2:
            sk = _sk_prf(which, y, p, average="binary", pos_label=c, sample_weight=w)
            assert got == pytest.approx(sk, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(20))
def test_accuracy_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    y, p, _, w = _random_case(rng)
    assert accuracy_score(y, p, sample_weight=w) == pytest.approx(
        skm.accuracy_score(y, p, sample_weight=w), rel=1e-12
    )


def test_macro_averages_over_all_listed_classes():
    y = ["a", "a", "b", "b"]
    p_a = ["a", "a", "b", "b"]
    p_b = ["a", "a", "a", "c"]
    # without labels, system B is averaged over {a, b, c}, system A over {a, b}
    assert f1_score(y, p_a) == 1.0
    labels = ["a", "b", "c"]
    # with the union fixed, A gets F1_c = 0/0 -> zero_division
    assert f1_score(y, p_a, labels=labels, zero_division=0.0) == pytest.approx(2 / 3)
    assert f1_score(y, p_a, labels=labels, zero_division=1.0) == 1.0
    assert f1_score(y, p_a, labels=labels, zero_division=np.nan) == 1.0  # NaN left out
    assert f1_score(y, p_b, labels=labels, zero_division=0.0) == pytest.approx((0.8 + 0 + 0) / 3)


# ----------------------------------------------------------------- zero_division & warnings
def _count_undefined(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        value = func(*args, **kwargs)
    return value, sum(issubclass(r.category, UndefinedMetricWarning) for r in rec)


def test_zero_division_warns_once_only_for_warn():
    y, p = [0, 0, 1, 1], [0, 0, 0, 0]  # class 1 never predicted, class 2 absent
    value, n = _count_undefined(precision_score, y, p, labels=[0, 1, 2])
    assert value == pytest.approx(0.5 / 3) and n == 1
    value, n = _count_undefined(recall_score, y, p, labels=[0, 1, 2])
    assert value == pytest.approx(1 / 3) and n == 1
    value, n = _count_undefined(f1_score, y, p, labels=[0, 1, 2])
    assert value == pytest.approx((2 / 3) / 3) and n == 1
    for zd, expected in ((0.0, 0.5 / 3), (1.0, 2.5 / 3), (np.nan, 0.5)):
        value, n = _count_undefined(precision_score, y, p, labels=[0, 1, 2], zero_division=zd)
        assert value == pytest.approx(expected) and n == 0
    # well-defined: no warning
    value, n = _count_undefined(f1_score, y, p)
    assert n == 0
    # all NaN -> NaN
    assert np.isnan(precision_score([0], [0], labels=[1], zero_division=np.nan))
    # micro over no predictions at all
    value, n = _count_undefined(precision_score, [0, 0], [0, 0], labels=[1], average="micro")
    assert value == 0.0 and n == 1


def test_pos_label_absent_from_data_is_zero_division():
    value, n = _count_undefined(f1_score, ["ham", "ham"], ["ham", "ham"], pos_label="spam")
    assert value == 0.0 and n == 1
    assert f1_score(["ham"], ["ham"], pos_label="spam", zero_division=1.0) == 1.0


def test_multilabel_zero_division():
    P = np.array([[1.0, 0.0], [1.0, 0.2]])
    Q = np.array([[0.9, 0.1], [0.2, 0.5]])
    value, n = _count_undefined(multilabel_f1_score, P, Q, average="macro")
    assert value == pytest.approx((2 / 3 + 0.0) / 2) and n == 1
    assert multilabel_f1_score(P, Q, average="macro", zero_division=np.nan) == pytest.approx(2 / 3)
    assert multilabel_f1_score(P, Q, average="macro", zero_division=1.0) == pytest.approx(5 / 6)
    value, n = _count_undefined(multilabel_f1_score, P, Q, average="micro")
    assert value == pytest.approx(2 / 3) and n == 0
    value, n = _count_undefined(multilabel_f1_score, np.zeros((2, 2)), np.zeros((2, 2)))
    assert value == 0.0 and n == 1


# ----------------------------------------------------------------- multilabel F1
def test_multilabel_hand_computed_and_strict_threshold():
    P = [[1.0, 0.6, 0.0], [0.2, 0.5, 0.9]]  # J^P = [[1,1,0],[0,0,1]]  (0.5 -> 0)
    Q = [[0.7, 0.4, 0.1], [0.0, 0.8, 0.6]]  # J^Q = [[1,0,0],[0,1,1]]
    assert multilabel_f1_score(P, Q) == pytest.approx(2 * 2 / (3 + 3))
    # per label: 2*1/(1+1), 2*0/(1+1), 2*1/(1+1)
    np.testing.assert_allclose(multilabel_f1_score(P, Q, average=None), [1.0, 0.0, 1.0])
    assert multilabel_f1_score(P, Q, average="macro") == pytest.approx(2 / 3)
    assert multilabel_f1_score([[0.5]], [[0.5]], zero_division=1.0) == 1.0  # both negative
    assert multilabel_f1_score([[0.5000001]], [[0.51]]) == 1.0


@pytest.mark.parametrize("seed", range(30))
def test_multilabel_f1_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 30)), int(rng.integers(1, 6))
    P = rng.random((n, k)) ** 2
    Q = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(n, k))
    w = rng.random(n) + 0.01 if seed % 2 else None
    for average in ("micro", "macro", None):
        for zd in (0.0, 1.0, np.nan):
            got = multilabel_f1_score(P, Q, average=average, sample_weight=w, zero_division=zd)
            jp, jq = (P > 0.5).astype(int), (Q > 0.5).astype(int)
            if k == 1:  # scikit-learn reads an (n, 1) indicator as binary 1-D labels
                jp, jq = jp.ravel(), jq.ravel()
                avg_sk = "macro" if average is not None else None
                want = skm.f1_score(
                    jp, jq, labels=[1], average=avg_sk, sample_weight=w, zero_division=zd
                )
            else:
                want = skm.f1_score(jp, jq, average=average, sample_weight=w, zero_division=zd)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("k", [2, 50, 500])
def test_multilabel_f1_micro_statistics_do_not_grow_with_the_labels(k):
    # issue 20: the micro statistics were [TP_1..TP_K, FP_1..FP_K, FN_1..FN_K],
    # so every resample cost K times what the items cost (21.7 s at K = 500)
    rng = np.random.default_rng(k)
    n = 40
    P = (rng.random((n, k)) < 0.3).astype(float)
    Q = np.where(rng.random((n, k)) < 0.8, P, 1 - P)
    micro, macro = get_metric("multilabel_f1_micro"), get_metric("multilabel_f1_macro")
    stats = micro.statistics(P, Q, **micro.kwargs)
    assert stats.shape == (n, 3)
    assert macro.statistics(P, Q, **macro.kwargs).shape == (n, 3 * k)
    want = skm.f1_score(P.astype(int), Q.astype(int), average="micro")
    assert float(micro.aggregate(stats.sum(axis=0), **micro.kwargs)) == pytest.approx(
        want, rel=1e-12)
    w = rng.random(n) + 0.1
    assert micro(P, Q, sample_weight=w) == pytest.approx(
        skm.f1_score(P.astype(int), Q.astype(int), average="micro", sample_weight=w),
        rel=1e-12)
    # what a significance test scores is the same value
    res = PairedPermutation(n_resamples=99, random_state=0, exact=False).test(
        P, Q, P, metric="multilabel_f1_micro")
    assert res.score_a == pytest.approx(want, rel=1e-12) and res.score_b == 1.0


# ----------------------------------------------------------------- sufficient statistics
def _all_hard_metrics():
    return [
        "accuracy", "precision_macro", "precision_micro", "precision_weighted",
        "recall_macro", "recall_micro", "recall_weighted", "f1_macro", "f1_micro", "f1_weighted",
    ]  # fmt: skip


def test_registry_entries():
    for name in _all_hard_metrics():
        m = get_metric(name)
        assert m.input_type == "labels" and m.response_method == "predict"
        assert m.cellwise and m.has_statistics and m.greater_is_better
        if name != "accuracy":
            assert m.kwargs["average"] == name.split("_")[1]
    for avg in ("micro", "macro"):
        m = get_metric(f"multilabel_f1_{avg}")
        assert m.input_type == "multilabel" and m.response_method == "predict"
        assert not m.cellwise and m.kwargs["average"] == avg


labels_st = st.lists(st.integers(0, 4), min_size=1, max_size=40)


@st.composite
def label_pairs(draw):
    y = draw(labels_st)
    p = draw(st.lists(st.integers(0, 4), min_size=len(y), max_size=len(y)))
    use_str = draw(st.booleans())
    if use_str:
        names = np.array(["e", "d", "c", "b", "a"])  # order-reversing map
        return names[np.array(y)], names[np.array(p)]
    return np.array(y), np.array(p)


@settings(max_examples=150, deadline=None)
@given(label_pairs(), st.sampled_from(_all_hard_metrics()), st.sampled_from([0.0, 1.0, np.nan]))
def test_aggregate_of_summed_statistics_equals_score(pair, name, zd):
    y, p = pair
    m = get_metric(name)
    labels = np.unique(np.concatenate([y, p]))
    params = m.params(labels=labels)
    if name != "accuracy":  # accuracy is never 0/0 and takes no zero_division
        params["zero_division"] = zd
    stats = m.statistics(y, p, **params)
    assert stats.dtype == np.float64 and stats.shape[0] == len(y)
    score = m(y, p, **params)
    agg = m.aggregate(stats.sum(0), **params)
    assert agg.shape == ()
    np.testing.assert_allclose(agg, score, rtol=1e-12, atol=1e-12, equal_nan=True)
    # bounds and orientation
    assert np.isnan(score) or 0.0 <= score <= 1.0


@settings(max_examples=100, deadline=None)
@given(label_pairs(), st.sampled_from(_all_hard_metrics()), st.data())
def test_integer_weights_equal_repeated_rows(pair, name, data):
    y, p = pair
    w = np.array(data.draw(st.lists(st.integers(0, 4), min_size=len(y), max_size=len(y))))
    if w.sum() == 0:
        w[0] = 1
    m = get_metric(name)
    labels = np.unique(np.concatenate([y, p]))
    params = {} if name == "accuracy" else {"labels": labels, "zero_division": 0.0}
    weighted = m(y, p, sample_weight=w, **params)
    repeated = m(np.repeat(y, w), np.repeat(p, w), **params)
    assert weighted == pytest.approx(repeated, rel=1e-12, abs=1e-12)
    stats = m.statistics(y, p, **m.params(**params))
    agg = m.aggregate(w.astype(float) @ stats, **m.params(**params))
    assert float(agg) == pytest.approx(weighted, rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(label_pairs())
def test_identities_between_metrics(pair):
    y, p = pair
    acc = accuracy_score(y, p)
    assert f1_score(y, p, average="micro") == pytest.approx(acc, rel=1e-12)
    assert precision_score(y, p, average="micro") == pytest.approx(acc, rel=1e-12)
    # a class predicted but never true has recall 0/0, but zero weight
    assert _quiet(recall_score, y, p, average="weighted") == pytest.approx(acc, rel=1e-12)
    # row order does not matter
    perm = np.random.default_rng(len(y)).permutation(len(y))
    assert f1_score(y[perm], p[perm]) == pytest.approx(f1_score(y, p), rel=1e-12)


def test_str_and_int_labels_give_the_same_values():
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    names = np.array(["w", "x", "y", "z"])
    for func in (precision_score, recall_score, f1_score):
        for avg in ("macro", "micro", "weighted", None):
            np.testing.assert_array_equal(
                _quiet(func, y, p, average=avg), _quiet(func, names[y], names[p], average=avg)
            )


@pytest.mark.parametrize("name", _all_hard_metrics())
def test_statistics_are_cellwise(name):
    rng = np.random.default_rng(7)
    y = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, 200)]
    p = np.array(["a", "b", "c", "d"])[rng.integers(0, 4, 200)]
    labels = np.array(["a", "b", "c", "d", "e"])
    m = get_metric(name)
    params = m.params(labels=labels)
    stats = m.statistics(y, p, **params)
    cells = {}
    for i, cell in enumerate(zip(y, p)):
        cells.setdefault(cell, []).append(i)
    assert len(cells) > 10
    rep_rows, counts = [], []
    for rows in cells.values():
        same = np.broadcast_to(stats[rows[0]], stats[rows].shape)
        np.testing.assert_array_equal(stats[rows], same)
        rep_rows.append(rows[0])
        counts.append(len(rows))
    # one representative row per cell, times the cell counts, gives the full sums
    rep = m.statistics(y[rep_rows], p[rep_rows], **params)
    np.testing.assert_array_equal(np.asarray(counts, float) @ rep, stats.sum(0))


@pytest.mark.parametrize(
    "name", _all_hard_metrics() + ["multilabel_f1_micro", "multilabel_f1_macro"]
)
def test_aggregate_is_vectorised_over_batch_axes(name):
    rng = np.random.default_rng(11)
    m = get_metric(name)
    if m.input_type == "multilabel":
        y, p = rng.random((60, 3)), rng.random((60, 3))
        params = m.params(zero_division=0.0)
    else:
        y, p = rng.integers(0, 4, 60), rng.integers(0, 4, 60)
        params = m.params(labels=np.arange(5))
        if name != "accuracy":
            params["zero_division"] = 0.0
    stats = m.statistics(y, p, **params)
    idx = rng.integers(0, 60, size=(4, 3, 60))  # 12 bootstrap resamples as a (4, 3) batch
    counts = np.stack([np.bincount(i, minlength=60) for i in idx.reshape(-1, 60)])
    counts = counts.reshape(4, 3, 60)
    sums = counts.astype(float) @ stats
    batch = m.aggregate(sums, **params)
    assert batch.shape == (4, 3)
    for a in range(4):
        for b in range(3):
            direct = m(y[idx[a, b]], p[idx[a, b]], **params)
            assert batch[a, b] == pytest.approx(direct, rel=1e-12, abs=1e-12)


def test_statistics_layout():
    stats = _prf_statistics(["b", "a", "x"], ["a", "a", "b"], labels=["a", "b"])
    # columns TP_a TP_b pred_a pred_b true_a true_b count; "x" counts for no class
    expected = [
        [0, 0, 1, 0, 0, 1, 1],
        [1, 0, 1, 0, 1, 0, 1],
        [0, 0, 0, 1, 0, 0, 1],
    ]
    np.testing.assert_array_equal(stats, expected)
    np.testing.assert_array_equal(_accuracy_statistics([1, 2], [1, 1]), [[1, 1], [0, 1]])
    ml = _multilabel_f1_statistics([[1, 0], [0.6, 0.9]], [[0.7, 0.2], [0.1, 0.8]])
    np.testing.assert_array_equal(ml, [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 1, 0]])


def test_aggregate_with_pos_label_needs_labels():
    sums = _prf_statistics([0, 1], [0, 0]).sum(0)
    assert _f1_aggregate(sums, labels=[0, 1], pos_label=0) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="'labels'"):
        _f1_aggregate(sums, pos_label=0)
    with pytest.raises(ValueError, match="'labels'.*3 entries.*2 classes"):
        _f1_aggregate(sums, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="'pos_label'"):
        _f1_aggregate(sums, labels=[0, 1], pos_label=5)
    with pytest.raises(ValueError, match="'sums'"):
        _f1_aggregate(np.ones(6))
    with pytest.raises(ValueError, match="'sums'"):
        _accuracy_aggregate(np.ones(3))
    with pytest.raises(ValueError, match="'sums'"):
        _multilabel_f1_aggregate(np.ones(4))
    with pytest.raises(ValueError, match="'zero_division'"):
        _f1_aggregate(sums, zero_division=0.5)
    assert np.isnan(_accuracy_aggregate(np.zeros(2)))


# ----------------------------------------------------------------- bad input
BAD = [
    (f1_score, ([0, 1], [0]), {}, ValueError, "'y_true' and 'y_pred'"),
    (f1_score, ([], []), {}, ValueError, "'y_true'.*empty"),
    (f1_score, ([0.0, np.nan], [0, 1]), {}, ValueError, "'y_true'.*NaN"),
    (f1_score, ([0, 1], [0, np.inf]), {}, ValueError, "'y_pred'.*NaN"),
    (f1_score, (["a", "b"], [0, 1]), {}, TypeError, "'y_true'.*'y_pred'"),
    (f1_score, (np.array(["a", 1], dtype=object), ["a", "b"]), {}, TypeError, "'y_true'"),
    (f1_score, (np.zeros((2, 2, 2)), [0, 1]), {}, ValueError, "'y_true'"),
    (f1_score, (np.zeros((2, 1)), [0, 1]), {}, ValueError, "'y_true'"),
    (f1_score, ([0, 1], [0, 1]), {"labels": [0, 0]}, ValueError, "'labels'.*duplicates"),
    (f1_score, ([0, 1], [0, 1]), {"labels": []}, ValueError, "'labels'.*empty"),
    (f1_score, ([0, 1], [0, 1]), {"labels": ["a"]}, TypeError, "'labels'"),
    (f1_score, ([0, 1], [0, 1]), {"labels": [[0, 1]]}, ValueError, "'labels'"),
    (f1_score, ([0, 1], [0, 1]), {"average": "samples"}, ValueError, "'average'"),
    (f1_score, (["a", "b"], ["a", "b"]), {"average": "binary"}, ValueError, "'pos_label'"),
    (f1_score, ([0, 1], [0, 1]), {"pos_label": 1, "average": "micro"}, ValueError, "'pos_label'"),
    (f1_score, ([0, 1], [0, 1]), {"pos_label": 2, "labels": [0, 1]}, ValueError, "'pos_label'"),
    (f1_score, ([0, 1], [0, 1]), {"pos_label": "1"}, TypeError, "'pos_label'"),
    (f1_score, (["a", "b"], ["a", "b"]), {"pos_label": 1}, TypeError, "'pos_label'"),
    (f1_score, ([0, 1], [0, 1]), {"pos_label": [1]}, ValueError, "'pos_label'"),
    (f1_score, ([0, 1], [0, 1]), {"zero_division": 0.5}, ValueError, "'zero_division'"),
    (f1_score, ([0, 1], [0, 1]), {"zero_division": "ignore"}, ValueError, "'zero_division'"),
    (f1_score, ([0, 1], [0, 1]), {"sample_weight": [1]}, ValueError, "'sample_weight'"),
    (f1_score, ([0, 1], [0, 1]), {"sample_weight": [1, -1]}, ValueError, "'sample_weight'"),
    (f1_score, ([0, 1], [0, 1]), {"sample_weight": [0, 0]}, ValueError, "'sample_weight'"),
    (precision_score, ([1, 2], [1, 2]), {"average": "binary"}, ValueError, "'pos_label'"),
    (recall_score, ([0, 1], [0, 2]), {"sample_weight": [np.nan, 1]}, ValueError, "'sample_weight'"),
    (accuracy_score, ([0, 1], [0]), {}, ValueError, "'y_true' and 'y_pred'"),
    (accuracy_score, ([], []), {}, ValueError, "'y_true'.*empty"),
    (accuracy_score, (["a"], [1]), {}, TypeError, "'y_true'"),
    (accuracy_score, ([0, 1], [0, 2]), {"labels": [0, 1]}, ValueError, "'y_pred'.*'labels'"),
    (accuracy_score, ([0, 1], [0, 1]), {"sample_weight": [1, 2, 3]}, ValueError, "'sample_weight'"),
    (accuracy_score, ([0, 1], [0, 1]), {"normalize": False}, TypeError, "normalize"),
    (multilabel_f1_score, ([0, 1], [0, 1]), {}, ValueError, "'y_true'.*2-D"),
    (multilabel_f1_score, ([[0, 1]], [[0, 1, 1]]), {}, ValueError, "'y_true' and 'y_pred'"),
    (multilabel_f1_score, ([[0, 1.5]], [[0, 1]]), {}, ValueError, "'y_true'.*\\[0, 1\\]"),
    (multilabel_f1_score, ([[0, 1]], [[0, -1]]), {}, ValueError, "'y_pred'.*\\[0, 1\\]"),
    (multilabel_f1_score, ([[0, np.nan]], [[0, 1]]), {}, ValueError, "'y_true'.*NaN"),
    (multilabel_f1_score, ([[0, 1]], [[0, 1]]), {"average": "weighted"}, ValueError, "'average'"),
    (multilabel_f1_score, ([[0, 1]], [[0, 1]]), {"sample_weight": [1, 1]}, ValueError, "'sample_weight'"),
    (multilabel_f1_score, ([[0, 1]], [[0, 1]]), {"zero_division": 2}, ValueError, "'zero_division'"),
]  # fmt: skip


@pytest.mark.parametrize("func, args, kwargs, exc, match", BAD)
def test_bad_input_raises_naming_the_argument(func, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        func(*args, **kwargs)


@st.composite
def multilabel_pairs(draw):
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, 4))
    values = st.sampled_from([0.0, 0.2, 0.5, 0.50001, 0.8, 1.0])
    P = np.array(draw(st.lists(values, min_size=n * k, max_size=n * k))).reshape(n, k)
    Q = np.array(draw(st.lists(values, min_size=n * k, max_size=n * k))).reshape(n, k)
    w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    if w.sum() == 0:
        w[0] = 1
    return P, Q, w


@settings(max_examples=100, deadline=None)
@given(multilabel_pairs(), st.sampled_from(["micro", "macro"]), st.sampled_from([0.0, 1.0]))
def test_multilabel_statistics_weights_and_threshold(data, average, zd):
    P, Q, w = data
    score = multilabel_f1_score(P, Q, average=average, zero_division=zd)
    stats = _multilabel_f1_statistics(P, Q)
    agg = _multilabel_f1_aggregate(stats.sum(0), average=average, zero_division=zd)
    assert float(agg) == pytest.approx(score, rel=1e-12, abs=1e-12)
    weighted = multilabel_f1_score(P, Q, average=average, zero_division=zd, sample_weight=w)
    repeated = multilabel_f1_score(
        np.repeat(P, w, axis=0), np.repeat(Q, w, axis=0), average=average, zero_division=zd
    )
    assert weighted == pytest.approx(repeated, rel=1e-12, abs=1e-12)
    # only J = 1[x > 0.5] matters
    binarised = multilabel_f1_score(P > 0.5, Q > 0.5, average=average, zero_division=zd)
    assert score == binarised
    assert 0.0 <= score <= 1.0


def test_warning_points_at_the_caller():
    with pytest.warns(UndefinedMetricWarning) as rec:
        f1_score([0], [0], labels=[1])
    assert rec[0].filename == __file__
    with pytest.warns(UndefinedMetricWarning) as rec:
        multilabel_f1_score([[0]], [[0]])
    assert rec[0].filename == __file__


def test_pandas_and_numpy_scalar_inputs():
    pd = pytest.importorskip("pandas")
    y = ["b", "a", "c", "a", "b"]
    p = ["b", "c", "c", "a", "a"]
    expected = f1_score(y, p)
    assert f1_score(pd.Series(y, index=[5, 3, 1, 9, 7]), np.array(p, dtype=object)) == expected
    assert f1_score(pd.Series(pd.Categorical(y)), pd.Series(p)) == expected
    assert f1_score(y, p, pos_label=np.str_("c")) == f1_score(y, p, pos_label="c")
    yi, pi = [1, 0, 2, 0, 1], [1, 2, 2, 0, 0]
    assert f1_score(yi, pi, pos_label=np.int64(2)) == f1_score(yi, pi, pos_label=2) == 2 / 3
    assert f1_score(np.array(yi, dtype=float), pi, pos_label=2.0) == 2 / 3
    assert f1_score([True, False, True], [True, True, True], pos_label=True) == 0.8
    assert accuracy_score(y, p, labels=["a", "b", "c", "z"]) == accuracy_score(y, p) == 0.6
