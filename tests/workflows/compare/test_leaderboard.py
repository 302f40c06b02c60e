"""ComparisonResult.leaderboard(): one row per system, best first, and ranks() computed once.

The leaderboard puts side by side what the result computes elsewhere, so it
is checked against those: ranks() (rank, interval, P(best), best set),
scores(intervals="shared") (score and interval) and the pair rows of to_frame() (the letters
are valid: a shared letter exactly when the pair is not significant; the
tiers follow the step-down rule). ranks() is computed once per metric and
arguments, and its default draws are the comparison's own shared draws
(checked against the engine's functions on those draws).
"""

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest._constants import N_RESAMPLES
from sigtest import BCaInterval, PairedPermutation
from sigtest._engine.ranking import (
    best_probability,
    model_confidence_set,
    observed_ranks,
    rank_intervals,
)
from sigtest._report import tiers as tiers_module
from sigtest._workflows.compare import ranks as ranks_module
from sigtest._workflows.compare.leaderboard import LEADERBOARD_COLUMNS
B = 2999  # ranks(n_resamples=2000) reads the first 2,000 of the comparison's B draws
B = 2999  # >= ranks()' 2,000: ranks() reads the first 2,000 of the comparison's draws


def _systems(accs, n, seed, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {}
    for i, acc in enumerate(accs):
        wrong = (y + rng.integers(1, n_classes, n)) % n_classes
        preds[f"s{i}"] = np.where(rng.random(n) < acc, y, wrong)
    return y, preds


@pytest.fixture(scope="module")
def board():
    y, preds = _systems(np.linspace(0.6, 0.85, 8), 500, 0)
    res = sigtest.compare(y, preds, metrics=["accuracy", "f1_macro"],
                          test=BCaInterval(n_resamples=B), random_state=0)
    return y, preds, res


def test_contract_columns_index_and_attrs(board):
    _, _, res = board
    table = res.leaderboard()
    assert table.index.name == "system"
    assert list(table.columns) == LEADERBOARD_COLUMNS == [
        "rank", "rank_low", "rank_high", "score", "ci_low", "ci_high", "tier", "p_best",
        "in_best_set"]
    assert sorted(table.index) == sorted(res.systems)
    assert table["tier"].map(type).eq(str).all()
    assert table["in_best_set"].dtype == bool
    attrs = table.attrs
    assert attrs["metric"] == "accuracy" and attrs["n_systems"] == 8
    assert attrs["confidence_level"] == 0.95
    frame = res.to_frame()
    first = frame[(frame.metric == "accuracy") & (frame.test == res.tests[0])]
    assert attrs["n_significant_pairs"] == int(first["significant"].sum())
    assert res.leaderboard("f1_macro").attrs["metric"] == "f1_macro"


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_consistent_with_ranks_and_scores(board, metric):
    _, _, res = board
    table = res.leaderboard(metric)
    ranks = res.ranks(metric).set_index("system").loc[table.index]
    for col in ("rank", "rank_low", "rank_high", "p_best", "in_best_set"):
        np.testing.assert_array_equal(table[col].to_numpy(), ranks[col].to_numpy())
    # the score intervals of the comparison's shared draws (scores(intervals="shared"))
    scores = res.scores(intervals="shared")
    scores = scores[scores.metric == metric].set_index("system").loc[table.index]
    for col in ("score", "ci_low", "ci_high"):
        np.testing.assert_array_equal(table[col].to_numpy(), scores[col].to_numpy())
    assert table.attrs["score_ci_method"] == "percentile of shared resamples"
    own = res.scores()  # the observed scores are those of the own intervals
    own = own[own.metric == metric].set_index("system").loc[table.index]
    np.testing.assert_array_equal(table["score"].to_numpy(), own["score"].to_numpy())
    # best first: ranks never decrease down the table, equal ranks by name
    rank = table["rank"].to_numpy(dtype=float)
    assert np.all(np.diff(rank) >= 0)
    for r in np.unique(rank):
        names = list(table.index[rank == r])
        assert names == sorted(names)
    assert table["rank_low"].le(table["rank"]).all() and table["rank"].le(
        table["rank_high"]).all()


@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_letters_are_valid_for_the_pairs(board, metric):
    _, _, res = board
    table = res.leaderboard(metric)
    assert table.attrs["tier_kind"] == "letters"
    letters = table["tier"].to_dict()
    frame = res.to_frame()
    rows = frame[(frame.metric == metric) & (frame.test == res.tests[0])]
    for row in rows.itertuples():
        shared = set(letters[row.system_a]) & set(letters[row.system_b])
        assert bool(shared) == (not row.significant), row
    # the same display as letters()
    assert table["tier"].to_dict() == res.letters(metric)["letters"].to_dict()


def test_tiers_replace_too_many_letters(board, monkeypatch):
    _, _, res = board
    want = res.leaderboard()
    monkeypatch.setattr(tiers_module, "MAX_LETTERS", 1)
    table = res.leaderboard()
    assert table.attrs["tier_kind"] == "tiers"
    assert "letters" in table.attrs["tier_note"]
    tiers = table["tier"].astype(int).to_numpy()
    assert tiers[0] == 1 and np.all(np.diff(tiers) >= 0)
    # a new tier starts exactly where a system differs from the current leader
    frame = res.to_frame()
    rows = frame[(frame.metric == "accuracy") & (frame.test == res.tests[0])]
    sig = {frozenset(p): s for p, s in zip(zip(rows.system_a, rows.system_b),
                                           rows.significant)}
    leader = table.index[0]
    for name, tier, prev in zip(table.index[1:], tiers[1:], tiers[:-1]):
        assert (tier == prev + 1) == bool(sig[frozenset((leader, name))])
        if tier != prev:
            leader = name
    pd.testing.assert_frame_equal(table.drop(columns="tier"), want.drop(columns="tier"))


def test_baseline_pairs_have_no_tiers():
    y, preds = _systems([0.6, 0.7, 0.8], 300, 1)
    res = sigtest.compare(y, preds, metrics="accuracy", pairs="baseline", baseline="s0",
                          test=PairedPermutation(n_resamples=199), random_state=0)
    table = res.leaderboard()
    assert table.attrs["tier_kind"] == "none" and (table["tier"] == "").all()
    assert table.index[0] == "s2"


def test_bad_metric_names_the_argument(board):
    _, _, res = board
    with pytest.raises(ValueError, match="'metric'.*'nope'"):
        res.leaderboard("nope")
    with pytest.raises(TypeError, match="'metric'"):
        res.leaderboard(["accuracy"])


def test_several_runs_tested_separately_are_refused():
    y, preds = _systems([0.6, 0.8], 200, 2)
    runs = {s: [p, np.roll(p, 1)] for s, p in preds.items()}
    res = sigtest.compare(y, runs, metrics="accuracy", runs="each",
                          test=PairedPermutation(n_resamples=99), random_state=0)
    with pytest.raises(ValueError, match="runs"):
        res.leaderboard()


# ------------------------------------------------------------ ranks() once
def test_ranks_are_computed_once_per_metric_and_arguments(board, monkeypatch):
    y, preds, _ = board
    res = sigtest.compare(y, preds, metrics=["accuracy", "f1_macro"],
                          test=BCaInterval(n_resamples=B), random_state=0)
    calls = []
    real = ranks_module.rank_table

    def counting(*args, **kwargs):
        calls.append(kwargs["metric"])
        return real(*args, **kwargs)

    monkeypatch.setattr(ranks_module, "rank_table", counting)
    first = res.ranks()
    assert calls == [["accuracy", "f1_macro"]]
    first.loc[0, "p_best"] = -1.0  # a copy: the kept table does not change
    again = res.ranks()
    assert again.loc[0, "p_best"] != -1.0
    res.ranks("f1_macro")
    res.leaderboard()
    res.leaderboard("f1_macro")
    res.report("markdown", sections=["ranks"])
    assert len(calls) == 1
    res.ranks(confidence_level=0.9)
    res.ranks(n_resamples=500)
    res.ranks(random_state=1)
    res.ranks(random_state=1)
    assert len(calls) == 4
    rng = np.random.default_rng(0)
    res.ranks(random_state=rng)
    res.ranks(random_state=rng)  # a Generator advances: drawn again
    assert len(calls) == 6
    pd.testing.assert_frame_equal(res.ranks(), real(
        res._data, res.options, systems=res.systems, metrics=res.metrics, n_runs=1,
        frame=res.to_frame(), greater_is_better={m: True for m in res.metrics}))


def test_default_ranks_read_the_comparisons_shared_draws(board):
    _, _, res = board
    kept = res._data.kept_scores
    assert set(kept) == {"accuracy", "f1_macro"}
    assert all(k.n_resamples == B and k.source == "resample" for k in kept.values())
    table = res.ranks("accuracy", n_resamples=2000)  # a prefix of the B kept draws
    T = kept["accuracy"].scores[:, :2000].T
    frame = res.scores()
    theta = frame[frame.metric == "accuracy"].set_index("system").loc[res.systems, "score"]
    theta = theta.to_numpy()
    low, high, _ = rank_intervals(theta, T, 0.95)
    names = np.asarray(res.systems, dtype=object)
    in_set, _ = model_confidence_set(theta, T, 0.95,
                                     tie_order=np.argsort(np.argsort(names, kind="stable")))
    np.testing.assert_array_equal(table["rank"], observed_ranks(theta))
    np.testing.assert_array_equal(table["rank_low"], low)
    np.testing.assert_array_equal(table["rank_high"], high)
    np.testing.assert_array_equal(table["p_best"], best_probability(T))
    np.testing.assert_array_equal(table["in_best_set"], in_set)
    # another seed, or more draws than kept, draws anew
    assert not res.ranks("accuracy", n_resamples=2000,
                         random_state=5)["p_best"].equals(table["p_best"])
    assert len(res.ranks("accuracy", n_resamples=B + 1)) == 8


def test_default_ranks_do_not_depend_on_the_order_of_the_systems(board):
    y, preds, res = board
    rev = sigtest.compare(y, dict(reversed(list(preds.items()))),
                          metrics=["accuracy", "f1_macro"], test=BCaInterval(n_resamples=B),
                          random_state=0)
    key = ["metric", "system"]
    a = res.ranks().sort_values(key).reset_index(drop=True)
    b = rev.ranks().sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    pd.testing.assert_frame_equal(res.leaderboard(), rev.leaderboard(), check_exact=True)


def test_few_systems_without_shared_draws_rank_on_their_own_draws():
    y, preds = _systems([0.6, 0.7, 0.9], 300, 3)
    res = sigtest.compare(y, preds, metrics="accuracy", test=PairedPermutation(
        n_resamples=199), random_state=0)
    assert res._data.kept_scores == {}
    table = res.leaderboard()
    assert table.index[0] == "s2" and table["in_best_set"].sum() == 1


def test_ranks_read_the_draws_of_the_max_t_correction():
    """A test that draws nothing shared (McNemar): the max-T correction's draws are kept."""
    y, preds = _systems(np.linspace(0.6, 0.85, 7), 400, 4)
    res = sigtest.compare(y, preds, metrics="accuracy", test="mcnemar", correction="max-t",
                          random_state=0)
    kept = res._data.kept_scores["accuracy"]
    assert kept.source == "resample" and kept.n_resamples >= N_RESAMPLES
    table = res.ranks()  # the default number of draws: the max-T correction's
    T = kept.scores[:, :N_RESAMPLES].T
    np.testing.assert_array_equal(table["p_best"], best_probability(T))
    assert not kept.scores.flags.writeable
    mult = sigtest.compare(y, preds, metrics="accuracy", test="mcnemar", correction="max-t",
                           bootstrap="multiplier", random_state=0)
    assert mult._data.kept_scores["accuracy"].source == "multiplier"
    assert len(mult.ranks(bootstrap="multiplier")) == 7
