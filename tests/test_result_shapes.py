"""Every public result type follows the rules of ``docs/design.md`` ("Result shapes").

One rule per verb, checked by introspection on real small results: ``summary()``
returns the text of ``str(result)``; ``to_dict()`` returns plain Python types
that ``json.dumps`` accepts; the table-like results have ``to_frame()``; one
name per quantity (no result spells the number of items, the level or the
Bayesian probabilities another way); ``ci`` is always the interval method;
the compact letter display has one shape; every plotting function takes
``ax`` as a keyword with default None and returns the Axes it drew on.
"""

import dataclasses
import inspect
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import cv

#: Results that hold a table (rows of pairs or of systems): they have ``to_frame()``.
TABLE_LIKE = {"ComparisonResult", "DatasetComparisonResult"}

#: One name per quantity: a result attribute never uses the name on the left
#: (the name on the right is the one every result uses).
FORBIDDEN = {
    "n_items": "n_samples",
    "n_obs": "n_samples",
    "interval_level": "confidence_level",
    "ci_level": "confidence_level",
    "level": "confidence_level",
    "p_value": "pvalue",
    "pval": "pvalue",
    "probabilities": "prob_worse, prob_equivalent, prob_better",
    "left": "prob_worse",
    "right": "prob_better",
    "mean": "mean_difference",
    "diff": "delta",
    "difference": "delta",
}

#: The exceptions, each for a reason: the size of a *planned* test set (what the power
#: functions solve for) is not a count of given data.
ALLOWED = {("PowerResult", "n_items")}

PROBS = ("prob_worse", "prob_equivalent", "prob_better")


def _public_result_names():
    names = {n for n in sigtest.__all__ if n.endswith(("Result", "Posterior"))}
    return names | {n for n in cv.__all__ if n.endswith("Result")}


@pytest.fixture(scope="module")
def results():
    """One real result of every public result type (B better than A where it has a side)."""
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.70, y, 1 - y)
    b = np.where(rng.random(n) < 0.85, y, 1 - y)
    c = np.where(rng.random(n) < 0.75, y, 1 - y)
    table = pd.DataFrame({"A": [.71, .62, .80, .55, .67, .70, .64, .58, .73, .61, .69],
                          "B": [.79, .70, .86, .63, .74, .78, .71, .66, .80, .70, .76],
                          "C": [.72, .61, .82, .57, .66, .71, .66, .57, .74, .63, .70]})
    fold_a = rng.uniform(0.70, 0.75, 10)
    fold_b = fold_a + rng.normal(0.03, 0.005, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {
            "SignificanceResult": sigtest.BCaInterval(n_resamples=999, random_state=0).test(
                y, a, b),
            "ScoreResult": sigtest.score(y, b, n_resamples=999, random_state=0),
            "ComparisonResult": sigtest.compare(
                y, {"A": a, "B": b, "C": c}, metrics="accuracy",
                test=sigtest.PairedPermutation(n_resamples=199), random_state=0),
            "DatasetComparisonResult": sigtest.compare_datasets(table),
            "DatasetPosterior": sigtest.compare_datasets(table).bayesian(
                "A", "B", rope=0.01, random_state=0,
                **{_draws_keyword(): 2000}),
            "PowerResult": sigtest.power(y, a, effect=0.05, n_simulations=20, random_state=0),
            "CVTestResult": cv.corrected_resampled_ttest(fold_a, fold_b, n_train=90,
                                                         n_test=10),
            "BayesianCVResult": cv.bayesian_correlated_ttest(fold_a, fold_b, n_train=90,
                                                             n_test=10, rope=0.005),
            "ASOResult": sigtest.almost_stochastic_order(fold_a, fold_b, n_resamples=200,
                                                         random_state=0),
            "CochranQResult": sigtest.cochrans_q(y, {"A": a, "B": b, "C": c}),
        }
        out["SignificanceResult (Bayesian)"] = sigtest.BayesianBootstrap(
            rope=0.01, n_resamples=2000, random_state=0).test(y, a, b)
    return out


def _draws_keyword():
    """The keyword of the number of posterior draws (the parameter names are not this test's)."""
    params = inspect.signature(sigtest.DatasetComparisonResult.bayesian).parameters
    return "n_draws" if "n_draws" in params else "n_samples"


def _type_name(key):
    return key.split(" ")[0]


def _attributes(result):
    """Public attribute names: fields, properties, methods."""
    return {n for n in dir(result) if not n.startswith("_")}


def _plain(value, where):
    """Fail unless ``value`` is built from dict, list, str, int, float, bool and None."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert type(k) is str, f"{where}: key {k!r} is {type(k).__name__}"
            _plain(v, f"{where}[{k!r}]")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _plain(v, f"{where}[{i}]")
    else:
        assert value is None or type(value) in (str, int, float, bool), (
            f"{where} is {type(value).__name__}, not a plain Python type")


def test_every_public_result_type_is_checked(results):
    checked = {_type_name(k) for k in results}
    assert _public_result_names() <= checked, _public_result_names() - checked


def test_summary_is_the_text_of_str(results):
    for key, res in results.items():
        text = res.summary()
        assert isinstance(text, str) and text == str(res), key
        assert len(text) > 20, key


def test_to_dict_is_plain_and_json_serialisable(results):
    for key, res in results.items():
        out = res.to_dict()
        assert isinstance(out, dict) and out, key
        _plain(out, f"{key}.to_dict()")
        assert json.loads(json.dumps(out)) is not None  # NaN allowed, as json does


def test_table_like_results_have_to_frame(results):
    for key, res in results.items():
        name = _type_name(key)
        if name in TABLE_LIKE:
            frame = res.to_frame()
            assert isinstance(frame, pd.DataFrame) and len(frame) > 0, key
            assert frame is not res.to_frame(), key  # a copy each time


def test_one_name_per_quantity(results):
    for key, res in results.items():
        attrs = _attributes(res)
        used = sorted(n for n in attrs & set(FORBIDDEN) if (_type_name(key), n) not in ALLOWED)
        assert not used, f"{key} has {used}; the results call them " + ", ".join(
            FORBIDDEN[u] for u in used)
    # the same quantities under the same names where the results hold them
    sig, score = results["SignificanceResult"], results["ScoreResult"]
    assert sig.n_samples == score.n_samples == 300 == results["CochranQResult"].n_samples
    assert sig.to_dict()["n_samples"] == score.to_dict()["n_samples"] == 300
    assert results["PowerResult"].n_items == 300  # the planned size: the pilot's here
    for key in ("SignificanceResult", "ScoreResult", "PowerResult", "ASOResult"):
        assert 0 < results[key].confidence_level < 1, key
    for key in ("SignificanceResult", "ScoreResult"):
        assert isinstance(results[key].confidence_interval, sigtest.ConfidenceInterval)
        d = results[key].to_dict()
        assert (d["ci_low"], d["ci_high"]) == tuple(results[key].confidence_interval)
    fold, bayes = results["CVTestResult"], results["BayesianCVResult"]
    assert fold.mean_difference == pytest.approx(bayes.mean_difference, rel=1e-12)
    for key in ("SignificanceResult", "CVTestResult", "CochranQResult"):
        assert np.isfinite(results[key].pvalue) and hasattr(results[key], "statistic"), key


def test_bayesian_probabilities_have_one_name_and_say_b_better(results):
    bayesian = {k: r for k, r in results.items() if all(hasattr(r, p) for p in PROBS)
                and getattr(r, "prob_better", None) is not None}
    assert {"SignificanceResult (Bayesian)", "BayesianCVResult", "DatasetPosterior"} <= set(
        bayesian)
    for key, res in bayesian.items():
        probs = [getattr(res, p) for p in PROBS]
        assert sum(probs) == pytest.approx(1.0, abs=1e-9), key
        # B is clearly better than A in every fixture: "better" is B better
        assert res.prob_better == max(probs) and res.prob_better > 0.5, (key, probs)
        assert {p: res.to_dict()[p] for p in PROBS} == dict(zip(PROBS, probs)), key


def test_ci_is_always_the_interval_method(results):
    for key, res in results.items():
        if hasattr(res, "ci"):
            assert callable(res.ci), f"{key}.ci is not the interval method"
            low, high = res.ci(0.9)
            assert low <= high, key
    assert results["ComparisonResult"].ci_coverage == "marginal"


def test_letters_have_one_shape(results):
    res = results["ComparisonResult"]
    letters = res.letters()
    frame = res.to_frame()
    names = list(res.systems)
    p = pd.DataFrame(1.0, index=names, columns=names)
    for row in frame.itertuples():
        p.loc[row.system_a, row.system_b] = p.loc[row.system_b, row.system_a] = row.pvalue_adj
    scores = dict(zip(frame.system_a, frame.score_a)) | dict(zip(frame.system_b, frame.score_b))
    other = sigtest.compact_letters(p, scores=scores, alpha=res.alpha)
    assert isinstance(letters, pd.DataFrame) and isinstance(other, pd.DataFrame)
    assert list(letters.columns) == list(other.columns) == ["score", "letters"]
    assert letters.index.name == other.index.name == "system"
    pd.testing.assert_frame_equal(letters, other)


def _plot_calls(results):
    return {
        "plot_resampling_distribution": (results["SignificanceResult"],),
        "plot_comparison": (results["ComparisonResult"],),
        "plot_posterior": (results["SignificanceResult (Bayesian)"],),
        "plot_pvalue_heatmap": (results["ComparisonResult"],),
        "plot_letters": (results["ComparisonResult"],),
        "plot_simplex": (results["DatasetPosterior"],),
        "plot_critical_difference": (results["DatasetComparisonResult"],),
    }


def test_every_plot_takes_ax_by_keyword_and_returns_it(results):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    from sigtest import plotting

    calls = _plot_calls(results)
    assert set(calls) == set(plotting.__all__)
    for name, args in calls.items():
        func = getattr(plotting, name)
        ax_param = inspect.signature(func).parameters["ax"]
        assert ax_param.kind is inspect.Parameter.KEYWORD_ONLY and ax_param.default is None, name
        fig, ax = plt.subplots()
        try:
            assert func(*args, ax=ax) is ax, name
            with pytest.raises(TypeError):
                func(*args, ax)  # never positional
            new = func(*args)
            assert isinstance(new, Axes) and new is not ax, name
        finally:
            plt.close("all")


@pytest.mark.parametrize("cls, old, new", [
    (sigtest.CochranQResult, "n_items", "n_samples"),
    (sigtest.PowerResult, "interval_level", "confidence_level"),
    (cv.BayesianCVResult, "mean", "mean_difference"),
])
def test_a_renamed_field_keyword_raises_naming_the_new_one(results, cls, old, new):
    key = cls.__name__
    kwargs = {f.name: getattr(results[key], f.name) for f in dataclasses.fields(results[key])}
    kwargs[old] = kwargs.pop(new)
    with pytest.raises(TypeError, match=f"'{old}'.*'{new}'"):
        cls(**kwargs)
    kwargs[new] = kwargs.pop(old)
    assert cls(**kwargs) == results[key]  # the new name builds the same result
    assert not hasattr(results[key], old)  # no alias: the old attribute is gone
