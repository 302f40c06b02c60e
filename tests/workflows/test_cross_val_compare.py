"""sigtest.cross_val_compare: same folds, out-of-fold predictions, repeats."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sigtest import PairedPermutation, compare, cross_val_compare
from sigtest.utils.validation import spawn_seeds

B = 199


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _estimators():
    return {
        "dummy": DummyClassifier(strategy="prior"),
        "nb": GaussianNB(),
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
    }


def _soft_targets(y, n_classes, seed=0):
    """Three noisy annotators, each right with probability .8 (else uniform)."""
    rng = np.random.default_rng(seed)
    votes = np.where(rng.random((3, y.size)) < 0.8, y, rng.integers(0, n_classes, (3, y.size)))
    return np.stack([(votes == k).mean(0) for k in range(n_classes)], axis=1)


def test_same_folds_oof_predictions_and_equality_with_compare(iris):
    X, y = iris
    res = cross_val_compare(_estimators(), X, y, cv=5, metrics=["accuracy", "f1_macro"],
                            test=PairedPermutation(n_resamples=B), random_state=0)
    (folds,) = res.cv_splits
    assert len(folds) == 5
    np.testing.assert_array_equal(np.sort(np.concatenate([te for _, te in folds])),
                                  np.arange(len(y)))
    for name, est in _estimators().items():
        expected = cross_val_predict(clone(est), X, y, cv=folds)
        np.testing.assert_array_equal(res.predictions[name], expected)
    # the tests ran on the pooled out-of-fold predictions with the test child seed
    direct = compare(y, res.predictions, metrics=["accuracy", "f1_macro"],
                     test=PairedPermutation(n_resamples=B), random_state=spawn_seeds(0, 2)[1])
    pd.testing.assert_frame_equal(res.to_frame(), direct.to_frame(), check_exact=True)
    assert res.letters("accuracy").index[-1] == "dummy"


def test_reproducible_and_recompare_without_refitting(iris):
    X, y = iris
    kw = dict(metrics="accuracy", test=PairedPermutation(n_resamples=B), random_state=3)
    a = cross_val_compare(_estimators(), X, y, **kw)
    b = cross_val_compare(_estimators(), X, y, **kw)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame(), check_exact=True)
    again = a.recompare(metrics=["accuracy", "f1_macro"], correction="bonferroni")
    direct = compare(y, a.predictions, metrics=["accuracy", "f1_macro"],
                     test=PairedPermutation(n_resamples=B), correction="bonferroni",
                     random_state=spawn_seeds(3, 2)[1])
    pd.testing.assert_frame_equal(again.to_frame(), direct.to_frame(), check_exact=True)


@pytest.mark.filterwarnings("ignore:Number of classes in training fold")
def test_soft_metric_uses_predict_proba_aligned_to_all_classes(iris):
    X, y = iris
    # class 2 only in the last 10 items, all in one fold: the model trained
    # without it must get a zero column for class 2 in that fold
    keep = np.r_[0:100, 140:150]
    X, y = X[keep], y[keep]
    folds = [(np.setdiff1d(np.arange(110), te), te) for te in np.array_split(np.arange(110), 11)]
    soft = _soft_targets(y, 3)
    res = cross_val_compare({"nb": GaussianNB(), "dummy": DummyClassifier()}, X, y, cv=folds,
                            metrics=["accuracy", "soft_accuracy"], soft_targets=soft,
                            test=PairedPermutation(n_resamples=B), random_state=0)
    proba = res.predictions["nb"]
    assert proba.shape == (110, 3)
    np.testing.assert_allclose(proba.sum(1), 1)
    np.testing.assert_array_equal(proba[100:, 2], 0)  # class 2 unseen when training
    summary = res.system_table()
    np.testing.assert_allclose(summary.loc["nb", "accuracy"], np.mean(proba.argmax(1) == y))


def test_repeats_give_runs_and_table_1_summary(iris):
    X, y = iris
    res = cross_val_compare(_estimators(), X, y, cv=3, n_repeats=3, metrics="accuracy",
                            test=PairedPermutation(n_resamples=B), random_state=0)
    assert res.n_runs == 3 and len(res.cv_splits) == 3
    assert not np.array_equal(res.cv_splits[0][0][1], res.cv_splits[1][0][1])
    assert all(len(p) == 3 for p in res.predictions.values())
    frame = res.to_frame()
    assert sorted(set(frame.run)) == [0, 1, 2]
    summary = res.runs_summary()
    assert len(summary) == 3 and (summary.n_runs == 3).all()
    row = summary.set_index(["system_a", "system_b"]).loc[("dummy", "logreg")]
    assert row.n_significant == 3 and row.delta_min > 0.5  # ~.33 vs ~.95 accuracy


def test_errors(iris):
    X, y = iris
    soft = _soft_targets(y, 3)
    with pytest.raises(ValueError, match="'svc'"):
        cross_val_compare({"svc": SVC(), "nb": GaussianNB()}, X, y, metrics="soft_accuracy",
                          soft_targets=soft)
    with pytest.raises(ValueError, match="soft_targets"):
        cross_val_compare(_estimators(), X, y, metrics="soft_accuracy")
    with pytest.raises(ValueError, match="soft_targets"):
        cross_val_compare(_estimators(), X, y, metrics="soft_accuracy", soft_targets=soft[:, :2])
    with pytest.raises(ValueError, match="predict_proba"):
        cross_val_compare(_estimators(), X, y, metrics="soft_accuracy", soft_targets=soft,
                          response_method="predict")
    with pytest.raises(ValueError, match="n_repeats"):
        cross_val_compare(_estimators(), X, y, cv=[(np.arange(100), np.arange(100, 150))],
                          n_repeats=2)
    with pytest.raises(ValueError, match="at least two"):
        cross_val_compare({"nb": GaussianNB()}, X, y)
    with pytest.raises(ValueError, match="n_repeats"):
        cross_val_compare(_estimators(), X, y, n_repeats=0)


def test_labels_pos_label_and_ci_are_passed_on(iris):
    from sklearn.metrics import f1_score

    X, y = iris
    yb = (y == 2).astype(int)  # one class against the rest
    ests = {"dummy": DummyClassifier(strategy="prior"), "nb": GaussianNB()}
    res = cross_val_compare(ests, X, yb, cv=3, metrics="f1", pos_label=1,
                            test=PairedPermutation(n_resamples=B), random_state=0,
                            ci="marginal")
    frame = res.to_frame()
    for name, pred in res.predictions.items():
        seen = frame.score_a.iloc[0] if frame.system_a.iloc[0] == name else frame.score_b.iloc[0]
        assert seen == pytest.approx(f1_score(yb, pred, pos_label=1, zero_division=0.0))
    with pytest.raises(ValueError, match="pos_label"):  # no metric uses it
        cross_val_compare(ests, X, yb, cv=3, metrics="accuracy", pos_label=1)
    # issue 20: accuracy and F1 in one call; pos_label defaults to 1 for {0, 1} labels
    both = cross_val_compare(ests, X, yb, cv=3, metrics=["accuracy", "f1"],
                             test=PairedPermutation(n_resamples=B), random_state=0)
    f1_rows = both.to_frame()[lambda f: f.metric == "f1"].reset_index(drop=True)
    pd.testing.assert_frame_equal(f1_rows, frame, check_exact=True)
    # an explicit class set reaches the class-averaged metrics
    three = cross_val_compare(ests, X, y, cv=3, metrics="f1_macro", labels=[0, 1],
                              test=PairedPermutation(n_resamples=B), random_state=0)
    pred = three.predictions["nb"]
    from sigtest.metrics import get_metric
    expected = get_metric("f1_macro")(y, pred, labels=[0, 1])
    row = three.to_frame().iloc[0]
    assert (row.score_b if row.system_b == "nb" else row.score_a) == pytest.approx(expected)
    simult = cross_val_compare(ests, X, y, cv=3, metrics="accuracy", ci="simultaneous",
                               random_state=0, test=(PairedPermutation(n_resamples=B),
                                                     __import__("sigtest").BCaInterval(
                                                         n_resamples=B)))
    assert simult.to_frame().ci_level.iloc[0] == pytest.approx(1 - 0.05)  # m = 1 pair


# -------------------------- issue 20: everything that needs no fit is checked before fitting
class _RecordingClassifier(DummyClassifier):
    """A classifier whose fit is recorded on the class (clones share the list)."""

    fits = []

    def fit(self, X, y, sample_weight=None):
        type(self).fits.append(len(y))
        return super().fit(X, y, sample_weight=sample_weight)


def _recording():
    return {"a": _RecordingClassifier(strategy="prior"),
            "b": _RecordingClassifier(strategy="stratified", random_state=0)}


@pytest.mark.parametrize("kwargs, match", [
    (dict(pairs="baseline", baseline="nope"), "Unknown baseline"),
    (dict(metrics="accuracy", pos_label=1), "'pos_label' parameter is only used"),
    (dict(metrics="f1"), "pass its label with the 'pos_label' parameter"),
    (dict(metrics=["accuracy", "f1_macro"], test="sign"),
     "Test 'sign' cannot run on metric 'f1_macro'"),
    (dict(metrics="f1_macro", test="mcnemar"), "McNemar compares accuracies"),
    (dict(metrics="accuracy", test=PairedPermutation(alternative="bogus")),
     "'alternative' parameter of PairedPermutation"),
    (dict(metrics="accuracy", labels=[7, 7]), "'labels' parameter must not contain duplicates"),
    (dict(metrics=["soft_accuracy", "f1_macro"], soft_targets=np.full((150, 3), 1 / 3),
          test="sign"), "Test 'sign' cannot run on metric 'f1_macro'"),
    (dict(metrics="accuracy", n_jobs=True), "'n_jobs' parameter"),
])
def test_cross_val_compare_validates_before_fitting(iris, kwargs, match):
    # before: every estimator was fitted on every fold (hours on real models),
    # then the comparison refused the options
    X, y = iris
    _RecordingClassifier.fits.clear()
    with pytest.raises(ValueError, match=match):
        cross_val_compare(_recording(), X, y, cv=3, random_state=0, **kwargs)
    assert _RecordingClassifier.fits == []


def test_cross_val_compare_still_fits_when_the_options_are_valid(iris):
    X, y = iris
    _RecordingClassifier.fits.clear()
    res = cross_val_compare(_recording(), X, y, cv=3, metrics="accuracy",
                            test=PairedPermutation(n_resamples=B), random_state=0)
    assert len(_RecordingClassifier.fits) == 2 * 3
    assert set(res.systems) == {"a", "b"}


@pytest.mark.parametrize("cv_test", [None, "corrected_t"])
def test_report_and_signature_show_the_seed_the_user_gave(iris, cv_test):
    # before: seed:seedseq(821328063), the child seed cross_val_compare derives
    # for the tests from random_state=0
    X, y = iris
    res = cross_val_compare(_estimators(), X, y, metrics="accuracy", cv_test=cv_test,
                            test=PairedPermutation(n_resamples=B), random_state=0)
    assert "|seed:0|" in res.signature()
    assert "with random seed 0." in res.report("markdown")
    again = res.recompare(alpha=0.01)  # same tests, same seed shown, same folds
    assert "|seed:0|" in again.signature() and again.cv_splits is not None
    assert again.to_frame()["pvalue"].tolist() == res.to_frame()["pvalue"].tolist()
    assert "|seed:7|" in res.recompare(random_state=7).signature()
    # the tests still use the derived seed: results as compare with it
    direct = compare(y, res.predictions, metrics="accuracy",
                     test=PairedPermutation(n_resamples=B), random_state=spawn_seeds(0, 2)[1])
    assert res.to_frame()["pvalue"].tolist() == direct.to_frame()["pvalue"].tolist()
    seq = cross_val_compare(_estimators(), X, y, metrics="accuracy", cv_test=cv_test,
                            test=PairedPermutation(n_resamples=B),
                            random_state=np.random.SeedSequence(5))
    assert "|seed:seedseq(5)|" in seq.signature()
