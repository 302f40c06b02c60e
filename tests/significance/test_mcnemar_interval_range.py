"""McNemar's interval of a difference of proportions stays inside [-1, 1]."""

import numpy as np
import pytest

from sigtest import McNemar
from sigtest.tests_._mcnemar import newcombe_interval


@pytest.mark.parametrize("n", [1200, 40])
def test_every_item_favouring_one_system_gives_an_interval_ending_at_one(n):
    y = np.ones(n, int)
    a, b = np.zeros(n, int), y.copy()
    ci = McNemar().test(y, a, b).confidence_interval
    assert ci.high == 1.0 and 0 < ci.low < 1  # was 1.0000000000000002 at N = 1200
    mirror = McNemar().test(y, b, a).confidence_interval
    assert mirror.low == -1.0 and -1 < mirror.high < 0


def test_newcombe_limits_lie_in_the_range_of_a_difference_of_proportions():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        table = rng.multinomial(int(rng.integers(1, 3000)), rng.dirichlet([0.2] * 4))
        low, high = newcombe_interval(*map(int, table), 2.5758)
        assert -1.0 <= low <= high <= 1.0


def test_clustered_wald_interval_is_clipped():
    # 20 clusters of 3 items, every item favouring B: the Wald half-width exceeds the gap to 1
    y = np.ones(60, int)
    groups = np.repeat(np.arange(20), 3)
    res = McNemar(method="chi2").test(y, np.zeros(60, int), y.copy(), groups=groups)
    assert res.confidence_interval.high <= 1.0
