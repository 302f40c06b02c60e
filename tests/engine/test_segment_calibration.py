"""Calibration of the tests on the segment path of the generic bootstrap (N > 2**15 items).

The segment path (``kernels.bootstrap_sums_generic`` beyond
``kernels_numpy.SEGMENT_MIN_ROWS`` rows) draws a resample as a multinomial
over row segments, then uniform rows inside each segment: other draws than
the item-by-item gather, the same bootstrap distribution. These simulations
re-check the size of the Berg-Kirkpatrick test and the coverage of the BCa
interval on per-item scores at N = 40,000, where every resample takes that
path (a spy on the kernel asserts it).
"""

import numpy as np
import pytest
from scipy import stats

from sigtest import BCaInterval, BergKirkpatrickBootstrap
from sigtest._engine import kernels as K
from sigtest._engine import kernels_numpy as P

N = 40_000


def _binomial_band(reps, p, level=0.99):
    tail = (1.0 - level) / 2.0
    return (stats.binom.ppf(tail, reps, p) / reps, stats.binom.ppf(1.0 - tail, reps, p) / reps)


@pytest.fixture
def segment_spy(monkeypatch):
    """Record the rows of every generic bootstrap kernel call."""
    rows = []
    real = K.bootstrap_sums_generic

    def spy(stats_, m, keys, parallel=False):
        rows.append(stats_.shape[0])
        return real(stats_, m, keys, parallel=parallel)

    monkeypatch.setattr(K, "bootstrap_sums_generic", spy)
    return rows


def _scores(rng, shift=0.0):
    # per-item scores of two systems sharing an item effect, skewed noise
    x = rng.normal(size=N)
    return x + rng.exponential(size=N), x + rng.exponential(size=N) + shift


@pytest.mark.slow
def test_berg_kirkpatrick_size_on_the_segment_path(segment_spy):
    # H0 (identically distributed systems): 300 two-sided tests at alpha = 0.05;
    # the 99 % binomial band of the rejection rate is [0.020, 0.083]. A
    # segment split with the wrong probabilities would over-weight some items
    # in every resample and shrink or inflate the bootstrap variance: the
    # variance test of the kernel's moments (test_kernels) bounds it within
    # 16 %, which moves the size of a 5 % test to ~3-7 %, inside the band;
    # a gross error (segments never drawn) is far outside. Measured:
    # 0.053 (seed 0).
    rng = np.random.default_rng(0)
    reps, alpha = 300, 0.05
    test = BergKirkpatrickBootstrap(n_resamples=199, alternative="two-sided", n_jobs=1)
    rejected = 0
    for _ in range(reps):
        a, b = _scores(rng)
        res = test.set_params(random_state=rng).test(None, a, b, metric="mean")
        rejected += res.pvalue <= alpha
    assert segment_spy and all(P.segment_path(r) for r in segment_spy)
    low, high = _binomial_band(reps, alpha)
    assert low <= rejected / reps <= high, (rejected / reps, (low, high))


@pytest.mark.slow
def test_bca_coverage_on_the_segment_path(segment_spy):
    # The BCa interval of the mean difference (true value 0.05) covers it in
    # 95 % of 300 samples: the 99 % binomial band is [0.917, 0.977].
    # Measured: 0.967 (seed 1).
    rng = np.random.default_rng(1)
    reps, shift = 300, 0.05
    test = BCaInterval(n_resamples=399, n_jobs=1)
    covered = 0
    for _ in range(reps):
        a, b = _scores(rng, shift)
        low, high = test.set_params(random_state=rng).test(
            None, a, b, metric="mean").confidence_interval
        covered += low <= shift <= high
    assert segment_spy and all(P.segment_path(r) for r in segment_spy)
    low, high = _binomial_band(reps, 0.95)
    assert low <= covered / reps <= high, (covered / reps, (low, high))
