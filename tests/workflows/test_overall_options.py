"""``overall=`` as one of compare's options: kept in ``result.options``, taken by
``Experiment.run`` over the stored strata, refused by ``cross_val_compare`` (with why)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import sigtest
from sigtest import Experiment, cross_val_compare
from sigtest.tests_ import BCaInterval, PairedPermutation


def _quick():
    return (PairedPermutation(n_resamples=199), BCaInterval(n_resamples=499))


@pytest.fixture
def suite():
    rng = np.random.default_rng(5)
    strata = np.repeat([0, 1, 2], [30, 90, 180])
    p = {"a": [0.8, 0.5, 0.6], "b": [0.5, 0.6, 0.7]}
    scores = {s: (rng.random(strata.size) < np.asarray(q)[strata]).astype(float)
              for s, q in p.items()}
    return scores, strata


def test_options_keep_overall_and_the_weights_used_and_recompare_starts_from_those_given(
        suite):
    scores, strata = suite
    w = np.linspace(0.5, 1.5, strata.size)
    res = sigtest.compare(None, scores, metrics="mean", strata=strata, sample_weight=w,
                          overall="macro", test=_quick(), random_state=0)
    opts = res.options
    assert opts.overall == "macro"
    # naive twin of the macro weights: w_i * (N / T) / W_t(i), each task summing to N / T
    per_task = pd.Series(w).groupby(strata).transform("sum").to_numpy()
    np.testing.assert_allclose(opts.sample_weight, w * (strata.size / 3) / per_task,
                               rtol=1e-15)
    assert not opts.sample_weight.flags.writeable
    # the options repeat the comparison: deriving macro weights again from the
    # derived ones (task sums equal up to rounding) leaves them unchanged
    again = sigtest.compare(None, scores, **opts.asdict())
    np.testing.assert_array_equal(again.options.sample_weight, opts.sample_weight)
    pd.testing.assert_frame_equal(again.to_frame(), res.to_frame())
    # a rerun starts from the weights given, not the derived ones
    micro = res.recompare(overall="micro")
    assert micro.options.overall == "micro"
    np.testing.assert_array_equal(micro.options.sample_weight, w)
    plain = sigtest.compare(None, scores, metrics="mean", test=_quick(), random_state=0)
    unweighted = plain.recompare(strata=strata, overall="macro")
    assert unweighted.options.sample_weight is not None
    assert unweighted.recompare(overall=None).options.sample_weight is None
    with pytest.raises(ValueError, match="'overall' parameter of recompare"):
        res.recompare(overall="weighted")


def test_experiment_run_takes_overall_over_the_stored_strata(tmp_path, suite):
    scores, strata = suite
    y = np.arange(strata.size) % 2
    preds = {name: np.where(s == 1, y, 1 - y) for name, s in scores.items()}  # right iff 1
    exp = Experiment(tmp_path / "store")
    with pytest.raises(ValueError, match="'overall' parameter of Experiment.run"):
        exp.run(overall="weighted")  # checked before the store is read
    for i, (name, pred) in enumerate(preds.items()):
        exp.feed(name, pred, y_true=y if i == 0 else None,
                 **({"strata": strata} if i == 0 else {}))
    res = exp.run(metrics="accuracy", test=_quick(), random_state=3, overall="macro")
    want = sigtest.compare(y, preds, metrics="accuracy", test=_quick(), random_state=3,
                           strata=strata, overall="macro")
    pd.testing.assert_frame_equal(res.to_frame(), want.to_frame())
    assert res.options.overall == "macro"
    macro = {name: np.mean([s[strata == t].mean() for t in range(3)])
             for name, s in scores.items()}
    got = res.scores().set_index("system")["score"]
    assert all(got[name] == pytest.approx(v, abs=1e-12) for name, v in macro.items())
    assert exp.load_outcomes()["parameters"]["overall"] == "macro"
    bare = Experiment(tmp_path / "bare")
    for i, (name, pred) in enumerate(preds.items()):
        bare.feed(name, pred, y_true=y if i == 0 else None)
    with pytest.raises(ValueError, match="none are stored: feed the gold with strata="):
        bare.run(metrics="accuracy", overall="micro")


def test_cross_val_compare_refuses_overall_and_says_what_to_use():
    X, y = make_classification(n_samples=90, random_state=0)
    estimators = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    strata = np.arange(90) % 3
    assert "Nor is there an\n        ``overall``" in cross_val_compare.__doc__
    with pytest.raises(TypeError, match="takes no 'overall'.*sigtest.compare"):
        cross_val_compare(estimators, X, y, strata=strata, overall="macro")
    res = cross_val_compare(estimators, X, y, cv=3, metrics="accuracy", strata=strata,
                            test=PairedPermutation(n_resamples=199), random_state=0)
    with pytest.raises(ValueError, match="'overall' parameter.*cross_val_compare result"):
        res.recompare(overall="micro")
