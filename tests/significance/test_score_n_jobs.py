"""score(n_jobs=): the bootstrap kernels' threads, bit-identical results for any value."""

import numpy as np
import pytest

import sigtest


@pytest.mark.parametrize("metric, kind", [("f1_macro", "labels"), ("roc_auc", "scores"),
                                          ("accuracy", "labels")])
def test_score_is_bit_identical_for_any_n_jobs(metric, kind):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 400)
    pred = (np.where(rng.random(400) < 0.8, y, 1 - y) if kind == "labels"
            else rng.normal(size=400) + y)
    runs = [sigtest.score(y, pred, metric, n_resamples=1500, random_state=7, n_jobs=j)
            for j in (None, 1, 2, -1)]
    for res in runs[1:]:
        np.testing.assert_array_equal(res.bootstrap_distribution,
                                      runs[0].bootstrap_distribution)
        assert res.confidence_interval == runs[0].confidence_interval


def test_slow_path_metric_is_bit_identical_for_any_n_jobs():
    # a plain function: no sufficient statistics, one call per resample
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, y, 1 - y)

    def agreement(y_true, y_pred):
        return float(np.mean(y_true == y_pred))

    runs = [sigtest.score(y, pred, metric=agreement, n_resamples=300, random_state=7,
                          n_jobs=j).bootstrap_distribution for j in (None, 1, 2)]
    for dist in runs[1:]:
        np.testing.assert_array_equal(dist, runs[0])


def test_score_n_jobs_is_checked():
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="'n_jobs' parameter of score"):
        sigtest.score(y, y, n_jobs=0)
