"""ComparisonResult.scores(intervals="shared"): the score intervals of the comparison's draws.

The leaderboard and the report show these intervals instead of resampling
every system again (issue 31, section 5: the report of 50 systems x 10^5
items). Checked here: against a naive reference (numpy's percentiles of the
same kept draws, and the observed scores of the own table), the fall-back
rows (no kept draws, a perfect system), that the report reads them without
any resampling of its own, and their coverage of the true accuracy
(simulation) on resampled and on multiplier draws.
"""

import warnings

import numpy as np
import pytest

import sigtest
from sigtest import BCaInterval
from sigtest._workflows.compare import scores as scores_module
from sigtest._workflows.compare.score_draws import SHARED_METHODS

B = 999
METRICS = ["accuracy", "f1_macro"]


def _systems(accs, n, seed, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {}
    for i, acc in enumerate(accs):
        wrong = (y + rng.integers(1, n_classes, n)) % n_classes
        preds[f"s{i}"] = np.where(rng.random(n) < acc, y, wrong)
    return y, preds


@pytest.fixture(scope="module")
def result():
    # 8 systems: from 6 on the BCa tests share their resamples, which the result keeps
    y, preds = _systems(np.linspace(0.6, 0.85, 8), 400, 3)
    return sigtest.compare(y, preds, metrics=METRICS, test=BCaInterval(n_resamples=B),
                           random_state=0)


def test_equal_numpy_percentiles_of_the_kept_draws(result):
    table = result.scores(intervals="shared")
    own = result.scores()
    assert list(table.columns) == list(own.columns) == [
        "system", "metric", "score", "ci_low", "ci_high", "ci_level", "n_resamples", "ci_method"]
    # the same rows in the same order (systems in input order, then metrics)
    assert list(zip(table.system, table.metric)) == list(zip(own.system, own.metric))
    np.testing.assert_array_equal(table["score"], own["score"])
    for metric in METRICS:
        kept = result._data.kept_scores[metric]
        assert kept.source == "resample" and kept.n_resamples == B
        part = table[table.metric == metric].set_index("system").loc[list(result.systems)]
        # numpy's default quantile (linear interpolation, type 7) of each system's row;
        # the engine interpolates in its own expression: equal to a few ulps
        low, high = np.percentile(kept.scores, [2.5, 97.5], axis=1)
        np.testing.assert_allclose(part["ci_low"], low, rtol=1e-13, atol=0)
        np.testing.assert_allclose(part["ci_high"], high, rtol=1e-13, atol=0)
        assert (part["ci_level"] == 0.95).all() and (part["n_resamples"] == B).all()
        assert (part["ci_method"] == SHARED_METHODS["resample"]).all()
        assert (part["ci_low"] < part["score"]).all() and (part["score"] < part["ci_high"]).all()
    assert (own["ci_method"] == "bca").all()


def test_computed_once_and_returned_as_copies(result):
    first = result.scores(intervals="shared")
    first.loc[0, "ci_low"] = -1.0
    again = result.scores(intervals="shared")
    assert again.loc[0, "ci_low"] != -1.0
    assert result.scores(intervals="shared").equals(again)


def test_bad_intervals_value_names_the_argument(result):
    with pytest.raises(ValueError, match="'intervals'"):
        result.scores(intervals="bca")


def test_without_kept_draws_the_own_intervals():
    y, preds = _systems([0.6, 0.7, 0.8], 300, 1)  # 3 systems: no shared resamples
    res = sigtest.compare(y, preds, metrics="accuracy", test=BCaInterval(n_resamples=B),
                          random_state=0)
    assert not res._data.kept_scores
    assert res.scores(intervals="shared").equals(res.scores())


def test_a_perfect_system_falls_back_to_its_exact_own_interval():
    y, preds = _systems(np.linspace(0.6, 0.85, 7), 300, 2)
    preds["perfect"] = y.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sigtest.compare(y, preds, metrics="accuracy", test=BCaInterval(n_resamples=B),
                              random_state=0)
        shared = res.scores(intervals="shared").set_index("system")
        own = res.scores().set_index("system")
    # all its draws equal 1: the percentile would be the point [1, 1]
    assert np.all(res._data.kept_scores["accuracy"].scores[-1] == 1.0)
    assert shared.loc["perfect"].equals(own.loc["perfect"])
    assert own.loc["perfect", "ci_method"] == "exact Clopper-Pearson"
    assert own.loc["perfect", "ci_low"] < 1.0
    others = shared.drop(index="perfect")
    assert (others["ci_method"] == SHARED_METHODS["resample"]).all()


def test_report_and_leaderboard_resample_nothing_of_their_own(monkeypatch, result):
    y, preds = _systems(np.linspace(0.6, 0.85, 8), 400, 3)
    res = sigtest.compare(y, preds, metrics=METRICS, test=BCaInterval(n_resamples=B),
                          random_state=0)

    def refused(*args, **kwargs):
        raise AssertionError("the own score intervals were computed")

    monkeypatch.setattr(scores_module, "run_scores", refused)
    text = res.report("markdown")
    assert "percentile of shared resamples" in text
    board = res.leaderboard("f1_macro")
    assert board.attrs["score_ci_method"] == SHARED_METHODS["resample"]
    shared = res.scores(intervals="shared").set_index(["system", "metric"])
    np.testing.assert_array_equal(board["ci_low"],
                                  shared.loc[[(s, "f1_macro") for s in board.index], "ci_low"])


def _coverage(bootstrap, n_sims, k, n, seed):
    """Share of the shared intervals of accuracy that hold the true accuracy."""
    accs = np.linspace(0.55, 0.9, k)
    hits = total = 0
    for sim in range(n_sims):
        y, preds = _systems(accs, n, seed + sim, n_classes=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sigtest.compare(y, preds, metrics="accuracy", correction="max-t",
                                  bootstrap=bootstrap, test=BCaInterval(n_resamples=B),
                                  random_state=sim)
        table = res.scores(intervals="shared").set_index("system").loc[list(preds)]
        assert (table["ci_method"] == SHARED_METHODS[bootstrap]).all()
        hits += int(np.sum((table["ci_low"] <= accs) & (accs <= table["ci_high"])))
        total += k
    return hits / total


@pytest.mark.slow
@pytest.mark.parametrize("bootstrap", ["resample", "multiplier"])
def test_coverage_of_the_true_accuracy(bootstrap):
    # 60 comparisons x 10 systems = 600 intervals at 95 % on 300 items each
    # (accuracies .55-.9: binomial, nearly symmetric); the systems' errors are
    # independent, so the count is binomial: sd sqrt(.95 .05 / 600) = .0089,
    # and the band [.92, .975] is 3.4 sd below and 2.8 above .95 (the
    # percentile interval undercovers slightly at this size, by < .01)
    cover = _coverage(bootstrap, 60, 10, 300, 100)
    assert 0.92 <= cover <= 0.975
