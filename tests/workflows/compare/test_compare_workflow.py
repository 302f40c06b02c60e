"""compare's workflow modules (plan / run / assemble), the experiment store,
warnings that point at the user's call, the immutable ComparisonResult, and
one input path shared with ``SignificanceTest.test``."""

import json
import os
import warnings

import numpy as np
import pytest

from sigtest import (
    BCaInterval,
    Experiment,
    PairedPermutation,
    compare,
    cross_val_compare,
)

B = 99


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, y, rng.integers(0, 3, n))
    return y, a, b


def _fast():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


# ------------------------------------------------------- warnings location
def _located_here(caught, category=Warning, match=""):
    hits = [w for w in caught if issubclass(w.category, category) and match in str(w.message)]
    assert hits, [str(w.message) for w in caught]
    for w in hits:
        assert os.path.abspath(w.filename) == os.path.abspath(__file__), (w.filename, w.message)
    return hits


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_worker_warning_of_compare_points_at_the_call(n_jobs):
    # identical systems: the permutation distribution is degenerate (warned in
    # the worker, re-emitted by compare in the caller)
    y, a, _ = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(y, {"A": a, "B": a.copy()}, metrics="accuracy", test=_fast(),
                random_state=0, n_jobs=n_jobs)
    _located_here(caught, match="single point")


def test_plan_and_assemble_warnings_point_at_the_call():
    y, a, b = _data()
    b = b.copy()
    b[:3] = 9  # a label outside the gold set: warned while planning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(y, {"A": a, "B": b, "C": a[::-1].copy()}, metrics="f1_macro",
                      test=PairedPermutation(n_resamples=9), random_state=0)
    _located_here(caught, UserWarning, "absent from")
    _located_here(caught, UserWarning, "n_resamples")  # too few for the family (assemble)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res.recompare(random_state=1)
    _located_here(caught, UserWarning, "n_resamples")


def test_pool_warning_points_at_the_call():
    y, a, b = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(y, {"A": [a, b], "B": [b, a]}, metrics="accuracy", test=_fast(),
                runs="pool", random_state=0)
    _located_here(caught, UserWarning, "runs='pool'")


def test_experiment_run_warnings_point_at_the_call(tmp_path):
    y, a, _ = _data()
    exp = Experiment(tmp_path)
    exp.feed("A", a, y_true=y)
    exp.feed("B", a[:100].copy(), ids=np.arange(100))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exp.run(metrics="accuracy", test=_fast(), on_missing="intersect")
    _located_here(caught, UserWarning, "on_missing='intersect'")  # the store
    _located_here(caught, match="single point")  # compare's worker, through Experiment.run


# ------------------------------------------------- outcomes.json seed scheme
def test_outcomes_seed_scheme_describes_what_compare_does(tmp_path):
    """Recompute every row of an Experiment.run from the scheme text it saved."""
    from sigtest.utils.validation import spawn_seeds

    rng = np.random.default_rng(3)
    n = 150
    y = rng.integers(0, 3, n)
    systems = {name: np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
               for name, acc in (("zeta", 0.5), ("alpha", 0.7), ("mid", 0.8))}
    exp = Experiment(tmp_path)
    for name, pred in systems.items():  # fed in an order that is not sorted
        exp.feed(name, pred, y_true=y)
    metrics = ["f1_macro", "accuracy"]
    exp.run(metrics=metrics, random_state=7,
            test=[(PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B)),
                  BCaInterval(n_resamples=B)])
    outcomes = json.loads((tmp_path / "outcomes.json").read_text())
    scheme = outcomes["seeds"]["scheme"]
    # the text says run -> pair -> test role, with pairs in sorted-name order ...
    assert "run -> pair -> test role" in scheme and "metric ->" not in scheme
    assert "sorted by system names" in scheme and "every metric of a pair" in scheme
    # ... and that is what the code does: n_roles = 2 (permutation+bca) + 1 (bca)
    seeds = spawn_seeds(outcomes["seeds"]["random_state"], 1 * 3 * 3)
    canonical = [("alpha", "mid"), ("alpha", "zeta"), ("mid", "zeta")]
    records = outcomes["records"]
    for k, (a, b) in enumerate(canonical):
        s_perm, s_bca_pair, s_bca = seeds[3 * k: 3 * k + 3]
        for metric in metrics:
            labels = np.unique(y)
            p = PairedPermutation(n_resamples=B, random_state=s_perm).test(
                y, systems[a], systems[b], metric=metric, labels=labels)
            ci = BCaInterval(n_resamples=B, random_state=s_bca_pair).test(
                y, systems[a], systems[b], metric=metric, labels=labels)
            alone = BCaInterval(n_resamples=B, random_state=s_bca).test(
                y, systems[a], systems[b], metric=metric, labels=labels)
            # the store lists pairs in feed order (A fed first): orient back
            flip = list(systems).index(a) > list(systems).index(b)
            first, second = (b, a) if flip else (a, b)
            rows = {r["test"]: r for r in records if r["metric"] == metric
                    and (r["system_a"], r["system_b"]) == (first, second)}
            sign = -1.0 if flip else 1.0
            row = rows["permutation+bca"]
            assert row["pvalue"] == p.pvalue
            lo, hi = ci.confidence_interval
            assert (row["ci_low"], row["ci_high"]) == ((-hi, -lo) if flip else (lo, hi))
            row = rows["bca"]
            assert row["pvalue"] == alone.pvalue
            lo, hi = alone.confidence_interval
            assert (row["ci_low"], row["ci_high"]) == ((-hi, -lo) if flip else (lo, hi))
            assert row["delta"] == sign * alone.delta


# ------------------------------------------------- immutable ComparisonResult
PUBLIC_ATTRIBUTES = ["systems", "metrics", "tests", "alpha", "correction", "pairs", "n_runs",
                     "ci", "predictions"]


@pytest.fixture(scope="module")
def result():
    y, a, b = _data()
    return compare(y, {"A": a, "B": b, "C": a[::-1].copy()}, metrics=["accuracy", "f1_macro"],
                   test=_fast(), random_state=0)


@pytest.mark.parametrize("name", PUBLIC_ATTRIBUTES + ["to_frame", "letters", "new_attribute"])
def test_comparison_result_attributes_cannot_be_set(result, name):
    before = str(result)
    with pytest.raises(AttributeError, match="immutable"):
        setattr(result, name, None)
    with pytest.raises(AttributeError):
        delattr(result, name)
    assert str(result) == before


def test_comparison_result_returns_copies(result):
    before = result.to_frame()
    frame = result.to_frame()
    frame.loc[:, "pvalue"] = 0.0
    frame.loc[:, "significant"] = True
    del frame["delta"]
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(result.to_frame(), before)
    letters = result.letters("accuracy")
    # mutable containers handed out are copies
    result.systems.append("Z")
    result.metrics.clear()
    result.tests.append("x")
    result.predictions.pop("A")
    assert result.systems == ["A", "B", "C"] and result.metrics == ["accuracy", "f1_macro"]
    assert result.tests == ["permutation+bca"] and list(result.predictions) == ["A", "B", "C"]
    # the stored predictions are read-only
    with pytest.raises(ValueError, match="read-only"):
        result.predictions["A"][0] = 99
    pd_testing.assert_frame_equal(result.letters("accuracy"), letters)
    pd_testing.assert_frame_equal(result.to_frame(), before)


def test_comparison_result_does_not_share_the_callers_arrays():
    y, a, b = _data()
    a_in = a.copy()
    res = compare(y, {"A": a_in, "B": b}, metrics="accuracy", test=_fast(), random_state=0)
    a_in[:] = 0  # the caller reuses its buffer
    np.testing.assert_array_equal(res.predictions["A"], a)
    np.testing.assert_array_equal(res.recompare().to_frame()["score_a"],
                                  res.to_frame()["score_a"])


# ------------------------------------------------------- one input path
def _both_raise(y, a, b, metric, **kwargs):
    """The error of ``test()`` and of ``compare`` on the same input.

    ``compare`` checks each system as ``y_pred_a`` against itself, so the
    bad system ``a`` is given to ``test()`` in both places.
    """
    with pytest.raises((ValueError, TypeError)) as from_test:
        PairedPermutation(n_resamples=B).test(y, a, a, metric=metric, **kwargs)
    with pytest.raises((ValueError, TypeError)) as from_compare:
        compare(y, {"A": a, "B": b}, metrics=metric, test=PairedPermutation(n_resamples=B),
                **kwargs)
    return from_test.value, from_compare.value


def _strings_2d(n):
    return np.array([["x", "y", "z"]] * n)


def _soft_nan(n):
    p = np.full((n, 3), 1 / 3)
    p[4, 1] = np.nan
    return p


def _soft(n):
    return np.full((n, 3), 1 / 3)


BAD_INPUTS = {
    # name: (y_true, y_pred_a, y_pred_b, metric, kwargs)
    "2-D strings, hard metric": (
        np.arange(30) % 3, _strings_2d(30), np.arange(30) % 3, "accuracy", {}),
    "2-D strings, soft metric": (
        np.eye(3)[np.arange(30) % 3], _strings_2d(30), _soft(30), "soft_accuracy", {}),
    "length mismatch": (np.arange(30) % 3, np.arange(29) % 3, np.arange(30) % 3,
                        "accuracy", {}),
    "empty input": (np.array([], dtype=int), np.array([], dtype=int), np.array([], dtype=int),
                    "accuracy", {}),
    "NaN in soft predictions": (
        np.eye(3)[np.arange(30) % 3], _soft_nan(30), _soft(30), "soft_accuracy", {}),
    "labels with duplicates": (np.arange(30) % 3, np.arange(30) % 3, (np.arange(30) + 1) % 3,
                               "f1_macro", {"labels": [0, 1, 1, 2]}),
    "empty labels": (np.arange(30) % 3, np.arange(30) % 3, (np.arange(30) + 1) % 3,
                     "f1_macro", {"labels": []}),
    "2-D string y_true, hard metric": (
        np.array([["x", "y", "z"]] * 30), np.arange(30) % 3, np.arange(30) % 3, "accuracy", {}),
    "2-D string y_true, soft metric": (
        np.array([["x", "y", "z"]] * 30), _soft(30), _soft(30), "soft_accuracy", {}),
    "NaN in soft y_true": (_soft_nan(30), _soft(30), _soft(30), "soft_accuracy", {}),
    "mixed label types": (np.arange(30) % 3, np.array(["a", "b", "c"] * 10),
                          np.arange(30) % 3, "accuracy", {}),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_same_bad_input_same_error_in_test_and_compare(case):
    y, a, b, metric, kwargs = BAD_INPUTS[case]
    from_test, from_compare = _both_raise(y, a, b, metric, **kwargs)
    assert type(from_compare) is type(from_test), (from_test, from_compare)
    # the engine's words, with the system (and the argument it was checked
    # as) named in front when the input is a system's
    assert str(from_compare).endswith(str(from_test)), (str(from_test), str(from_compare))
    if "y_true" in case or case.startswith("empty"):  # not a system's fault
        assert str(from_compare) == str(from_test)
    elif "'y_pred_a'" in str(from_test) or case.startswith(("2-D", "NaN", "mixed")):
        assert str(from_compare).startswith("System 'A'")


@pytest.mark.parametrize("entry", ["recompare", "experiment", "cross_val"])
def test_other_entry_points_use_the_same_check(tmp_path, entry):
    y = np.arange(60) % 3
    good = {"A": y.copy(), "B": (y + 1) % 3}
    if entry == "recompare":
        res = compare(y, good, metrics="accuracy", test=PairedPermutation(n_resamples=B))
        with pytest.raises(ValueError) as from_compare:
            res.recompare(metrics="f1_macro", labels=[])
        with pytest.raises(ValueError) as from_test:
            PairedPermutation(n_resamples=B).test(y, good["A"], good["B"], metric="f1_macro",
                                                   labels=[])
        assert str(from_compare.value).endswith(str(from_test.value))
    elif entry == "experiment":
        exp = Experiment(tmp_path)
        exp.feed("A", good["A"], y_true=y)
        exp.feed("B", good["B"])
        with pytest.raises(ValueError) as from_exp:
            exp.run(metrics="f1_macro", labels=[], test=PairedPermutation(n_resamples=B))
        with pytest.raises(ValueError) as from_test:
            PairedPermutation(n_resamples=B).test(y, good["A"], good["B"], metric="f1_macro",
                                                   labels=[])
        assert str(from_exp.value).endswith(str(from_test.value))
    else:
        from sklearn.dummy import DummyClassifier

        X = np.zeros((60, 1))
        ests = {"a": DummyClassifier(strategy="most_frequent"),
                "b": DummyClassifier(strategy="stratified", random_state=0)}
        with pytest.raises(ValueError) as from_cv:
            cross_val_compare(ests, X, y, cv=3, metrics="f1_macro", labels=[],
                              test=PairedPermutation(n_resamples=B))
        with pytest.raises(ValueError) as from_test:
            PairedPermutation(n_resamples=B).test(y, good["A"], good["B"], metric="f1_macro",
                                                   labels=[])
        assert str(from_cv.value).endswith(str(from_test.value))


def test_class_set_union_is_the_metrics_union():
    from sigtest.metrics._common import union_labels

    y = np.array(["b", "a", "c"] * 20)
    preds = {"A": y.copy(), "B": np.where(np.arange(60) < 3, "zz", y)}
    # accuracy uses no class set: a label absent from the gold is just an error,
    # so no warning (it is given when a per-class average drops such labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = compare(y, preds, metrics=["accuracy"], test=PairedPermutation(n_resamples=B))
    with pytest.warns(UserWarning, match="absent from"):
        compare(y, preds, metrics=["accuracy", "f1_macro"], test=PairedPermutation(n_resamples=B))
    direct = PairedPermutation(n_resamples=B).test(
        y, preds["A"], preds["B"], metric="accuracy", labels=union_labels(y, *preds.values()))
    row = res.to_frame().iloc[0]
    assert (row.score_a, row.score_b) == (direct.score_a, direct.score_b)


# ------------------------------------------------------------ sample_weight
def test_compare_sample_weight_equals_weighted_tests():
    y, a, b = _data(n=150, seed=5)
    w = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    w[0] = 1.0
    preds = {"A": a, "B": b}
    res = compare(y, preds, metrics=["accuracy", "f1_macro"], test=_fast(), random_state=3,
                  sample_weight=w)
    seeds = __import__("sigtest.utils.validation", fromlist=["spawn_seeds"]).spawn_seeds(3, 2)
    frame = res.to_frame()
    for metric in ("accuracy", "f1_macro"):
        labels = np.unique(y)
        p = PairedPermutation(n_resamples=B, random_state=seeds[0]).test(
            y, a, b, metric=metric, labels=labels, sample_weight=w)
        ci = BCaInterval(n_resamples=B, random_state=seeds[1]).test(
            y, a, b, metric=metric, labels=labels, sample_weight=w)
        row = frame[frame.metric == metric].iloc[0]
        assert (row.score_a, row.score_b, row.pvalue) == (p.score_a, p.score_b, p.pvalue)
        assert (row.ci_low, row.ci_high) == tuple(ci.confidence_interval)
    # weighted differs from unweighted; recompare keeps the weights
    plain = compare(y, preds, metrics="accuracy", test=_fast(), random_state=3).to_frame()
    assert plain.score_a[0] != frame[frame.metric == "accuracy"].score_a.iloc[0]
    again = res.recompare().to_frame()
    assert again.equals(frame)


@pytest.mark.parametrize("weights", [
    np.zeros(120),                       # zero sum: no score is defined
    np.array(["1"] * 120),               # strings
    np.ones(119),                        # length
    np.r_[-1.0, np.ones(119)],           # negative
])
def test_compare_bad_sample_weight_same_error_as_test(weights):
    y, a, b = _data()
    with pytest.raises((ValueError, TypeError)) as from_test:
        PairedPermutation(n_resamples=B).test(y, a, b, sample_weight=weights)
    with pytest.raises((ValueError, TypeError)) as from_compare:
        compare(y, {"A": a, "B": b}, metrics="accuracy", sample_weight=weights,
                test=PairedPermutation(n_resamples=B))
    assert type(from_compare.value) is type(from_test.value)
    assert str(from_compare.value) == str(from_test.value)


def test_compare_sample_weight_refused_with_averaged_runs():
    y, a, b = _data()
    with pytest.raises(ValueError, match="sample_weight.*runs='average'"):
        compare(y, {"A": [a, b], "B": [b, a]}, metrics="accuracy",
                sample_weight=np.ones(len(y)), test=_fast())


def test_immutable_result_pickles_and_copies(result):
    import copy
    import pickle

    for clone in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
        assert clone.to_frame().equals(result.to_frame())
        assert clone.systems == result.systems and clone.tests == result.tests
        with pytest.raises(AttributeError, match="immutable"):
            clone.alpha = 0.5
