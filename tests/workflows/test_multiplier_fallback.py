"""bootstrap="multiplier": report the draws used; decline Gaussian draws on concentrated influence.

ROC AUC has no per-item statistics, so its tests always resampled the items,
yet result.bootstrap said "multiplier". r2 on a target that is 0 except on
one item gave p = .21 on multiplier draws against .016 on resamples: one
item carries the influence values, far from the Gaussian approximation.
"""

import numpy as np
import pandas as pd

import sigtest


def _frame(result):
    return result.to_frame().drop(columns=["n_effective"], errors="ignore")


def test_roc_auc_reports_resampled_draws():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    probas = {s: np.clip(y * 0.3 + rng.normal(0.35, 0.25, 200), 0, 1) for s in "ABC"}
    test = sigtest.BCaInterval(n_resamples=299)
    mult = sigtest.compare(y, probas, metrics="roc_auc", bootstrap="multiplier",
                           test=test, random_state=0)
    res = sigtest.compare(y, probas, metrics="roc_auc", bootstrap="resample",
                          test=test, random_state=0)
    assert mult.bootstrap == "resample"
    assert "draws:multiplier" not in mult.signature()
    pd.testing.assert_frame_equal(mult.to_frame(), res.to_frame())


def test_metric_with_statistics_still_reports_multiplier():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    preds = {s: np.where(rng.random(300) < 0.8, y, 1 - y) for s in "AB"}
    result = sigtest.compare(y, preds, metrics=["accuracy", "roc_auc"],
                             bootstrap="multiplier", test=sigtest.BCaInterval(n_resamples=299),
                             random_state=0)
    assert result.bootstrap == "multiplier"


def _spike_target(n=300, seed=0, k=2):
    rng = np.random.default_rng(seed)
    y = np.zeros(n)
    y[7] = 10.0
    preds = {}
    for s in range(k):
        p = rng.normal(0, 0.3, n)
        p[7] += 1.0 + 5.0 * s
        preds[f"s{s}"] = p
    return y, preds


def test_concentrated_r2_resamples_instead_of_gaussian_draws():
    y, preds = _spike_target()
    mult = sigtest.compare(y, preds, metrics="r2", bootstrap="multiplier", test="bca",
                           random_state=0)
    res = sigtest.compare(y, preds, metrics="r2", bootstrap="resample", test="bca",
                          random_state=0)
    assert mult.bootstrap == "resample"
    pd.testing.assert_frame_equal(_frame(mult), _frame(res))  # was p .22 against .06


def test_max_t_on_concentrated_r2_resamples():
    y, preds = _spike_target(k=6, seed=2)
    kw = dict(metrics="r2", test="bca", correction="max-t", random_state=0)
    mult = sigtest.compare(y, preds, bootstrap="multiplier", **kw)
    res = sigtest.compare(y, preds, bootstrap="resample", **kw)
    assert mult.bootstrap == "resample"
    # the max-T step draws the same resamples as "resample" does; the pairs' own
    # tests draw theirs (not shared), so compare the adjusted p-values loosely
    np.testing.assert_allclose(mult.to_frame()["pvalue_adj"], res.to_frame()["pvalue_adj"],
                               atol=0.03)


def test_gaussian_fits_light_and_concentrated_influence():
    from sigtest._engine.multiplier import gaussian_fits, jackknife_covariance  # new here

    def fits(columns):
        return gaussian_fits(columns, jackknife_covariance(columns))

    rng = np.random.default_rng(3)
    light = rng.normal(size=500)
    heavy = rng.normal(0, 0.01, 500)
    heavy[3] = 5.0
    assert fits([(None, light), (None, light + rng.normal(size=500))])
    assert not fits([(None, light * 0.001), (None, heavy)])
    # a concentrated system against a spread one: the pair's difference is spread
    assert fits([(None, light), (None, heavy * 0.01)])
    # compressed rows with their multiplicities give the per-unit answer
    codes = np.repeat(np.arange(3), [400, 99, 1])
    rows = [(codes, np.array([0.0, 0.01, 5.0])), (codes, np.zeros(3))]
    assert not fits(rows)
    assert fits([(codes, np.array([0.0, 1.0, 2.0])), (codes, np.zeros(3))])
    # a non-finite leave-one-out value is left to the NaN draws
    assert fits([(None, np.r_[light[:-1], np.nan]), (None, light)])
