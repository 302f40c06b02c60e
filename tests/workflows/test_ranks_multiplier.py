"""ranks(bootstrap=...): the Gaussian multiplier draws for leaderboards at scale (issue 23).

The draws themselves (covariance against a naive jackknife, moments) are
checked in tests/workflows/compare/test_compare_multiplier.py; here: the choice of draws, that
ranks() feeds the rank intervals and the best set from the systems' jackknife
covariance (checked against the naive covariance through the same spy), the
invariances, and the errors.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

from sigtest import BCaInterval, compare
from sigtest._workflows.compare import maxt as maxt_module
from sigtest._workflows.compare import shared as shared_module
from test_compare_multiplier import _naive_sigma


def _leaderboard(k=6, n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    accs = np.linspace(0.55, 0.9, k)
    preds = {f"m{i}": np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
             for i, acc in enumerate(accs)}
    return y, preds


@pytest.fixture(scope="module")
def result():
    y, preds = _leaderboard()
    return y, preds, compare(y, preds, metrics=["accuracy", "f1_macro"], test=BCaInterval(n_resamples=499),
                             correction="holm", random_state=0)


def test_multiplier_draws_come_from_the_naive_jackknife_covariance(result, monkeypatch):
    y, preds, res = result
    seen = []
    real = shared_module.multiplier_draws

    def spy(estimates, sigma, n_resamples, seed, **kw):
        seen.append((np.array(estimates), np.array(sigma), n_resamples))
        return real(estimates, sigma, n_resamples, seed, **kw)

    monkeypatch.setattr(shared_module, "multiplier_draws", spy)
    table = res.ranks("accuracy", bootstrap="multiplier", n_resamples=999)
    assert len(seen) == 1
    est, sigma, B = seen[0]
    canonical = sorted(preds)
    ref, _ = _naive_sigma(y, preds, canonical, accuracy_score)
    np.testing.assert_allclose(sigma, ref, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(est, [accuracy_score(y, preds[s]) for s in canonical])
    assert B == 999
    # separated systems (0.55 ... 0.9 at 400 items): the best is alone in the best set
    best = table.loc[table["rank"] == 1, "system"].item()
    assert best == "m5" and table.set_index("system").loc["m5", "in_best_set"]
    assert table["in_best_set"].sum() <= 2


def test_multiplier_and_resampled_ranks_agree_on_a_clear_leaderboard(result):
    _, _, res = result
    mult = res.ranks(bootstrap="multiplier", n_resamples=1999, random_state=1)
    boot = res.ranks(bootstrap="resample", n_resamples=1999, random_state=1)
    pd.testing.assert_series_equal(mult["rank"], boot["rank"])
    # simultaneous rank intervals from two valid approximations of the same joint
    # distribution: the bounds differ by at most one place here
    for col in ("rank_low", "rank_high"):
        assert (mult[col] - boot[col]).abs().max() <= 1, (mult, boot)


def test_auto_follows_the_cost_threshold(result, monkeypatch):
    _, _, res = result
    mult = res.ranks(bootstrap="multiplier", random_state=2)
    boot = res.ranks(bootstrap="resample", random_state=2)
    pd.testing.assert_frame_equal(res.ranks(random_state=2), boot)  # 2000 x 400 x 6: small
    monkeypatch.setattr(maxt_module, "MULTIPLIER_MIN_COST", 2000 * 400 * 6 - 1)
    pd.testing.assert_frame_equal(res.ranks(random_state=2), mult)


def test_multiplier_ranks_do_not_depend_on_the_order_of_the_systems(result):
    y, preds, res = result
    rev = compare(y, dict(reversed(list(preds.items()))), metrics=["accuracy", "f1_macro"],
                  test=BCaInterval(n_resamples=499), correction="holm", random_state=0)
    a = res.ranks(bootstrap="multiplier", random_state=3)
    b = rev.ranks(bootstrap="multiplier", random_state=3)
    key = ["metric", "system"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                  b.sort_values(key).reset_index(drop=True), check_exact=True)


@pytest.mark.parametrize("value", ["bogus", "Multiplier", 1, None])
def test_bad_bootstrap_names_it(result, value):
    with pytest.raises(ValueError, match="'bootstrap'"):
        result[2].ranks(bootstrap=value)


def test_multiplier_needs_statistics():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    scores = {f"s{i}": rng.random(200) + 0.3 * i * y for i in range(3)}
    res = compare(y, scores, metrics="roc_auc", test="delong", random_state=0)
    with pytest.raises(ValueError, match="bootstrap='multiplier'.*roc_auc"):
        res.ranks(bootstrap="multiplier")
    assert len(res.ranks(n_resamples=99)) == 3  # "auto" resamples it
