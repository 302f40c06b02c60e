"""Influence concentration: the effective number of units of a paired difference.

Reference values are computed here from the per-item differences directly
(for a mean, the jackknife influence values are ``d_i - mean(d)``).
"""

import math

import numpy as np
import pytest

import sigtest
from sigtest._engine import prepare_paired
from sigtest._engine.concentration import (
    DISCORDANT_RATIO,
    N_EFFECTIVE_MIN,
    influence_concentration,
    is_concentrated,
    paired_concentration,
)
from sigtest.metrics import get_metric


def _naive_n_eff(d):
    L = d - d.mean()
    return (L ** 2).sum() ** 2 / (L ** 4).sum()


def _paired_mean(d, rng):
    a = rng.normal(size=d.size)
    return prepare_paired(None, a, a + d, get_metric("mean"))


def test_effective_number_matches_the_per_item_formula():
    rng = np.random.default_rng(0)
    d = rng.standard_t(2, 200)
    c = paired_concentration(_paired_mean(d, rng))
    assert c.n_effective == pytest.approx(_naive_n_eff(d), rel=1e-9)
    assert c.n_units == 200
    top = np.argsort(-np.abs(d - d.mean()))[:c.n_top]
    assert c.share == pytest.approx(d[top].sum() / d.sum(), rel=1e-9)


def test_equal_influence_gives_every_unit():
    d = np.tile([1.0, -1.0], 50)
    theta = (d.sum() - d) / (d.size - 1)
    c = influence_concentration(theta, d.mean())
    assert c.n_effective == pytest.approx(100.0)
    assert math.isnan(c.share)  # the difference is 0: no share of it


def test_cell_weights_equal_the_expanded_items():
    rng = np.random.default_rng(1)
    values = rng.normal(size=6) * np.array([1, 1, 1, 1, 1, 30])
    counts = np.array([5, 9, 2, 7, 1, 1])
    d = np.repeat(values, counts)
    theta_items = (d.sum() - d) / (d.size - 1)
    theta_cells = (d.sum() - values) / (d.size - 1)
    items = influence_concentration(theta_items, d.mean())
    cells = influence_concentration(theta_cells, d.mean(), weights=counts)
    assert cells.n_effective == pytest.approx(items.n_effective, rel=1e-12)
    assert cells.share == pytest.approx(items.share, rel=1e-12)
    assert cells.variance_share == pytest.approx(items.variance_share, rel=1e-12)


def test_accuracy_with_few_discordant_items_is_left_to_the_small_sample_rule():
    # 12 discordant items of 200: n_eff ~ 12, not below a fifth of d
    y = np.zeros(200, int)
    a, b = y.copy(), y.copy()
    a[:8] = 1
    b[8:12] = 1
    paired = prepare_paired(y, a, b, get_metric("accuracy"))
    c = paired_concentration(paired)
    assert c.n_effective > DISCORDANT_RATIO * paired.n_discordant
    assert not is_concentrated(c, paired.n_discordant)


def test_one_huge_loss_is_concentrated():
    rng = np.random.default_rng(2)
    d = rng.normal(0, 0.05, 500)
    d[7] = 25.0
    c = paired_concentration(_paired_mean(d, rng))
    assert c.n_effective < 1.5 and c.n_top == 1 and is_concentrated(c, 500)


def _fires_and_covers(kind, n, reps, rng):
    """Share of null data sets flagged, and the BCa coverage of 0 among flagged / unflagged."""
    test = sigtest.BCaInterval(n_resamples=499)
    fired, covered = [], []
    for _ in range(reps):
        if kind == "normal":
            d = rng.normal(size=n)
        else:  # log-loss-like: small differences, about 3 large ones of either sign
            d = rng.normal(0, 0.05, n)
            k = rng.random(n) < 3 / n
            d[k] = rng.choice([-1, 1], k.sum()) * rng.uniform(5, 20, k.sum())
        paired = _paired_mean(d, rng)
        fired.append(is_concentrated(paired_concentration(paired), paired.n_discordant))
        if kind != "normal":
            ci = test.test_paired(paired).confidence_interval
            covered.append(ci.low <= 0.0 <= ci.high)
    return np.array(fired), np.array(covered)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_thresholds_separate_light_from_heavy_tails():
    """The thresholds N_EFFECTIVE_MIN = 10 and DISCORDANT_RATIO = 0.2, by simulation.

    Null data (per-item differences symmetric about 0), 400 data sets a cell.
    Light tails (Gaussian differences, N = 30 and 50, the smallest N the BCa
    small-sample rule lets through): flagged in .0175 and .010 of the data
    sets with this seed (n_eff ~ N / 3; in a separate run with 0.25 instead
    of 0.2 the rate at N = 30 was .05, with no ratio at all .29). Heavy
    tails (log-loss-like: differences N(0, .05) and about 3 items of
    +-5..20, N = 200): flagged in .9475, where BCa covered 0 in .76 of them
    and in .95 of the unflagged ones (nominal .95; in the separate run
    lognormal(0, 2) and Pareto(1.2) differences were flagged in .94-.98,
    with coverage .78-.82). Bands: light <= .04 (400 data sets: a true rate
    of .015 exceeds .04 with probability ~ 5e-4); heavy >= .85 (a true rate
    of .94 falls below .85 with probability < 1e-6); the coverage of
    flagged data sets <= .88 (binomial SD ~ .022 around .76).
    """
    rng = np.random.default_rng(2026)
    for n in (30, 50):
        fired, _ = _fires_and_covers("normal", n, 400, rng)
        assert fired.mean() <= 0.04, (n, fired.mean())
    fired, covered = _fires_and_covers("spike", 200, 400, rng)
    assert fired.mean() >= 0.85, fired.mean()
    assert covered[fired].mean() <= 0.88, covered[fired].mean()
    assert N_EFFECTIVE_MIN == 10 and DISCORDANT_RATIO == 0.2
