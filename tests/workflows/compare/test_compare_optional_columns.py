"""compare shows a test's margin and a Bayesian test's probabilities (issue 12)."""

import warnings

import numpy as np
import pytest

import sigtest


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 500
    y = rng.integers(0, 2, n)
    preds = {"a": np.where(rng.random(n) < 0.8, y, 1 - y),
             "b": np.where(rng.random(n) < 0.82, y, 1 - y),
             "c": np.where(rng.random(n) < 0.7, y, 1 - y)}
    return y, preds


def test_default_frame_has_no_optional_columns(data):
    y, preds = data
    frame = sigtest.compare(y, preds, metrics="accuracy", random_state=0,
                            test=sigtest.PairedPermutation(n_resamples=199)).to_frame()
    assert list(frame.columns) == sigtest._workflows.compare.tables.FRAME_COLUMNS


def test_bayesian_rows_carry_the_probabilities_in_the_user_order(data):
    y, preds = data
    test = sigtest.BayesianBootstrap(rope=0.01, n_resamples=2000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sigtest.compare(y, preds, metrics="accuracy", test=test, random_state=3)
        back = sigtest.compare(y, dict(reversed(list(preds.items()))), metrics="accuracy",
                               test=test, random_state=3)
    f, g = res.to_frame(), back.to_frame()
    assert {"prob_worse", "prob_equivalent", "prob_better"} <= set(f.columns)
    np.testing.assert_allclose(f[["prob_worse", "prob_equivalent", "prob_better"]].sum(axis=1),
                               1.0)
    assert not f["significant"].any()  # no p-value, nothing called significant
    # the same pair in the other order: better and worse swap exactly
    for _, row in f.iterrows():
        other = g[(g.system_a == row.system_b) & (g.system_b == row.system_a)].iloc[0]
        assert other.prob_better == row.prob_worse and other.prob_worse == row.prob_better
        assert other.prob_equivalent == row.prob_equivalent
    # each row equals the direct test of its pair on the pair's seed (sorted names)
    direct = test.test(y, preds["a"], preds["b"])
    assert direct.prob_better == pytest.approx(f.iloc[0].prob_better, abs=0.05)
    assert "P(B worse/equiv./better)" in str(res)


def test_margin_column_and_header(data):
    y, preds = data
    test = sigtest.BCaInterval(margin=0.03, alternative="non-inferiority", n_resamples=2000)
    res = sigtest.compare(y, preds, metrics="accuracy", pairs="baseline", baseline="a",
                          test=test, random_state=0)
    f = res.to_frame()
    assert (f["margin"] == 0.03).all() and (f["alternative"] == "non-inferiority").all()
    assert "margin 0.03" in str(res)


def test_result_ci_of_a_bayesian_result_is_a_credible_interval(data):
    y, preds = data
    res = sigtest.BayesianBootstrap(n_resamples=4000, random_state=1).test(
        y, preds["a"], preds["b"])
    assert tuple(res.ci()) == pytest.approx(tuple(res.confidence_interval))
    low, high = res.ci(0.5)
    np.testing.assert_allclose([low, high], np.quantile(res.null_distribution, [0.25, 0.75]))
    with pytest.raises(ValueError, match="method"):
        res.ci(method="bca")


def test_summaries_say_the_design(data):
    y, preds = data
    groups = np.arange(len(y)) // 10
    res = sigtest.PairedPermutation(n_resamples=199, random_state=0).test(
        y, preds["a"], preds["b"], groups=groups)
    assert "clustered: 50 groups" in res.summary()
    assert "clustered: 50 groups" in sigtest.score(y, preds["a"], groups=groups,
                                                   n_resamples=999, random_state=0).summary()
    comp = sigtest.compare(y, preds, metrics="accuracy", groups=groups, random_state=0,
                           test=sigtest.PairedPermutation(n_resamples=199))
    table = comp.system_table()
    assert table.attrs["n_groups"] == 50 and table.attrs["design"] == "clustered by 50 groups"
    plain = sigtest.compare(y, preds, metrics="accuracy", random_state=0,
                            test=sigtest.PairedPermutation(n_resamples=199)).system_table()
    assert plain.attrs["design"] == "independent items" and plain.attrs["n_groups"] is None
