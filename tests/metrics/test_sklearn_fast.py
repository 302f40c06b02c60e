"""scikit-learn's scorers and metric functions on sigtest's fast path.

A scorer (``make_scorer``, ``sklearn.metrics.get_scorer``) or a plain
function of a scikit-learn metric that sigtest computes from additive
statistics becomes that fast metric with the scorer's keywords: the values
equal scikit-learn's to 1e-12 on the observed data and on resampled rows
(the same draws as the slow path, which calls scikit-learn's function on
every resample).
"""

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import sigtest
from sigtest import BergKirkpatrickBootstrap, PairedPermutation, compare, score
from sigtest._engine import prepare_paired
from sigtest._engine import resampling as R
from sigtest.metrics import Metric, as_metric, get_metric, get_scorer

#: scikit-learn scorers that stay on the slow path, and why (docs/metrics.md)
SLOW = {
    "average_precision": "the same function scores multiclass data (not additive)",
    "neg_max_error": "a maximum", "neg_median_absolute_error": "a median",
    "d2_absolute_error_score": "a median in the denominator",
    # clustering scores compare partitions, not predictions with targets
    "adjusted_mutual_info_score": "", "adjusted_rand_score": "", "completeness_score": "",
    "fowlkes_mallows_score": "", "homogeneity_score": "", "mutual_info_score": "",
    "normalized_mutual_info_score": "", "rand_score": "", "v_measure_score": "",
}


def _data(seed=0, n=240, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.65, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.55, y, rng.integers(0, k, n))
    return y, a, b


def _inputs(metric, seed=0):
    """``(y_true, y_pred)`` of the metric's kind, and scikit-learn's ``y_pred``."""
    rng = np.random.default_rng(seed)
    n = 200
    if metric.input_type == "regression":
        y = rng.gamma(2.0, 1.0, n) + 0.1
        p = y * rng.uniform(0.6, 1.4, n) + 0.05
        return y, p, p
    if metric.input_type == "multilabel":
        y = (rng.random((n, 4)) < 0.4).astype(int)
        p = np.where(rng.random((n, 4)) < 0.75, y, 1 - y)
        return y, p, p
    binary = metric.kwargs.get("average") == "binary" or metric.name in (
        "roc_auc", "positive_likelihood_ratio", "negative_likelihood_ratio")
    k = 2 if binary else 4
    y = rng.integers(0, k, n)
    if metric.input_type == "labels_proba":
        logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
        proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        return y, proba, (proba[:, 1] if k == 2 else proba)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    return y, p, p


def _mapped_scorer_names():
    return [name for name in skm.get_scorer_names() if name not in SLOW]


@pytest.mark.parametrize("name", _mapped_scorer_names())
def test_sklearn_scorers_with_statistics_take_the_fast_path(name):
    # before: every scikit-learn scorer object but five was called per resample
    scorer = skm.get_scorer(name)
    metric = as_metric(scorer)
    assert metric.has_statistics or metric.ranking is not None
    assert metric.greater_is_better == (scorer._sign > 0)
    y, p, sk_p = _inputs(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = metric(y, p)
        theirs = scorer._score_func(y, sk_p, **scorer._kwargs)
    assert ours == pytest.approx(theirs, abs=1e-12, rel=1e-12)


@pytest.mark.parametrize("name", sorted(SLOW))
def test_what_stays_slow_is_listed(name):
    assert not as_metric(skm.get_scorer(name)).has_statistics


def test_a_registered_configuration_is_the_registered_metric():
    assert as_metric(skm.get_scorer("f1_macro")) is get_metric("f1_macro")
    assert as_metric(skm.make_scorer(skm.jaccard_score, average="weighted")) is \
        get_metric("jaccard_weighted")
    assert as_metric(skm.get_scorer("neg_mean_absolute_error")) is \
        get_metric("mean_absolute_error")
    assert as_metric(skm.matthews_corrcoef) is get_metric("matthews_corrcoef")


FBETA = [({"beta": 2}, "fbeta_score(beta=2)"),
         ({"beta": 0.5, "average": "macro"}, "fbeta_score(beta=0.5, average='macro')"),
         ({"beta": 3.7, "average": "weighted"}, None), ({"beta": 0, "average": "micro"}, None),
         ({"beta": 2, "average": "binary", "pos_label": 0}, None)]


@pytest.mark.parametrize("kw, shown", FBETA)
def test_fbeta_scorer_is_fast_shows_its_keywords_and_equals_sklearn(kw, shown):
    metric = as_metric(skm.make_scorer(skm.fbeta_score, **kw))
    assert metric.has_statistics and metric.cellwise
    assert metric.name == (shown or metric.name) and metric.name.startswith("fbeta_score(")
    binary = kw.get("average", "binary") == "binary"
    y, a, _ = _data(1, k=2 if binary else 4)
    assert metric(y, a) == pytest.approx(skm.fbeta_score(y, a, **kw), abs=1e-12)
    w = np.random.default_rng(2).uniform(0.2, 3, y.size)
    assert metric(y, a, sample_weight=w) == pytest.approx(
        skm.fbeta_score(y, a, sample_weight=w, **kw), abs=1e-12)


@pytest.mark.parametrize("scorer", [
    skm.make_scorer(skm.fbeta_score, beta=2),
    skm.make_scorer(skm.fbeta_score, beta=0.5, average="macro"),
    skm.make_scorer(skm.precision_score, average="micro", zero_division=0),
    skm.make_scorer(skm.jaccard_score, average="macro", zero_division=1),
], ids=["f2", "f05_macro", "precision_micro_zd", "jaccard_macro_zd"])
def test_fast_path_equals_the_slow_path_on_the_same_draws(scorer):
    # the slow path's documented draws (default_rng(seed), one batch of (B, n) indices)
    # scored by scikit-learn; the fast metric's aggregate of the same rows' statistics
    fast = as_metric(scorer)
    binary = scorer._kwargs.get("average", "binary") == "binary"
    y, a, b = _data(3, n=120, k=2 if binary else 3)
    slow = Metric("slow", scorer._score_func, kwargs=scorer._kwargs)
    B, seed = 60, 11
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow_scores = R.bootstrap_scores(prepare_paired(y, a, b, slow), B, seed=seed)
    idx = np.random.default_rng(seed).integers(0, y.size, (B, y.size))
    labels = np.unique(np.concatenate([y, a, b]))
    params = {**fast.kwargs, "labels": labels, "zero_division": 0.0}
    params.pop("pos_label", None) if not binary else params.setdefault("pos_label", 1)
    for j, pred in enumerate((a, b)):
        stats = fast.statistics(y, pred, **params)
        counts = np.stack([np.bincount(row, minlength=y.size) for row in idx])
        resampled = fast.aggregate(counts @ stats, **params)
        np.testing.assert_allclose(resampled, slow_scores[:, j], rtol=0, atol=1e-12)


def test_fbeta_scorer_in_a_test_has_statistics_and_a_name():
    y, a, b = _data(4, k=2)
    res = PairedPermutation(n_resamples=199, random_state=0).test(
        y, a, b, metric=skm.make_scorer(skm.fbeta_score, beta=2))
    assert res.metric == "fbeta_score(beta=2)"
    assert res.score_a == pytest.approx(skm.fbeta_score(y, a, beta=2), abs=1e-12)
    assert res.score_b == pytest.approx(skm.fbeta_score(y, b, beta=2), abs=1e-12)
    table = compare(y, {"a": a, "b": b}, metrics=skm.make_scorer(skm.fbeta_score, beta=2),
                    test=PairedPermutation(n_resamples=99), random_state=0).to_frame()
    assert table["metric"].tolist() == ["fbeta_score(beta=2)"]


def test_keywords_sigtest_does_not_take_the_same_way_stay_slow():
    for scorer in (skm.make_scorer(skm.f1_score, average=None),
                   skm.make_scorer(skm.f1_score, labels=[0, 1]),
                   skm.make_scorer(skm.accuracy_score, normalize=False),
                   skm.make_scorer(skm.roc_auc_score, max_fpr=0.5,
                                   response_method="predict_proba")):
        assert not as_metric(scorer).has_statistics
        assert as_metric(scorer).ranking is None
    # a wrapper of a scikit-learn function is the user's function: slow
    def fbeta_score(y_true, y_pred, **kw):
        return skm.fbeta_score(y_true, y_pred, **kw)

    wrapped = as_metric(skm.make_scorer(fbeta_score, beta=2))
    assert not wrapped.has_statistics
    assert wrapped.name == "fbeta_score(beta=2)"  # the keywords shown on the slow path too
    assert as_metric(skm.make_scorer(skm.f1_score, average=None)).name == \
        "f1_score(average=None)"
    # a label metric asked for with predict_proba is not remapped
    assert not as_metric(skm.make_scorer(skm.f1_score, response_method="predict_proba")
                         ).has_statistics


# ------------------------------------------------- one pos_label rule everywhere
@pytest.mark.parametrize("name", ["f1", "precision", "recall", "jaccard"])
def test_one_class_scorers_default_to_pos_label_one_on_binary_labels(name):
    # before: sigtest's get_scorer("f1") raised without pos_label on 0/1 labels
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(120, random_state=0)
    est = LogisticRegression().fit(X, y)
    assert get_scorer(name)(est, X, y) == pytest.approx(skm.get_scorer(name)(est, X, y),
                                                        abs=1e-12)


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1)])
def test_f1_has_one_rule_in_test_score_and_compare(labels):
    # before: metric="f1" worked in compare but raised in .test() and score()
    y, a, b = _data(5, k=2)
    lab = np.asarray(labels)
    y, a, b = lab[y], lab[a], lab[b]
    test = PairedPermutation(n_resamples=99, random_state=0)
    res = test.test(y, a, b, metric="f1")
    assert res.score_a == pytest.approx(skm.f1_score(y, a), abs=1e-12)
    assert res == test.test(y, a, b, metric="f1", pos_label=1)
    assert score(y, a, metric="f1", n_resamples=99, random_state=0).estimate == \
        pytest.approx(skm.f1_score(y, a), abs=1e-12)
    frame = compare(y, {"a": a, "b": b}, metrics="f1", test=test, random_state=0).to_frame()
    assert frame["score_a"].iloc[0] == pytest.approx(skm.f1_score(y, a), abs=1e-12)


def test_other_label_sets_need_pos_label_everywhere():
    y, a, b = _data(6, k=2)
    words = np.array(["no", "yes"])
    y, a, b = words[y], words[a], words[b]
    test = PairedPermutation(n_resamples=99, random_state=0)
    for call in (lambda: test.test(y, a, b, metric="f1"),
                 lambda: score(y, a, metric="f1", n_resamples=99),
                 lambda: compare(y, {"a": a, "b": b}, metrics="f1", test=test),
                 lambda: sigtest.metrics.f1_score(y, a, average="binary")):
        with pytest.raises(ValueError, match="'pos_label'.*defaults to 1 only"):
            call()


# ------------------------------------------------- multiclass ROC AUC on binary data
@pytest.mark.parametrize("name", ["roc_auc_ovr", "roc_auc_ovo", "roc_auc_ovr_weighted",
                                  "roc_auc_ovo_weighted"])
def test_multiclass_roc_auc_on_binary_data_is_the_binary_auc(name):
    # before: "is multiclass: ... at least 3 classes"; scikit-learn gives the binary AUC
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(150, random_state=1)
    est = LogisticRegression().fit(X, y)
    assert get_scorer(name)(est, X, y) == pytest.approx(skm.get_scorer(name)(est, X, y),
                                                        abs=1e-12)
    proba = est.predict_proba(X)
    res = BergKirkpatrickBootstrap(n_resamples=99, random_state=0).test(
        y, proba, proba ** 2, metric=name)
    assert res.score_a == pytest.approx(skm.roc_auc_score(y, proba[:, 1]), abs=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
def test_average_precision_scorer_is_the_rank_path_on_multiclass_data(average):
    # before: the slow path (the function on every resample), as the same function scores
    # multiclass data; now one-vs-rest on the rank path, equal to the scorer (the kernels
    # equal scikit-learn on the same draws: tests/engine/test_rank_kernels.py)
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(300, n_classes=3, n_informative=4, random_state=2)
    est = LogisticRegression(max_iter=500).fit(X, y)
    scorer = skm.make_scorer(skm.average_precision_score, average=average,
                             response_method="predict_proba")
    metric = as_metric(scorer if average != "macro" else skm.get_scorer("average_precision"))
    assert metric.ranking is not None
    assert metric.name == ("average_precision" if average == "macro"
                           else f"average_precision_score(average={average!r})")
    proba = est.predict_proba(X)
    assert metric(y, proba) == pytest.approx(scorer(est, X, y), abs=1e-12)
    # average="samples" (a ranking within every row) keeps the function's own path
    samples = as_metric(skm.make_scorer(skm.average_precision_score, average="samples",
                                        response_method="predict_proba"))
    assert samples.ranking is None and not samples.has_statistics


def test_docs_list_the_path_of_every_sklearn_scorer():
    # docs/metrics.md, "Any score function": one row per path; every scorer name of
    # scikit-learn is listed once, marked as sigtest takes it
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    listed = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1] in ("fast", "slow"):
            for name in re.findall(r"`([a-z0-9_]+)`", cells[0]):
                assert name not in listed, name
                listed[name] = cells[1]
    assert set(listed) == set(skm.get_scorer_names())
    for name, path in listed.items():
        metric = as_metric(skm.get_scorer(name))
        fast = metric.has_statistics or metric.ranking is not None
        assert path == ("fast" if fast else "slow"), name
