"""The power functions take the options they can honour and refuse the others by name."""

import numpy as np
import pytest
from scipy import stats

import sigtest


def _pilot(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.where(rng.random(n) < 0.8, y, 1 - y)


@pytest.mark.parametrize("func, kw", [
    (sigtest.power, dict(effect=0.05)),
    (sigtest.minimum_detectable_effect, dict(power=0.8)),
    (sigtest.sample_size, dict(effect=0.05, power=0.8)),
])
@pytest.mark.parametrize("option", ["sample_weight", "groups", "strata"])
def test_weights_clusters_and_strata_are_refused_with_the_reason(func, kw, option):
    y, a = _pilot()
    with pytest.raises(TypeError, match=f"^{func.__name__}\\(\\) takes no '{option}': the power "
                                        "simulation draws independent, equally weighted items"):
        func(y, a, n_simulations=5, random_state=0, **{option: np.arange(len(y)) % 5}, **kw)


def test_pos_label_goes_to_the_metric_and_n_jobs_does_not_change_the_answer():
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.3).astype(int)  # unbalanced: F1 of class 1 != F1 of class 0
    a = np.where(rng.random(300) < 0.8, y, 1 - y)
    kw = dict(effect=0.02, metric="f1", n_simulations=40, random_state=3)
    one = sigtest.power(y, a, n_jobs=1, pos_label=1, **kw)
    two = sigtest.power(y, a, n_jobs=2, pos_label=1, **kw)
    assert one.power == two.power and one.n_rejected == two.n_rejected
    other = sigtest.power(y, a, pos_label=0, **kw)
    tp1, tp0 = np.sum((a == 1) & (y == 1)), np.sum((a == 0) & (y == 0))
    f1 = {1: 2 * tp1 / (np.sum(a == 1) + np.sum(y == 1)),
          0: 2 * tp0 / (np.sum(a == 0) + np.sum(y == 0))}
    assert one.score_a == pytest.approx(f1[1]) and other.score_a == pytest.approx(f1[0])


@pytest.mark.parametrize("old, new", [("pred_a", "y_pred_a"),
                                      ("interval_level", "confidence_level")])
def test_old_keywords_name_the_new_ones(old, new):
    y, a = _pilot()
    with pytest.raises(TypeError, match=f"power\\(\\) got the old keyword '{old}'; it is now "
                                        f"'{new}'"):
        sigtest.power(y, effect=0.05, **{old: a if old == "pred_a" else 0.9})
    res = sigtest.power(y, y_pred_a=a, effect=0.05, n_simulations=20, random_state=0,
                        confidence_level=0.9)
    # the Clopper-Pearson interval of the power at the new keyword's level
    k, n = res.n_rejected, 20
    low = stats.beta.ppf(0.05, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(0.95, k + 1, n - k) if k < n else 1.0
    assert tuple(res.power_interval) == pytest.approx((low, high), rel=1e-9, abs=1e-12)
