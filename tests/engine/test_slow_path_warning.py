"""The slow path says what it will cost before a long wait (SlowPathWarning)."""

import time
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

from sigtest import BergKirkpatrickBootstrap, PairedPermutation, SlowPathWarning


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.8, y, 1 - y), np.where(rng.random(n) < 0.7, y, 1 - y)


class _FirstCallsSlow:
    """Accuracy whose first calls take 20 ms each (one of them is the timed one); the
    resamples then run at full speed, so the test is quick while the estimate is long."""

    __name__ = "my_accuracy"

    def __init__(self):
        self.calls = 0

    def __call__(self, y_true, y_pred, sample_weight=None):
        self.calls += 1
        if self.calls <= 8:
            time.sleep(0.02)
        return float(np.average(np.asarray(y_true) == np.asarray(y_pred),
                                weights=sample_weight))


def test_a_long_slow_path_warns_with_its_estimated_cost():
    y, a, b = _data()
    with pytest.warns(SlowPathWarning, match=r"'my_accuracy' has no sufficient statistics.*"
                                             r"398 calls x .* ms .*= about \d+ s") as record:
        BergKirkpatrickBootstrap(n_resamples=199, random_state=0).test(
            y, a, b, metric=_FirstCallsSlow())
    assert len([w for w in record if w.category is SlowPathWarning]) == 1
    assert record[0].filename == __file__  # the user's line


def test_a_quick_slow_path_and_the_fast_path_do_not_warn():
    y, a, b = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowPathWarning)
        PairedPermutation(n_resamples=99, random_state=0).test(
            y, a, b, metric=lambda t, p: float(np.mean(np.asarray(t) == p)))
        BergKirkpatrickBootstrap(n_resamples=999, random_state=0).test(
            y, a, b, metric=skm.make_scorer(skm.fbeta_score, beta=2))
