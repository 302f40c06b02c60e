"""compare(pairs="adjacent"): only the k - 1 pairs of neighbours in the observed ranking.

The expected pairs are derived here independently of the library (each
system's accuracy or error computed with numpy, sorted best first, ties by
name); the adjusted p-values are checked against adjust_pvalues of the
comparison's own raw p-values over the k - 1 pairs, and the raw p-values of
a pair against the same pair tested with pairs="all".
"""

import numpy as np
import pytest

import sigtest
from sigtest import PairedPermutation
from sigtest._workflows.compare.maxt import resolve_correction
from sigtest.exceptions import DegenerateDistributionWarning

TEST = PairedPermutation(n_resamples=999)


def _systems(accs, n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, {name: np.where(rng.random(n) < acc, y, 1 - y) for name, acc in accs.items()}


def _expected_pairs(scores, greater=True):
    """Unordered neighbour pairs of the ranking best first, ties by name (naive twin)."""
    order = sorted(scores, key=lambda s: (-scores[s] if greater else scores[s], s))
    return [frozenset(p) for p in zip(order[:-1], order[1:])]


def _rows(result):
    frame = result.to_frame()
    return [frozenset(p) for p in zip(frame["system_a"], frame["system_b"])]


def test_adjacent_pairs_are_the_neighbours_of_the_observed_ranking():
    y, preds = _systems({"s0": 0.62, "s1": 0.9, "s2": 0.7, "s3": 0.8, "s4": 0.55})
    scores = {name: float(np.mean(p == y)) for name, p in preds.items()}
    assert len(set(scores.values())) == len(scores)  # a strict ranking
    r = sigtest.compare(y, preds, metrics="accuracy", test=TEST, pairs="adjacent",
                        random_state=0)
    frame = r.to_frame()
    assert r.pairs == "adjacent"
    assert len(frame) == len(preds) - 1
    # rows best-ranked pair first
    assert _rows(r) == _expected_pairs(scores)
    # oriented as pairs="all": A is the system given first
    names = list(preds)
    assert all(names.index(a) < names.index(b)
               for a, b in zip(frame["system_a"], frame["system_b"]))
    np.testing.assert_array_equal(frame["score_a"], [scores[a] for a in frame["system_a"]])
    np.testing.assert_array_equal(frame["score_b"], [scores[b] for b in frame["system_b"]])
    # each row is the same pair's row of pairs="all" (same shared resamples)
    every = sigtest.compare(y, preds, metrics="accuracy", test=TEST, random_state=0).to_frame()
    every = every.set_index(["system_a", "system_b"])
    for row in frame.itertuples(index=False):
        same = every.loc[(row.system_a, row.system_b)]
        assert row.delta == same["delta"]
        assert row.pvalue == same["pvalue"]


def test_adjacent_ranking_of_a_loss_puts_the_smallest_error_first():
    rng = np.random.default_rng(3)
    y = rng.normal(size=200)
    preds = {"s0": y + rng.normal(scale=1.0, size=200), "s1": y + rng.normal(scale=0.2, size=200),
             "s2": y + rng.normal(scale=2.0, size=200), "s3": y + rng.normal(scale=0.5, size=200)}
    errors = {name: float(np.mean(np.abs(p - y))) for name, p in preds.items()}
    r = sigtest.compare(y, preds, metrics="mean_absolute_error", test=TEST, pairs="adjacent",
                        random_state=0)
    assert _rows(r) == _expected_pairs(errors, greater=False)
    assert _rows(r) != _expected_pairs(errors, greater=True)


def test_adjacent_ties_in_the_observed_score_are_ordered_by_name():
    y, preds = _systems({"c": 0.9, "d": 0.6})
    rng = np.random.default_rng(1)
    tied = np.where(rng.random(len(y)) < 0.75, y, 1 - y)
    # "b" given before "a": an order by input would pair c-b, b-a, a-d
    preds = {"c": preds["c"], "b": tied, "a": tied.copy(), "d": preds["d"]}
    with pytest.warns(DegenerateDistributionWarning):  # identical systems: a degenerate pair
        r = sigtest.compare(y, preds, metrics="accuracy", test=TEST, pairs="adjacent",
                            random_state=0)
    assert _rows(r) == [frozenset("ca"), frozenset("ab"), frozenset("bd")]


def test_adjacent_pairs_do_not_depend_on_the_order_systems_are_given():
    y, preds = _systems({"m1": 0.7, "m2": 0.85, "m3": 0.6, "m4": 0.78, "m5": 0.66}, seed=2)
    keys = list(preds)
    out = []
    for order in (keys, keys[::-1], [keys[i] for i in (3, 0, 4, 2, 1)]):
        r = sigtest.compare(y, {k: preds[k] for k in order}, metrics=["accuracy", "f1_macro"],
                            test=TEST, pairs="adjacent", random_state=7)
        frame = r.to_frame()
        rows = {}
        for row in frame.itertuples(index=False):
            # orient every pair by name: delta is B - A
            sign = 1.0 if row.system_a < row.system_b else -1.0
            key = (row.metric, *sorted((row.system_a, row.system_b)))
            rows[key] = (sign * row.delta, row.pvalue, row.pvalue_adj)
        out.append(rows)
    assert out[0] == out[1] == out[2]
    # the ranking of the first metric gives the pairs of every metric
    pairs = {m: {k[1:] for k in out[0] if k[0] == m} for m in ("accuracy", "f1_macro")}
    assert pairs["accuracy"] == pairs["f1_macro"]


def test_adjacent_adjusted_pvalues_are_holm_over_the_k_minus_1_pairs():
    y, preds = _systems({"s0": 0.7, "s1": 0.74, "s2": 0.8, "s3": 0.66, "s4": 0.9, "s5": 0.85},
                        n=250, seed=4)
    r = sigtest.compare(y, preds, metrics=["accuracy", "f1_macro"], test=TEST,
                        pairs="adjacent", random_state=0)
    assert r.correction == "holm"  # "auto" on 5 pairs
    frame = r.to_frame()
    for metric in r.metrics:
        rows = frame[frame["metric"] == metric]
        assert len(rows) == len(preds) - 1
        expected = sigtest.adjust_pvalues(rows["pvalue"].to_numpy(), "holm")
        np.testing.assert_array_equal(rows["pvalue_adj"].to_numpy(), expected)
        np.testing.assert_array_equal(rows["significant"].to_numpy(), expected <= r.alpha)


def test_auto_correction_resolves_for_the_adjacent_family_size():
    runs = {f"s{i}": [np.zeros(3)] for i in range(12)}  # 66 pairs in all, 11 adjacent
    kw = dict(test=None, runs=runs, metrics="accuracy", baseline=None, alpha=0.05,
              runs_mode="average", n_units=100_000)
    assert resolve_correction("auto", pairs="all", **kw)[0] == "max-t"
    assert resolve_correction("auto", pairs="adjacent", **kw)[0] == "holm"


def test_adjacent_with_a_baseline_is_an_error_naming_baseline():
    y, preds = _systems({"a": 0.7, "b": 0.8, "c": 0.9})
    with pytest.raises(ValueError, match="'baseline'.*pairs='adjacent'"):
        sigtest.compare(y, preds, metrics="accuracy", test=TEST, pairs="adjacent",
                        baseline="a")


def test_adjacent_result_has_a_leaderboard_without_tiers_and_no_letters():
    y, preds = _systems({"a": 0.6, "b": 0.9, "c": 0.75, "d": 0.8})
    r = sigtest.compare(y, preds, metrics="accuracy", pairs="adjacent", random_state=0,
                        test=TEST)
    board = r.leaderboard()
    scores = {name: float(np.mean(p == y)) for name, p in preds.items()}
    assert list(board.index) == sorted(scores, key=lambda s: -scores[s])
    assert list(board["rank"]) == [1, 2, 3, 4]
    assert (board["tier"] == "").all()
    assert board.attrs["tier_kind"] == "none"
    assert "pairs='adjacent'" in board.attrs["tier_note"]
    assert board.attrs["n_significant_pairs"] == int(r.to_frame()["significant"].sum())
    with pytest.raises(ValueError, match="pairs='adjacent'"):
        r.letters()
    assert "pairs:adjacent" in r.signature()
    assert "neighbours in the ranking" in r.report("markdown")


@pytest.mark.slow
@pytest.mark.parametrize("accs", [
    (0.75,) * 8,  # every pair null: the adjacent pairs are those with the smallest gaps
    (0.6, 0.75, 0.75, 0.9),  # one null pair between two clear boundaries
])
def test_adjacent_family_wise_error_under_true_nulls_is_at_most_alpha(accs):
    """FWER over the adjacent pairs whose systems are equal, 1,000 seeded replicates.

    Band: alpha + 3 binomial standard errors (0.05 + 3 * sqrt(0.05 * 0.95 / 1000)
    = 0.071), so a correct procedure fails by chance with probability < 0.2 %.
    The pairs are chosen from the data; the simulation checks that this choice
    does not push the error above alpha in these configurations.
    """
    n_rep, n, alpha = 1000, 300, 0.05
    errors = 0
    for rep in range(n_rep):
        rng = np.random.default_rng(5000 + rep)
        y = rng.integers(0, 2, n)
        preds = {f"s{i}": np.where(rng.random(n) < acc, y, 1 - y) for i, acc in enumerate(accs)}
        r = sigtest.compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=999),
                            pairs="adjacent", random_state=rep, n_jobs=1)
        frame = r.to_frame()
        null = [accs[int(a[1:])] == accs[int(b[1:])]
                for a, b in zip(frame["system_a"], frame["system_b"])]
        errors += bool((frame["significant"].to_numpy() & np.array(null)).any())
    assert errors / n_rep <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_rep)
