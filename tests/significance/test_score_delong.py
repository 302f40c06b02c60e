"""``score(y, s, metric="roc_auc", method="delong")``: DeLong's interval of one AUC.

References: pROC's ``ci.auc`` (``tests/testthat/test-ci.auc.R`` of xrobin/pROC:
``ci.auc(r.ndka)`` on the aSAH data, direction "<", the default), and a naive
computation of pROC's formula written here: placements by the double loop
over positives and negatives, ``S = S10 / m + S01 / n`` (sample variances),
``auc +- z sqrt(S)`` clipped to [0, 1] (DeLong, DeLong & Clarke-Pearson 1988).
"""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

import sigtest
from sigtest.exceptions import (DegenerateDistributionWarning, SmallSampleWarning,
                                UndefinedMetricWarning)

from _asah import NDKA, OUTCOME_POOR


def _naive_ci(y, s, level):
    """pROC's ci_auc_delong by its definition: O(m n) placements, sample variances."""
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = v10.mean()
    var = (np.sum((v10 - auc) ** 2) / (m - 1)) / m + (np.sum((v01 - auc) ** 2) / (n - 1)) / n
    half = norm.ppf(1 - (1 - level) / 2) * math.sqrt(var)
    return auc, min(1.0, max(0.0, auc - half)), min(1.0, max(0.0, auc + half)), math.sqrt(var)


def test_matches_proc_ci_auc_on_asah():
    # pROC: ci.auc(aSAH$outcome, aSAH$ndka) = 0.501244999271703 0.611957994579946 0.722670989888189
    y = np.array([int(c) for c in OUTCOME_POOR])
    res = sigtest.score(y, np.array(NDKA), "roc_auc", method="delong")
    assert res.method == "delong" and res.n_resamples == 0
    assert res.bootstrap_distribution is None
    assert res.estimate == pytest.approx(0.611957994579946, abs=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx(
        (0.501244999271703, 0.722670989888189), abs=1e-12)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("seed, level", [(0, 0.95), (1, 0.9), (2, 0.99)])
def test_interval_equals_the_naive_formula(seed, level):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 90)
    s = np.round(rng.normal(size=90) + 1.2 * y, 1)  # ties between the classes
    auc, low, high, se = _naive_ci(y, s, level)
    res = sigtest.score(y, s, "roc_auc", method="delong", confidence_level=level)
    assert res.estimate == pytest.approx(auc, abs=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx((low, high), abs=1e-12)
    assert res.standard_error == pytest.approx(se, abs=1e-12)
    # another level from the stored standard error, as a new call gives it
    again = sigtest.score(y, s, "roc_auc", method="delong", confidence_level=0.8)
    assert tuple(res.ci(0.8)) == pytest.approx(tuple(again.confidence_interval), abs=1e-15)
    assert res.to_dict()["standard_error"] == res.standard_error
    assert "DeLong" in str(res)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_interval_is_clipped_to_the_unit_interval_as_proc():
    rng = np.random.default_rng(5)
    y = np.r_[np.zeros(30, dtype=int), np.ones(30, dtype=int)]
    s = y * 2.6 + rng.normal(size=60)  # AUC near 1: auc + z se > 1
    auc, low, high, _ = _naive_ci(y, s, 0.95)
    res = sigtest.score(y, s, "roc_auc", method="delong")
    assert high == 1.0 and res.confidence_interval.high == 1.0
    assert res.confidence_interval.low == pytest.approx(low, abs=1e-12)


def test_refuses_what_it_cannot_do():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    s = rng.normal(size=100) + y
    with pytest.raises(ValueError, match="'method'.*roc_auc"):
        sigtest.score(y, s, "average_precision", method="delong")
    for kw in ({"sample_weight": np.ones(100)}, {"groups": np.arange(100) // 2},
               {"strata": y}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sigtest.score(y, s, "roc_auc", method="delong", **kw)
    res = sigtest.score(y, s, "roc_auc", method="delong")
    with pytest.raises(ValueError, match="method"):
        res.ci(method="bca")
    with pytest.raises(ValueError, match="method"):
        sigtest.score(y, s, "roc_auc", method="DeLong")


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_few_positives_warn_and_undefined_cases_give_nan_without_numpy_warnings():
    rng = np.random.default_rng(1)
    y = np.r_[np.zeros(200, dtype=int), np.ones(12, dtype=int)]
    s = rng.normal(size=212) + y
    with pytest.warns(SmallSampleWarning, match="12 positive"):
        sigtest.score(y, s, "roc_auc", method="delong")
    # one positive: no variance (pROC's NA); one class: the AUC is undefined
    for labels, category in ((np.r_[np.zeros(20, dtype=int), 1], DegenerateDistributionWarning),
                             (np.zeros(21, dtype=int), UndefinedMetricWarning)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = sigtest.score(labels, s[:21], "roc_auc", method="delong", labels=[0, 1])
        assert all(math.isnan(v) for v in res.confidence_interval)
        kinds = {w.category for w in caught}
        assert category in kinds and not kinds & {RuntimeWarning}, kinds
    # a perfect system: zero variance, the point [1, 1] with a warning (as pROC)
    with pytest.warns(DegenerateDistributionWarning, match="zero"):
        res = sigtest.score(y, y + 0.1 * rng.random(212), "roc_auc", method="delong")
    assert tuple(res.confidence_interval) == (1.0, 1.0)
