"""scikit-learn's probability scorers (issue 22 s1): log loss, Brier, D², top-k accuracy.

Every value is checked against scikit-learn's own function called here on
the same input (the naive twin), to 1e-9: binary (1-D and 2-D) and
multiclass, with and without ``sample_weight``, string labels, a class
missing from ``y_true``, and the degenerate cases (one class present, one
sample). The resampled D² is checked against scikit-learn on the resampled
data (its null model recomputed), and every entry point (``test``,
``compare``, ``cross_val_compare``, ``score``, ``compare_datasets``, the
CLI, ``get_scorer``) against scikit-learn.
"""

import io
import re
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import sigtest
from sigtest import (BergKirkpatrickBootstrap, PairedPermutation, compare, get_metric,
                     get_scorer)

ATOL = 1e-9

SKLEARN = {
    "log_loss": skm.log_loss,
    "brier_score": skm.brier_score_loss,
    "d2_log_loss_score": skm.d2_log_loss_score,
    "d2_brier_score": skm.d2_brier_score,
}
SCORER_NAMES = {"log_loss": "neg_log_loss", "brier_score": "neg_brier_score",
                "d2_log_loss_score": "d2_log_loss_score", "d2_brier_score": "d2_brier_score",
                "top_k_accuracy": "top_k_accuracy"}


def _data(k, n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    one_hot = np.eye(k)[y]
    pa = 0.4 * one_hot + 0.6 * rng.dirichlet(np.ones(k), n)
    pb = 0.7 * one_hot + 0.3 * rng.dirichlet(np.ones(k), n)
    pa[0] = np.eye(k)[(y[0] + 1) % k]  # a confident miss: the log loss clips at eps
    w = rng.integers(1, 5, n).astype(float)
    return y, pa, pb, w


def _sk(name, y, p, w=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "top_k_accuracy":
            return skm.top_k_accuracy_score(y, p, sample_weight=w, **kw)
        return SKLEARN[name](y, p, sample_weight=w, **kw)


# ------------------------------------------------------------------ the values


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("form", ["binary-1d", "binary-2d", "3 classes", "5 classes"])
@pytest.mark.parametrize("name", list(SKLEARN))
def test_value_equals_sklearn(name, form, weighted):
    k = 2 if form.startswith("binary") else int(form[0])
    y, pa, _, w = _data(k, seed=k)
    p = pa[:, 1] if form == "binary-1d" else pa
    w = w if weighted else None
    expected = _sk(name, y, p, w)
    metric = get_metric(name)
    assert metric(y, p, sample_weight=w) == pytest.approx(expected, abs=ATOL)
    # the scorer name is the same metric; a loss keeps scikit-learn's neg_ sign there
    assert get_metric(SCORER_NAMES[name]) is metric
    assert metric.greater_is_better == name.startswith("d2")
    # the fast path: aggregate of the (weighted) column sums of the statistics
    stats = metric.statistics(y, p)
    sums = stats.sum(0) if w is None else w @ stats
    assert float(metric.aggregate(sums)) == pytest.approx(expected, abs=ATOL)


@pytest.mark.parametrize("name", list(SKLEARN))
def test_string_labels_and_a_class_missing_from_y_true(name):
    y, pa, _, w = _data(4, seed=3)
    names = np.array(["ant", "bee", "cat", "dog"])
    keep = y != 2  # "cat" never true: the class set comes from labels=
    ys, ps, ws = names[y[keep]], pa[keep], w[keep]
    expected = _sk(name, ys, ps, ws, labels=names)
    assert get_metric(name)(ys, ps, sample_weight=ws, labels=names) == pytest.approx(
        expected, abs=ATOL)
    # without labels= the 3 classes of y_true do not match the 4 columns
    with pytest.raises(ValueError, match="4 columns but the class set has 3 classes"):
        get_metric(name)(ys, ps)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("k_classes", [3, 4, 6])
def test_top_k_equals_sklearn_with_ties(k_classes, weighted):
    y, pa, _, w = _data(k_classes, n=60, seed=k_classes)
    scores = np.round(pa, 1)  # many ties: scikit-learn ranks the higher index first
    w = w if weighted else None
    metric = get_metric("top_k_accuracy")
    for k in range(1, k_classes):
        expected = skm.top_k_accuracy_score(y, scores, k=k, sample_weight=w)
        assert metric(y, scores, k=k, sample_weight=w) == pytest.approx(expected, abs=ATOL)
    # the default k is scikit-learn's, 2
    assert metric(y, scores) == pytest.approx(skm.top_k_accuracy_score(y, scores), abs=ATOL)


def test_top_k_binary_and_decision_scores():
    y, pa, _, w = _data(2, seed=5)
    metric = get_metric("top_k_accuracy")
    decision = np.log(pa[:, 1] + 1e-3) - np.log(pa[:, 0] + 1e-3)  # outside [0, 1]: threshold 0
    for s in (pa[:, 1], decision):
        expected = skm.top_k_accuracy_score(y, s, k=1, sample_weight=w)
        assert metric(y, s, k=1, sample_weight=w) == pytest.approx(expected, abs=ATOL)
    # 2-D binary probabilities: the positive column, as scikit-learn's scorer passes it
    assert metric(y, pa, k=1) == pytest.approx(
        skm.top_k_accuracy_score(y, pa[:, 1], k=1), abs=ATOL)
    # k >= n_classes: every item is a hit, with scikit-learn's warning
    with pytest.warns(UndefinedMetricWarning, match="perfect score"):
        assert metric(y, pa[:, 1]) == 1.0
    with pytest.warns(UndefinedMetricWarning):
        assert skm.top_k_accuracy_score(y, pa[:, 1]) == 1.0


# --------------------------------------------------------------- degenerate data


def test_one_class_present_log_loss_is_an_error_as_in_sklearn():
    y = np.ones(6, dtype=int)
    p = np.full(6, 0.7)
    for name in ("log_loss", "d2_log_loss_score"):
        with pytest.raises(ValueError, match="only one label"):
            _sk(name, y, p)
        with pytest.raises(ValueError, match=f"'y_true'.*{name}.*only one class.*labels"):
            get_metric(name)(y, p)
    # with the class set given, the log loss is defined (scikit-learn's value)
    assert get_metric("log_loss")(y, p, labels=[0, 1]) == pytest.approx(
        skm.log_loss(y, p, labels=[0, 1]), abs=ATOL)


@pytest.mark.parametrize("cls", [0, 1])
def test_one_class_present_brier(cls):
    y = np.full(6, cls)
    p = np.linspace(0.1, 0.9, 6)
    # 1-D: scikit-learn's brier_score_loss takes the positive class to be 1
    assert get_metric("brier_score")(y, p) == pytest.approx(
        skm.brier_score_loss(y, p), abs=ATOL)
    # the null model is perfect: D² is undefined; scikit-learn divides by 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not np.isfinite(skm.d2_brier_score(y, p))
    with pytest.warns(UndefinedMetricWarning, match="fewer than two classes"):
        assert np.isnan(get_metric("d2_brier_score")(y, p))
    # 2-D: one class and two columns needs labels=, in both
    with pytest.raises(ValueError):
        skm.brier_score_loss(y, np.column_stack([1 - p, p]))
    with pytest.raises(ValueError, match="only one class"):
        get_metric("brier_score")(y, np.column_stack([1 - p, p]))


def test_d2_log_loss_one_class_with_labels_is_nan_with_a_warning():
    # scikit-learn returns 1 - loss / (n * eps): a meaningless huge negative number
    y, p = np.zeros(5, dtype=int), np.full(5, 0.2)
    with pytest.warns(UndefinedMetricWarning, match="fewer than two classes"):
        assert np.isnan(get_metric("d2_log_loss_score")(y, p, labels=[0, 1]))


@pytest.mark.parametrize("name", ["d2_log_loss_score", "d2_brier_score"])
def test_d2_of_one_sample_is_nan_as_in_sklearn(name):
    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):
        assert np.isnan(SKLEARN[name]([1], [[0.3, 0.7]], labels=[0, 1]))
    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):
        assert np.isnan(get_metric(name)([1], [[0.3, 0.7]], labels=[0, 1]))


# ------------------------------------------------------------------ resampling


@pytest.mark.parametrize("name", ["d2_log_loss_score", "d2_brier_score"])
def test_resampled_d2_recomputes_the_null_model(name):
    """A bootstrap resample is a vector of multiplicities c: aggregate(c @ stats) must be
    scikit-learn's D² on the resampled items, whose class frequencies differ."""
    y, pa, _, w = _data(3, n=30, seed=11)
    metric = get_metric(name)
    stats = metric.statistics(y, pa)
    rng = np.random.default_rng(0)
    for _ in range(5):
        idx = rng.integers(0, y.size, y.size)
        counts = np.bincount(idx, minlength=y.size).astype(float)
        if np.unique(y[idx]).size < 3:
            continue
        expected = _sk(name, y[idx], pa[idx])
        assert float(metric.aggregate(counts @ stats)) == pytest.approx(expected, abs=ATOL)
        # weighted: multiplicities times weights, as the engine's weighted rows
        expected_w = _sk(name, y[idx], pa[idx], w[idx])
        assert float(metric.aggregate((counts * w) @ stats)) == pytest.approx(expected_w,
                                                                              abs=ATOL)


@pytest.mark.parametrize("name", ["neg_log_loss", "neg_brier_score", "d2_log_loss_score",
                                  "d2_brier_score", "top_k_accuracy"])
@pytest.mark.parametrize("binary", [False, True])
def test_tests_run_and_delta_equals_sklearn(name, binary):
    y, pa, pb, w = _data(2 if binary else 3, n=50, seed=4)
    if binary:
        pa, pb = pa[:, 1], pb[:, 1]
    plain = get_metric(name).name
    kw = {"k": 1} if binary and plain == "top_k_accuracy" else {}
    expected = _sk(plain, y, pb, **kw) - _sk(plain, y, pa, **kw)
    for test in (PairedPermutation(n_resamples=199, random_state=0),
                 BergKirkpatrickBootstrap(n_resamples=199, random_state=0)):
        res = test.test(y, pa, pb, metric=name, **kw)
        assert res.delta == pytest.approx(expected, abs=ATOL)
        assert np.all(np.isfinite(res.null_distribution))
        assert 0 < res.pvalue <= 1
    weighted = PairedPermutation(n_resamples=99, random_state=0).test(
        y, pa, pb, metric=name, sample_weight=w, **kw)
    assert weighted.delta == pytest.approx(
        _sk(plain, y, pb, w, **kw) - _sk(plain, y, pa, w, **kw), abs=ATOL)


def test_per_item_tests_take_the_decomposable_ones():
    y, pa, pb, _ = _data(3, n=50, seed=6)
    res = sigtest.PairedTTest().test(y, pa, pb, metric="neg_log_loss")
    assert res.delta == pytest.approx(skm.log_loss(y, pb) - skm.log_loss(y, pa), abs=ATOL)
    with pytest.raises(ValueError, match="decomposable|per-item"):
        sigtest.PairedTTest().test(y, pa, pb, metric="d2_log_loss_score")


# ----------------------------------------------------------------- entry points


def test_compare_with_two_probability_metrics_and_a_label_metric():
    y, pa, pb, _ = _data(3, n=60, seed=7)
    res = compare(y, {"a": pa, "b": pb}, metrics=["neg_log_loss", "d2_brier_score", "accuracy"],
                  test=PairedPermutation(n_resamples=99), random_state=0)
    frame = res.to_frame().set_index("metric")
    assert frame.loc["log_loss", "score_a"] == pytest.approx(skm.log_loss(y, pa), abs=ATOL)
    assert frame.loc["log_loss", "score_b"] == pytest.approx(skm.log_loss(y, pb), abs=ATOL)
    assert frame.loc["d2_brier_score", "score_b"] == pytest.approx(skm.d2_brier_score(y, pb),
                                                                   abs=ATOL)
    # a label metric on the same predict_proba arrays: the argmax class
    assert frame.loc["accuracy", "score_a"] == pytest.approx(
        skm.accuracy_score(y, pa.argmax(1)), abs=ATOL)
    # weighted, only probability metrics (y_true is checked alone with the weights)
    w = np.random.default_rng(1).random(y.size)
    res = compare(y, {"a": pa, "b": pb}, metrics=["neg_log_loss", "d2_log_loss_score"],
                  sample_weight=w, test=PairedPermutation(n_resamples=99), random_state=0)
    frame = res.to_frame().set_index("metric")
    assert frame.loc["log_loss", "score_b"] == pytest.approx(
        skm.log_loss(y, pb, sample_weight=w), abs=ATOL)
    assert frame.loc["d2_log_loss_score", "score_a"] == pytest.approx(
        skm.d2_log_loss_score(y, pa, sample_weight=w), abs=ATOL)


def test_compare_runs_groups_and_order_of_systems():
    """Several runs per system (averaged per item), clusters (groups= also checks
    y_true alone), and the same rows whatever the order of the systems."""
    rng = np.random.default_rng(16)
    y, _, _, _ = _data(3, n=60, seed=16)
    one_hot = np.eye(3)[y]

    def system(sharp):
        return [sharp * one_hot + (1 - sharp) * rng.dirichlet(np.ones(3), 60) for _ in range(2)]

    systems = {"a": system(0.4), "b": system(0.6), "c": system(0.5)[0]}
    groups = np.repeat(np.arange(20), 3)
    frames = []
    for order in (["a", "b", "c"], ["c", "b", "a"]):
        res = compare(y, {k: systems[k] for k in order}, metrics=["neg_log_loss", "d2_brier_score"],
                      groups=groups, random_state=0, test=PairedPermutation(n_resamples=99))
        frame = res.to_frame()
        frames.append({(r.metric, frozenset((r.system_a, r.system_b))): r.pvalue
                       for r in frame.itertuples()})
        row = frame[(frame.metric == "log_loss") & (frame.system_a == "a")].iloc[0] if (
            "a" in frame.system_a.values) else None
        if row is not None:  # pooled runs: the runs' items concatenated
            assert row["score_a"] == pytest.approx(
                skm.log_loss(np.tile(y, 2), np.vstack(systems["a"])), abs=ATOL)
    assert frames[0] == frames[1]


def test_compare_binary_1d_and_labels():
    y, pa, pb, _ = _data(2, n=60, seed=8)
    names = np.array(["neg", "pos"])
    res = compare(names[y], {"a": pa[:, 1], "b": pb[:, 1]}, metrics="neg_brier_score",
                  test=PairedPermutation(n_resamples=99), random_state=0)
    row = res.to_frame().iloc[0]
    assert row["score_a"] == pytest.approx(
        skm.brier_score_loss(names[y], pa[:, 1], pos_label="pos"), abs=ATOL)


def test_cross_val_compare_and_score_and_compare_datasets():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    X, y = load_iris(return_X_y=True)
    X = X[:, :2]
    ests = {"nb": GaussianNB(), "lr": LogisticRegression(max_iter=500)}
    res = sigtest.cross_val_compare(ests, X, y, cv=3, metrics=["neg_log_loss", "accuracy"],
                                    test=PairedPermutation(n_resamples=99), random_state=0)
    frame = res.to_frame().set_index("metric")
    oof = np.asarray(res.predictions["nb"])  # its out-of-fold predict_proba
    assert oof.shape == (y.size, 3)
    row = frame.loc["log_loss"]
    assert row["system_a"] == "nb"
    assert row["score_a"] == pytest.approx(skm.log_loss(y, oof), abs=ATOL)
    assert frame.loc["accuracy", "score_a"] == pytest.approx(
        skm.accuracy_score(y, oof.argmax(1)), abs=ATOL)

    s = sigtest.score(y, oof, metric="d2_log_loss_score", n_resamples=99, random_state=0)
    assert s.estimate == pytest.approx(skm.d2_log_loss_score(y, oof), abs=ATOL)

    data = {f"d{i}": (y, {"nb": oof, "other": np.roll(oof, i + 1, axis=1)}) for i in range(3)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = sigtest.compare_datasets(data, metric="neg_log_loss", random_state=0,
                                      test=PairedPermutation(n_resamples=99))
    assert ds.scores.shape == (3, 2)
    for i in range(3):
        assert ds.scores.loc[f"d{i}", "nb"] == pytest.approx(skm.log_loss(y, oof), abs=ATOL)
        assert ds.scores.loc[f"d{i}", "other"] == pytest.approx(
            skm.log_loss(y, np.roll(oof, i + 1, axis=1)), abs=ATOL)


def test_cli_metric_option(tmp_path):
    from sigtest.cli import main

    y, pa, pb, _ = _data(3, n=40, seed=9)
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    np.savetxt(tmp_path / "a.csv", pa, delimiter=",", fmt="%.17g")
    np.savetxt(tmp_path / "b.csv", pb, delimiter=",", fmt="%.17g")
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), f"a={tmp_path / 'a.csv'}",
                   f"b={tmp_path / 'b.csv'}", "-m", "neg_log_loss", "-B", "99", "--seed", "0",
                   "--format", "csv"], out=out)
    assert status == 0
    text = out.getvalue()
    assert "log_loss" in text
    assert f"{skm.log_loss(y, pa):.4f}"[:5] in text


def test_get_scorer_matches_sklearn_in_cross_validation():
    from sklearn.datasets import load_iris
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import GaussianNB

    X, y = load_iris(return_X_y=True)
    X = X[:, :2]  # overlapping classes: probabilities away from 0 and 1
    binary = y > 0  # versicolor + virginica vs setosa: the scorer passes the 1-D column
    for target in (y, binary.astype(int)):
        for name in SCORER_NAMES.values():
            ours = cross_val_score(GaussianNB(), X, target, cv=3, scoring=get_scorer(name))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = cross_val_score(GaussianNB(), X, target, cv=3,
                                      scoring=skm.get_scorer(name))
            np.testing.assert_allclose(ours, ref, rtol=0, atol=ATOL)
    # string classes: the 1-D column is the second class's; scikit-learn's
    # brier_score_loss then needs pos_label (its scorer gives nan), sigtest's does not
    words = np.where(binary, "yes", "no")
    ours = cross_val_score(GaussianNB(), X, words, cv=3, scoring=get_scorer("neg_brier_score"))
    ref = cross_val_score(GaussianNB(), X, words, cv=3, scoring=skm.make_scorer(
        skm.brier_score_loss, greater_is_better=False, response_method="predict_proba",
        pos_label="yes"))
    np.testing.assert_allclose(ours, ref, rtol=0, atol=ATOL)
    assert "neg_log_loss" in sigtest.get_scorer_names()
    assert "log_loss" not in sigtest.get_scorer_names()


# -------------------------------------------------------------------- bad input


def _raises(exc, names, *args, metric, **kw):
    """``test`` raises ``exc`` whose message names every one of ``names``."""
    with pytest.raises(exc) as info:
        PairedPermutation(n_resamples=9).test(*args, metric=metric, **kw)
    for name in names:
        assert re.search(re.escape(name), str(info.value)), (name, str(info.value))


def test_bad_input_names_the_argument_and_the_metric():
    y, pa, pb, _ = _data(3, n=20, seed=10)
    labels_a = pa.argmax(1)
    # predicted labels for a probability metric: 1-D with 3 classes
    _raises(ValueError, ["'y_pred_a'", "'log_loss'", "1-D"], y, labels_a, pb,
            metric="neg_log_loss")
    # string labels for a probability metric
    s = np.array(["a", "b", "c"])
    _raises(ValueError, ["'y_pred_a'", "'brier_score'", "not labels"], s[y], s[labels_a],
            s[pb.argmax(1)], metric="neg_brier_score")
    # probabilities for a label metric
    _raises(ValueError, ["'y_pred_a'", "'accuracy'", "non-integral"], y % 2, pa[:, 1],
            pb[:, 1], metric="accuracy")
    # a true distribution as y_true
    _raises(ValueError, ["'y_true'", "'log_loss'", "hard labels"], pb, pa, pb,
            metric="neg_log_loss")
    # wrong number of columns for the class set
    _raises(ValueError, ["'y_pred_b'", "'d2_log_loss_score'", "2 columns", "3 classes"],
            y, pa, pb[:, :2] / pb[:, :2].sum(1, keepdims=True), metric="d2_log_loss_score")
    # outside [0, 1]; rows not summing to 1
    bad = pa.copy()
    bad[3] = [1.2, -0.1, -0.1]
    _raises(ValueError, ["'y_pred_a'", "'log_loss'"], y, bad, pb, metric="neg_log_loss")
    bad = pa.copy()
    bad[3] *= 0.8
    _raises(ValueError, ["'y_pred_a'", "sum to 1", "'d2_brier_score'"], y, bad, pb,
            metric="d2_brier_score")
    _raises(ValueError, ["'y_pred_b'", "[0, 1]", "'brier_score'"], y % 2, pa[:, 1],
            pb[:, 1] + 0.5, metric="neg_brier_score")
    # NaN
    bad = pa.copy()
    bad[0, 0] = np.nan
    _raises(ValueError, ["'y_pred_a'", "NaN"], y, bad, pb, metric="top_k_accuracy")
    # a class of y_true outside labels=; labels not sorted
    _raises(ValueError, ["'y_true'", "not in 'labels'"], y, pa, pb, metric="neg_log_loss",
            labels=[0, 1, 5])
    _raises(ValueError, ["'labels'", "sorted"], y, pa, pb, metric="neg_log_loss",
            labels=[2, 1, 0])


@pytest.mark.parametrize("k, exc", [(0, ValueError), (-1, ValueError), (1.5, TypeError),
                                    (True, TypeError), ("2", TypeError)])
def test_top_k_k_out_of_range(k, exc):
    y, pa, pb, _ = _data(3, n=20, seed=12)
    _raises(exc, ["'k'", "'top_k_accuracy'"], y, pa, pb, metric="top_k_accuracy", k=k)


def test_unknown_keyword_is_an_error():
    y, pa, pb, _ = _data(3, n=20, seed=13)
    with pytest.raises(TypeError, match="normalise"):
        PairedPermutation(n_resamples=9).test(y, pa, pb, metric="neg_log_loss", normalise=False)
    with pytest.raises(ValueError, match="scale_by_half"):
        get_metric("brier_score")(y, pa, scale_by_half="yes")
    # scale_by_half is scikit-learn's keyword
    assert get_metric("brier_score")(y % 2, pa[:, 1], scale_by_half=False) == pytest.approx(
        skm.brier_score_loss(y % 2, pa[:, 1], scale_by_half=False), abs=ATOL)


@pytest.mark.parametrize("name", ["brier_score", "d2_brier_score"])
def test_brier_pos_label_as_sklearn(name):
    y, pa, _, w = _data(2, seed=14)
    words = np.array(["neg", "pos"])[y]
    for pos in ("neg", "pos"):
        p = pa[:, 1] if pos == "pos" else pa[:, 0]  # the probability of class pos
        assert get_metric(name)(words, p, pos_label=pos, sample_weight=w) == pytest.approx(
            _sk(name, words, p, w, pos_label=pos), abs=ATOL)
    with pytest.raises(ValueError, match="'pos_label'.*one of the classes"):
        get_metric(name)(words, pa[:, 1], pos_label="other")
    with pytest.raises(ValueError, match="'pos_label'.*1-D"):
        get_metric(name)(words, pa, pos_label="pos")


@pytest.mark.parametrize("name", ["log_loss", "d2_log_loss_score", "top_k_accuracy"])
def test_keywords_of_other_metrics_are_errors_not_ignored(name):
    y, pa, pb, _ = _data(3, n=20, seed=15)
    for kw in ({"eps": 1e-3}, {"pos_label": 1}, {"average": "macro"}):
        with pytest.raises(TypeError, match=f"{name}.*{next(iter(kw))}"):
            PairedPermutation(n_resamples=9).test(y, pa, pb, metric=name, **kw)


# ------------------------------------------------------------------- calibration


@pytest.mark.slow
@pytest.mark.parametrize("name, test_cls", [("neg_log_loss", PairedPermutation),
                                            ("d2_brier_score", BergKirkpatrickBootstrap)])
def test_type_one_error_under_exchangeable_systems(name, test_cls):
    """Under H0 (A and B drawn from the same model) the rejection rate at 5 % is near 5 %.

    300 simulations: the rejection count is Binomial(300, 0.05) if the test is
    exact, sd = sqrt(300 * 0.05 * 0.95) = 3.8 around 15; the band [3, 30]
    is about +-3.3 sd (a bootstrap test may be mildly liberal at N = 80,
    hence the upper bound 10 %), so a seeded run leaves it only if the test is
    badly miscalibrated (e.g. a resample that does not recompute the D² null).
    """
    rng = np.random.default_rng(2024)
    rejections = 0
    for i in range(300):
        y = rng.integers(0, 3, 80)
        one_hot = np.eye(3)[y]
        pa = 0.5 * one_hot + 0.5 * rng.dirichlet(np.ones(3), 80)
        pb = 0.5 * one_hot + 0.5 * rng.dirichlet(np.ones(3), 80)
        res = test_cls(n_resamples=199, random_state=i).test(y, pa, pb, metric=name)
        rejections += res.pvalue <= 0.05
    assert 3 <= rejections <= 30


def _h0_table7(rng, n):
    """Table 7 of docs/which_test.md with hard gold: y ~ P, A and B i.i.d. noisy P."""
    P = rng.dirichlet(np.ones(3), n)
    y = (P.cumsum(1) > rng.random((n, 1))).argmax(1)

    def pred():
        z = np.log(P + 0.001) + rng.standard_normal((n, 3))
        e = np.exp(z - z.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    return y, pred(), pred()


def test_bca_warns_below_its_minimum_n_for_the_log_loss():
    from sigtest import BCaInterval
    from sigtest.exceptions import SmallSampleWarning

    y, a, b = _h0_table7(np.random.default_rng(0), 60)
    y[:3] = [0, 1, 2]
    with pytest.warns(SmallSampleWarning, match="60 items < 200 for 'log_loss'"):
        BCaInterval(n_resamples=99, random_state=0).test(y, a, b, metric="neg_log_loss")


@pytest.mark.slow
def test_bca_size_on_the_log_loss_at_its_minimum_n():
    """BCa at N = 200 (BCA_SOFT_MIN_N['log_loss']) holds its size on the log loss.

    400 H0 data sets, two-sided alpha = .05: the measured size is about .055
    (1,000 data sets: .054), sd of the estimate sqrt(.05 * .95 / 400) = .011;
    the bound .085 is 3 sd above .05, so a seeded run exceeds it only if BCa
    is liberal at this N (at N = 30 its size is .09).
    """
    from sigtest import BCaInterval

    rng = np.random.default_rng(7)
    rejections = 0
    for i in range(400):
        y, a, b = _h0_table7(rng, 200)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = BCaInterval(n_resamples=499, random_state=i).test(y, a, b,
                                                                    metric="neg_log_loss")
        rejections += res.pvalue <= 0.05
    assert rejections / 400 <= 0.085
