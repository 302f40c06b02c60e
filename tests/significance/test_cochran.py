"""Cochran's Q (issue 24): statsmodels, Conover's textbook example, bad input, size."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sigtest import CochranQResult, DegenerateDistributionWarning, cochrans_q

contingency_tables = pytest.importorskip("statsmodels.stats.contingency_tables")


def _systems(right):
    """``(y_true, {name: y_pred})`` whose right answers are the 0/1 columns of ``right``."""
    right = np.asarray(right, dtype=bool)
    y = np.arange(right.shape[0]) % 3
    return y, {f"s{j}": np.where(right[:, j], y, (y + 1) % 3) for j in range(right.shape[1])}


def _naive_q(right):
    """Cochran (1950), term by term."""
    x = np.asarray(right, dtype=float)
    k = x.shape[1]
    c, r = x.sum(0), x.sum(1)
    n = x.sum()
    return (k - 1) * (k * sum(cj ** 2 for cj in c) - n ** 2) / (k * n - sum(ri ** 2 for ri in r))


# Conover (1999), Practical Nonparametric Statistics, p. 253, as in statsmodels'
# test suite (test_cochransq): Q = 2.8, p = 0.246597
CONOVER = np.array([[1, 1, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1],
                    [1, 1, 1], [1, 1, 0], [0, 0, 1], [0, 1, 0], [1, 1, 1], [1, 1, 1]])
# statsmodels' test_cochransq2: Q = 13.2857143, p = 0.00405776
WEB = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1], [1, 0, 0, 1],
                [0, 1, 0, 1], [1, 0, 0, 1], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0],
                [1, 0, 0, 1], [0, 0, 1, 1]])


@pytest.mark.parametrize("right, q, p", [(CONOVER, 2.8, 0.246597),
                                         (WEB, 13.2857143, 0.00405776)])
def test_published_values(right, q, p):
    res = cochrans_q(*_systems(right))
    assert isinstance(res, CochranQResult)
    assert res.statistic == pytest.approx(q, rel=1e-7)
    assert res.pvalue == pytest.approx(p, rel=1e-5)
    assert res.df == right.shape[1] - 1 and res.n_samples == right.shape[0]
    assert res.n_discordant == int(np.sum((right.sum(1) > 0) & (right.sum(1) < right.shape[1])))


def _random_cases():
    rng = np.random.default_rng(0)
    for n, k in [(12, 3), (50, 4), (300, 5), (1000, 8), (30, 3)]:
        difficulty = rng.beta(2, 1, size=n)
        skill = rng.uniform(0.7, 1.1, size=k)
        yield rng.uniform(size=(n, k)) < np.clip(difficulty[:, None] * skill, 0, 1)


@pytest.mark.parametrize("right", list(_random_cases()), ids=lambda r: f"n{r.shape[0]}k{r.shape[1]}")
def test_matches_statsmodels_and_the_formula(right):
    res = cochrans_q(*_systems(right))
    ref = contingency_tables.cochrans_q(right.astype(int))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.df == ref.df
    assert res.statistic == pytest.approx(_naive_q(right), rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(_naive_q(right), right.shape[1] - 1),
                                       rel=1e-12)


def test_dataframe_strings_and_unanimous_items():
    y, preds = _systems(CONOVER)
    frame = pd.DataFrame(preds)
    assert cochrans_q(pd.Series(y), frame) == cochrans_q(y, preds)
    words = np.array(["cat", "dog", "eel"])
    assert cochrans_q(words[y], {k: words[v] for k, v in preds.items()}).statistic == \
        pytest.approx(2.8)
    # items every system gets right (or wrong) do not change Q
    more = np.vstack([CONOVER, np.ones((7, 3), int), np.zeros((4, 3), int)])
    assert cochrans_q(*_systems(more)).statistic == pytest.approx(2.8, rel=1e-12)
    assert cochrans_q(*_systems(more)).systems == ("s0", "s1", "s2")


def test_identical_systems_warn_and_give_p_one():
    y = np.array([0, 1, 1, 0, 2])
    pred = np.array([0, 1, 0, 0, 1])
    with pytest.warns(DegenerateDistributionWarning, match="no information"):
        res = cochrans_q(y, {"a": pred, "b": pred, "c": pred})
    assert (res.statistic, res.pvalue, res.n_discordant) == (0.0, 1.0, 0)


@pytest.mark.parametrize("right", [CONOVER[:, :2], WEB[:, 1:3], WEB[:, [0, 3]]],
                         ids=["conover", "web12", "web03"])
def test_two_systems_give_mcnemars_uncorrected_chi_square(right):
    res = cochrans_q(*_systems(right))
    ref = contingency_tables.cochrans_q(right.astype(int))
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.df == ref.df == 1
    b = int(np.sum((right[:, 0] == 1) & (right[:, 1] == 0)))
    c = int(np.sum((right[:, 0] == 0) & (right[:, 1] == 1)))
    table = [[0, b], [c, 0]]
    mcnemar = contingency_tables.mcnemar(table, exact=False, correction=False)
    assert res.statistic == pytest.approx((b - c) ** 2 / (b + c), rel=1e-12)
    assert res.statistic == pytest.approx(mcnemar.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(mcnemar.pvalue, rel=1e-12)


def test_bad_input():
    y, preds = _systems(CONOVER)
    with pytest.raises(ValueError, match="'predictions'.*at least 2 systems"):
        cochrans_q(y, {"s0": preds["s0"]})
    with pytest.raises(TypeError, match="'predictions'"):
        cochrans_q(y, list(preds.values()))
    with pytest.raises(ValueError, match="'s1'.*length"):
        cochrans_q(y, {**preds, "s1": preds["s1"][:-1]})
    with pytest.raises(ValueError, match="'s2'.*1-D"):
        cochrans_q(y, {**preds, "s2": np.c_[preds["s2"], preds["s2"]]})
    with pytest.raises(ValueError, match="'y_true'.*1-D"):
        cochrans_q(np.c_[y, y], preds)
    with pytest.raises(ValueError, match="'s0'.*NaN"):
        cochrans_q(y, {**preds, "s0": np.where(y == 0, np.nan, 1.0)})
    with pytest.raises(ValueError, match="Duplicate"):
        cochrans_q(y, pd.DataFrame(np.c_[preds["s0"], preds["s1"], preds["s2"]],
                                   columns=["a", "b", "a"]))


@pytest.mark.slow
def test_size_under_the_null():
    # 4 systems with the same accuracy on every item (item difficulty varies:
    # correlated errors), 150 items, 4000 data sets: rejection rate at 0.05
    # within the 99.9 % binomial band 0.05 +- 3.29 sqrt(.05 .95 / 4000) =
    # [0.0387, 0.0613]. Measured: 0.0555 (about 2 s).
    rng = np.random.default_rng(2024)
    reps, n, k = 4000, 150, 4
    rejected = 0
    for _ in range(reps):
        difficulty = rng.beta(4, 1.5, size=n)
        right = rng.uniform(size=(n, k)) < difficulty[:, None]
        rejected += cochrans_q(*_systems(right)).pvalue <= 0.05
    assert 0.0387 <= rejected / reps <= 0.0613
