"""compare's options travel as one frozen object, which the result exposes and the report reads."""

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import sigtest
from sigtest import Experiment, PairedPermutation, compare, cross_val_compare
from sigtest._constants import N_RESAMPLES
from sigtest import CompareOptions

ROOT = Path(sigtest.__file__).resolve().parent
FAST = PairedPermutation(n_resamples=199)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 240
    y = rng.integers(0, 2, n)
    preds = {name: np.where(rng.random(n) < acc, y, 1 - y)
             for name, acc in (("A", 0.6), ("B", 0.7), ("C", 0.8))}
    groups = np.repeat(np.arange(40), 6)
    strata = groups % 4
    return y, preds, groups, strata


def test_options_hold_every_keyword_of_compare_with_its_default():
    params = inspect.signature(compare).parameters
    keywords = {k: p.default for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
    fields = {f.name: f.default for f in dataclasses.fields(CompareOptions)}
    assert fields == keywords


def test_result_options_are_the_validated_options(data):
    y, preds, groups, strata = data
    w = np.linspace(0.5, 1.5, len(y))
    res = compare(y, preds, metrics=["accuracy", "f1"], test=FAST, random_state=3,
                  groups=list(groups), strata=strata, sample_weight=w, pos_label=1,
                  runs="each")
    opts = res.options
    assert isinstance(opts, CompareOptions)
    assert (opts.metrics, opts.test, opts.random_state, opts.pos_label, opts.runs) == (
        ["accuracy", "f1"], FAST, 3, 1, "each")
    assert opts.correction == "auto" and res.correction == "holm"  # given vs applied
    # the arrays are read-only copies: a caller reusing its buffers changes nothing
    for given, kept in ((groups, opts.groups), (strata, opts.strata), (w, opts.sample_weight)):
        assert isinstance(kept, np.ndarray) and not kept.flags.writeable
        np.testing.assert_array_equal(kept, given)
    strata[:] = 0
    w[:] = 7.0
    assert len(np.unique(opts.strata)) == 4 and opts.sample_weight.max() == 1.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.alpha = 0.1
    with pytest.raises(AttributeError, match="immutable"):
        res.options = opts
    assert opts.asdict()["groups"] is opts.groups  # shallow, no copy


def test_recompare_starts_from_the_options_and_checks_changes(data):
    y, preds, groups, _ = data
    res = compare(y, preds, metrics="accuracy", test=FAST, random_state=1, groups=groups)
    again = res.recompare(alpha=0.01)
    before, after = res.options.asdict(), again.options.asdict()
    assert after.pop("alpha") == 0.01 and before.pop("alpha") == 0.05
    assert after.pop("groups") is before.pop("groups")  # kept, not copied again
    assert after == before
    assert again.to_frame()["pvalue"].equals(res.to_frame()["pvalue"])
    assert res.recompare(groups=None).options.groups is None
    with pytest.raises(TypeError, match="unexpected arguments \\['sample_weight'\\]"):
        res.recompare(sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match="'alpha' parameter of recompare"):
        res.recompare(alpha=2.0)
    with pytest.raises(ValueError, match="'groups'"):
        res.recompare(groups=groups[:-1])
    with pytest.raises(ValueError, match="'n_jobs' parameter"):
        res.recompare(n_jobs=0)


def test_public_accessors_of_the_report(data):
    y, preds, *_ = data
    res = compare(y, preds, metrics="accuracy", random_state=0, ci="simultaneous")
    targets = res.targets
    np.testing.assert_array_equal(targets["labels"], y)
    assert not targets["labels"].flags.writeable
    specs = res.test_specs
    assert [name for name, *_ in specs] == res.tests
    (_, ptest, itest), = specs
    # the default test for 3 pairs; the pairs ran it at the simultaneous level
    assert (ptest.n_resamples, itest.n_resamples) == (N_RESAMPLES, N_RESAMPLES)
    assert res.to_frame()["ci_level"].eq(1 - 0.05 / 3).all()
    assert res.random_state == 0
    assert "seed:0" in res.signature()


def test_report_reads_no_private_state_of_a_result():
    # the report layer reads results through their public attributes only
    # (the private inputs of a comparison are invisible to the layer test)
    private = {"_inputs", "_data", "_options"}
    for path in sorted((ROOT / "_report").rglob("*.py")):
        tree = ast.parse(path.read_text())
        found = [node.attr for node in ast.walk(tree)
                 if isinstance(node, ast.Attribute) and node.attr in private]
        assert not found, (path.name, found)


def _estimators():
    return {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}


def test_cross_val_compare_builds_the_same_options(data):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=240, random_state=0)
    _, _, groups, strata = data
    kw = dict(cv=3, metrics=["accuracy", "f1"], test=FAST, random_state=0, groups=groups,
              strata=strata, pos_label=1)
    one = cross_val_compare(_estimators(), X, y, n_jobs=1, **kw)
    two = cross_val_compare(_estimators(), X, y, n_jobs=2, **kw)
    assert one.to_frame().equals(two.to_frame())  # n_jobs works and changes nothing
    opts = one.options
    assert (opts.runs, opts.pos_label, opts.n_jobs, two.options.n_jobs) == ("each", 1, 1, 2)
    np.testing.assert_array_equal(opts.groups, groups)
    np.testing.assert_array_equal(opts.strata, strata)
    assert one.n_groups == 40 and one.n_strata == 4
    # the seed shown is the one given; the tests' child seed is in the options
    assert one.random_state == 0 and opts.random_state != 0
    assert "seed:0" in one.signature()


def test_cross_val_compare_says_why_it_has_no_sample_weight(data):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=60, random_state=0)
    assert "There is no ``sample_weight``" in cross_val_compare.__doc__
    with pytest.raises(TypeError, match=r"^cross_val_compare\(\) takes no 'sample_weight': "
                                        "weights would have to reach the estimators' fits"):
        cross_val_compare(_estimators(), X, y, sample_weight=np.ones(60))
    with pytest.raises(ValueError, match="'n_jobs' parameter"):
        cross_val_compare(_estimators(), X, y, n_jobs=0)


def test_experiment_run_takes_compare_options_and_says_why_not_the_others(tmp_path, data):
    y, preds, groups, strata = data
    exp = Experiment(tmp_path / "s")
    # an invalid option fails as in compare, before the store is read
    with pytest.raises(ValueError, match="'alpha' parameter of Experiment.run"):
        exp.run(alpha=2.0)
    with pytest.raises(TypeError, match=r"^Experiment\.run\(\) takes no 'sample_weight': "
                                        "the store keeps the gold without item weights"):
        exp.run(sample_weight=np.ones(len(y)))
    for option in ("groups", "strata"):
        with pytest.raises(TypeError, match=rf"^Experiment\.run\(\) takes no '{option}': "
                                            rf"the {option} are data: store them .*feed"):
            exp.run(**{option: np.ones(len(y))})
    doc = Experiment.run.__doc__
    assert "There is no ``sample_weight``" in doc and "``groups`` and ``strata`` are not" in doc
    for i, (name, pred) in enumerate(preds.items()):
        exp.feed(name, pred, y_true=y if i == 0 else None,
                 **({"groups": groups, "strata": strata} if i == 0 else {}))
    res = exp.run(metrics=["accuracy", "f1"], test=FAST, random_state=4, pos_label=1, n_jobs=2)
    want = compare(y, preds, metrics=["accuracy", "f1"], test=FAST, random_state=4,
                   pos_label=1, groups=groups, strata=strata)
    assert res.to_frame().equals(want.to_frame())
    assert (res.options.pos_label, res.options.n_jobs) == (1, 2)
    np.testing.assert_array_equal(res.options.groups, groups)


def test_cross_val_compare_prediction_method_is_response_method():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=60, random_state=0)
    params = inspect.signature(cross_val_compare).parameters
    assert params["response_method"].default == "auto" and "method" not in params
    with pytest.raises(TypeError, match="old keyword 'method'; it is now 'response_method'"):
        cross_val_compare(_estimators(), X, y, method="predict")
    res = cross_val_compare(_estimators(), X, y, cv=2, metrics="accuracy", test=FAST,
                            response_method="predict_proba", random_state=0)
    assert all(np.asarray(p).ndim == 2 for p in res.predictions.values())
