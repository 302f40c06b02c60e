"""compare with many systems: BCa intervals on bootstrap resamples shared by all pairs.

Every row's interval must be the BCa interval of the pair's differences on the
shared resamples, recomputed here by a naive twin (the drawn items scored by
the metric's own function); the p-value test keeps its per-pair seed; results
do not depend on n_jobs or on the order of the systems.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from sigtest import BCaInterval, PairedPermutation, compare
from sigtest._workflows.compare.shared import _SHARED_TAG, MIN_SHARED_SYSTEMS, shared_seed
from sigtest._engine import prepare_paired
from sigtest._engine.shared import SharedDeltas, shared_draws
from sigtest.utils.validation import spawn_seeds

from _shared_data import hard_systems, naive_shared_scores, pair_row

B = 199


def _systems(k=MIN_SHARED_SYSTEMS, n=300, n_classes=3, seed=0):
    return hard_systems(k, n, n_classes, seed)


def _tests():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rows_equal_bca_on_naive_shared_resamples():
    y, preds = _systems()
    metrics = ["accuracy", "f1_macro"]
    frame = compare(y, preds, metrics=metrics, test=_tests(), random_state=42).to_frame()
    names = list(preds)
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(42, 2 * len(pairs) + 1)  # (p, ci) per pair, then the score seed
    seed = shared_seed(seeds[-1], _SHARED_TAG, 0)
    draws = shared_draws(y.shape[0], B, seed)
    labels = np.unique(y)
    for metric in metrics:
        # naive twin: every system scored on the same drawn items
        T = naive_shared_scores(y, preds, draws, metric, labels)
        for k, (a, b) in enumerate(pairs):
            row = pair_row(frame, metric, a, b)
            lab = labels if metric == "f1_macro" else np.unique(np.r_[y, *preds.values()])
            p = PairedPermutation(n_resamples=B, random_state=seeds[2 * k]).test(
                y, preds[a], preds[b], metric=metric, labels=lab)
            assert row.pvalue == p.pvalue  # the p-value test keeps its own draws
            ia, ib = names.index(a), names.index(b)
            paired = prepare_paired(y, preds[a], preds[b], metric, labels=lab)
            ci = BCaInterval(n_resamples=B).test_paired(
                paired, resamples=SharedDeltas(T[:, ib] - T[:, ia], seed))
            np.testing.assert_allclose((row.ci_low, row.ci_high), tuple(ci.confidence_interval),
                                       rtol=1e-12, atol=1e-15)
            # and not the pair's own resamples (the scheme did change)
            own = BCaInterval(n_resamples=B, random_state=seeds[2 * k + 1]).test(
                y, preds[a], preds[b], metric=metric, labels=lab)
            assert (row.ci_low, row.ci_high) != tuple(own.confidence_interval)


def test_fewer_systems_keep_their_own_resamples():
    y, preds = _systems(k=MIN_SHARED_SYSTEMS - 1)
    frame = compare(y, preds, metrics="accuracy", test=_tests(), random_state=1).to_frame()
    pairs = list(itertools.combinations(list(preds), 2))
    seeds = spawn_seeds(1, 2 * len(pairs))
    a, b = pairs[0]
    own = BCaInterval(n_resamples=B, random_state=seeds[1]).test(y, preds[a], preds[b])
    row = frame.iloc[0]
    assert (row.system_a, row.system_b) == (a, b)
    assert (row.ci_low, row.ci_high) == tuple(own.confidence_interval)


@pytest.mark.parametrize("design", ["none", "groups", "strata"])
def test_identical_for_any_n_jobs_and_system_order(design):
    y, preds = _systems(k=7, n=240)
    kw = {}
    if design == "groups":
        kw["groups"] = np.repeat(np.arange(40), 6)
    elif design == "strata":
        kw["strata"] = np.arange(240) % 3
    args = dict(metrics=["f1_macro", "accuracy"], test=_tests(), random_state=3, **kw)
    ref = compare(y, preds, n_jobs=1, **args).to_frame()
    pd.testing.assert_frame_equal(ref, compare(y, preds, n_jobs=2, **args).to_frame(),
                                  check_exact=True)
    backwards = dict(reversed(list(preds.items())))
    other = compare(y, backwards, n_jobs=1, **args).to_frame()
    rows = {(r.metric, frozenset((r.system_a, r.system_b))): r for r in other.itertuples()}
    assert len(rows) == len(ref)
    for r1 in ref.itertuples():
        r2 = rows[r1.metric, frozenset((r1.system_a, r1.system_b))]
        assert r1.pvalue == r2.pvalue
        if r1.system_a == r2.system_a:
            assert (r1.delta, r1.ci_low, r1.ci_high) == (r2.delta, r2.ci_low, r2.ci_high)
        else:  # re-oriented exactly: delta negated, interval mirrored
            assert (r1.delta, r1.ci_low, r1.ci_high) == (-r2.delta, -r2.ci_high, -r2.ci_low)


def test_supplied_deltas_only_for_matching_size():
    y, preds = _systems(k=2, n=100)
    a, b = preds["s0"], preds["s1"]
    fake = np.linspace(-0.1, 0.2, B)
    paired = prepare_paired(y, a, b, "accuracy")
    used = BCaInterval(n_resamples=B).test_paired(paired, resamples=SharedDeltas(fake, 0))
    np.testing.assert_array_equal(used.null_distribution, fake)
    # another size is a caller bug: refused, never a silent fallback to own draws
    with pytest.raises(ValueError, match="n_resamples"):
        BCaInterval(n_resamples=B + 1, random_state=0).test_paired(
            paired, resamples=SharedDeltas(fake, 0))
    other = BCaInterval(n_resamples=B + 1, random_state=0).test_paired(paired)
    ref = BCaInterval(n_resamples=B + 1, random_state=0).test(y, a, b)
    assert other.confidence_interval == ref.confidence_interval


def test_resamples_only_for_tests_that_declare_them():
    from sigtest._engine.resampling import resampled_deltas
    from sigtest.tests_ import accepts_resamples

    y, preds = _systems(k=2, n=100)
    paired = prepare_paired(y, preds["s0"], preds["s1"], "accuracy")
    shared = SharedDeltas(np.linspace(-0.1, 0.2, B), 0)
    assert not shared.deltas.flags.writeable  # handed over read-only
    assert accepts_resamples(BCaInterval()) and not accepts_resamples(PairedPermutation(exact=True))

    class OwnEvaluate(BCaInterval):  # overrides evaluate without the keyword: left out
        def evaluate(self, data, random_state):
            return super().evaluate(data, random_state)

    assert not accepts_resamples(OwnEvaluate())
    for test in (PairedPermutation(n_resamples=B, exact=True), OwnEvaluate(n_resamples=B)):
        with pytest.raises(TypeError, match="resamples"):
            test.test_paired(paired, resamples=shared)
    # a test refuses resamples of another kind than it consumes
    with pytest.raises(ValueError, match="'permutation' resamples"):
        PairedPermutation(n_resamples=B).test_paired(paired, resamples=shared)
    for kwargs in ({"scheme": "permutation"}, {"sample_size": 0.5}):
        with pytest.raises(ValueError, match="Supplied"):
            resampled_deltas(paired, B, 0, supplied=shared, **kwargs)
    got = resampled_deltas(paired, B, 0, supplied=shared)
    np.testing.assert_array_equal(got, shared.deltas)
    assert got.flags.writeable


# ------------------------------------------------- several runs per system
# Issue 20: with 6 systems or more and several runs each (runs="average", the
# default), the shared resamples crashed (the run-averaged rows of a system were
# merged into cells, so the systems' rows were not the same items).
def _runs_systems(k, n=120, n_classes=3, mode="average", seed=0):
    """``k`` systems, mostly 2 runs, some 1 or 3 where the mode allows other counts."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    systems = {}
    for i, acc in enumerate(np.linspace(0.5, 0.8, k)):
        n_runs = 2 if mode in ("each", "mean", "pool") else (1, 2, 3)[i % 3]
        runs = []
        for _ in range(n_runs):
            if mode == "mean":
                p = rng.dirichlet(np.ones(n_classes), n)
                p[np.arange(n), y] += rng.random(n) < acc  # right with probability >= acc
                runs.append(p / p.sum(axis=1, keepdims=True))
            else:
                runs.append(np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n)))
        systems[f"s{i:02d}"] = runs  # zero-padded: sorted names = canonical pair order
    return y, systems


def _naive_score(metric, y, runs, mode, labels):
    """The score of one system (one entry per comparison), from scikit-learn directly."""
    from sklearn.metrics import accuracy_score, f1_score

    def score(t, p):
        if metric == "accuracy":
            return accuracy_score(t, p)
        return f1_score(t, p, average="macro", labels=labels, zero_division=0.0)

    if mode == "mean":
        return [score(y, np.argmax(np.mean(runs, axis=0), axis=1))]
    if mode == "each":
        return [score(y, r) for r in runs]
    # average, nested and pool: the pooled score (the runs concatenated)
    return [score(np.tile(y, len(runs)), np.concatenate(runs))]


@pytest.mark.filterwarnings("ignore::UserWarning")  # runs="pool" warns (its own test)
@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("mode", ["average", "each", "mean", "pool", "nested"])
@pytest.mark.parametrize("k", [5, 6, 12])
def test_every_runs_mode_with_5_6_and_12_systems(k, mode):
    from sigtest import HierarchicalBootstrap

    y, systems = _runs_systems(k, mode=mode)
    metrics = ["accuracy", "f1_macro"]
    test = HierarchicalBootstrap(n_resamples=B) if mode == "nested" else _tests()
    frame = compare(y, systems, metrics=metrics, test=test, runs=mode,
                    random_state=0).to_frame()
    n_comparisons = 2 if mode == "each" else 1
    assert len(frame) == n_comparisons * len(metrics) * k * (k - 1) // 2
    labels = np.unique(y)
    for metric in metrics:
        scores = {s: _naive_score(metric, y, r, mode, labels) for s, r in systems.items()}
        rows = frame[frame.metric == metric]
        for r, row in enumerate(rows.itertuples()):
            run = r // (k * (k - 1) // 2)  # runs="each": one block of pairs per run
            assert row.score_a == pytest.approx(scores[row.system_a][run], abs=1e-12)
            assert row.score_b == pytest.approx(scores[row.system_b][run], abs=1e-12)
            assert 0 < row.pvalue <= 1
            assert row.ci_low <= row.ci_high
            assert np.isfinite([row.ci_low, row.ci_high]).all()


@pytest.mark.parametrize("k", [MIN_SHARED_SYSTEMS, 12])
def test_runs_average_rows_equal_the_pair_path_on_the_shared_draws(k, monkeypatch):
    """6+ systems with runs: every row is what the per-pair path (under 6 systems)
    computes for that pair, the interval on the shared draws.

    The shared differences are checked against a naive twin (scikit-learn on the
    drawn items of every run, pooled) to 1e-12; the interval is then the BCa
    interval of the pair path on exactly those differences (a 1e-16 difference
    can reorder tied resamples, so the twin's own differences are not used for
    the interval).
    """
    from sklearn.metrics import accuracy_score, f1_score

    import sigtest._workflows.compare.api as compare_module
    from sigtest._engine import prepare_paired, prepare_paired_runs

    captured = []

    def spy(*args, **kwargs):
        shared = compare_module.shared_deltas.__wrapped__(*args, **kwargs)
        captured.extend(shared)  # every task's TaskDeltas
        return shared

    spy.__wrapped__ = compare_module.shared_deltas
    monkeypatch.setattr(compare_module, "shared_deltas", spy)
    y, systems = _runs_systems(k)
    metrics = ["accuracy", "f1_macro"]
    frame = compare(y, systems, metrics=metrics, test=_tests(), random_state=42).to_frame()
    names = list(systems)
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(42, 2 * len(pairs) + 1)
    draws = shared_draws(y.shape[0], B, shared_seed(seeds[-1], _SHARED_TAG, 0))
    labels = np.unique(y)
    union = np.unique(np.r_[y, *[np.concatenate(r) for r in systems.values()]])

    def pooled(metric, d, runs):
        """Score of the runs concatenated on the drawn items, written out in NumPy."""
        t, p = np.tile(y[d], len(runs)), np.concatenate([r[d] for r in runs])
        if metric == "accuracy":
            return np.mean(t == p)
        tp = np.array([np.sum((t == c) & (p == c)) for c in labels])
        wrong = np.array([np.sum(t == c) + np.sum(p == c) for c in labels]) - 2 * tp
        return np.mean(np.where(tp > 0, 2 * tp / np.maximum(2 * tp + wrong, 1), 0.0))

    for metric in metrics:  # the NumPy twin is scikit-learn's score on the full data
        full = [pooled(metric, np.arange(y.shape[0]), r) for r in systems.values()]
        sk = [accuracy_score(np.tile(y, len(r)), np.concatenate(r)) if metric == "accuracy"
              else f1_score(np.tile(y, len(r)), np.concatenate(r), average="macro",
                            labels=labels, zero_division=0.0) for r in systems.values()]
        np.testing.assert_allclose(full, sk, rtol=1e-12)

    assert len(captured) == len(pairs)  # one task per pair, in canonical order
    for mi, metric in enumerate(metrics):
        T = np.array([[pooled(metric, d, systems[s]) for s in names] for d in draws])
        lab = labels if metric == "f1_macro" else union
        for p, (a, b) in enumerate(pairs):
            row = frame[(frame.metric == metric) & (frame.system_a == a)
                        & (frame.system_b == b)].iloc[0]
            if len(systems[a]) == len(systems[b]) == 1:  # one run each: as without runs
                paired = prepare_paired(y, systems[a][0], systems[b][0], metric, labels=lab)
            else:
                paired = prepare_paired_runs(y, systems[a], systems[b], metric, labels=lab)
            own_p = PairedPermutation(n_resamples=B, random_state=seeds[2 * p]).test_paired(paired)
            assert row.pvalue == own_p.pvalue  # the p-value test keeps the pair's seed
            shared = captured[p][(0, mi, p, 0), 1]  # key (run, metric, pair, test), role CI
            ia, ib = names.index(a), names.index(b)
            np.testing.assert_allclose(shared.deltas, T[:, ib] - T[:, ia], rtol=0, atol=1e-12)
            ci = BCaInterval(n_resamples=B).test_paired(paired, resamples=shared)
            assert (row.ci_low, row.ci_high) == tuple(ci.confidence_interval)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_ranks_with_runs_average():
    """ranks() resamples every system on shared draws: with runs it crashed too."""
    y, systems = _runs_systems(4)
    res = compare(y, systems, metrics="accuracy", test=_tests(), random_state=0)
    ranks = res.ranks(n_resamples=B)
    pooled = {s: _naive_score("accuracy", y, r, "average", None)[0] for s, r in systems.items()}
    want = pd.Series(pooled).rank(ascending=False, method="min").astype(int)
    assert ranks.set_index("system")["rank"].astype(int).to_dict() == want.to_dict()
    assert ranks.p_best.sum() == pytest.approx(1.0)


@pytest.mark.slow
def test_runs_average_shared_intervals_cover_as_the_pair_path():
    """6 systems with 1-3 runs each: the shared-resample BCa intervals cover the
    run-averaged difference as often as the per-pair intervals (5 systems) do.

    Every run of system s is right on each item with probability P[s]
    independently, so the run-averaged accuracy difference of a pair is
    P[b] - P[a]. The same 10 pairs (s0..s4) are scored from the 6-system
    (shared) and the 5-system (per-pair) comparison of the same data.
    Band: 100 data sets x 10 pairs = 1,000 intervals per path; the 99.9 %
    binomial band of a 95 % coverage is +-0.023 for independent intervals,
    widened to [0.91, 0.985] as the pairs of a data set are correlated; the
    two paths differ only by Monte Carlo draws on the same data, so their
    coverages must agree within 0.03 (measured: see the report of issue 20).
    """
    P = np.linspace(0.6, 0.75, 6)
    n_runs = (1, 2, 3, 1, 2, 3)
    covered = {6: [], 5: []}
    for rep in range(100):
        rng = np.random.default_rng(1000 + rep)
        y = rng.integers(0, 3, 200)
        wrong = lambda: (y + 1 + rng.integers(0, 2, 200)) % 3  # noqa: E731
        systems = {f"s{i}": [np.where(rng.random(200) < p, y, wrong()) for _ in range(r)]
                   for i, (p, r) in enumerate(zip(P, n_runs))}
        for k in (6, 5):
            frame = compare(y, dict(list(systems.items())[:k]), metrics="accuracy",
                            test=BCaInterval(n_resamples=499), random_state=rep).to_frame()
            for row in frame.itertuples():
                a, b = int(row.system_a[1]), int(row.system_b[1])
                if b < 5:
                    covered[k].append(row.ci_low <= P[b] - P[a] <= row.ci_high)
    shared, own = np.mean(covered[6]), np.mean(covered[5])
    assert len(covered[6]) == len(covered[5]) == 1000
    assert 0.91 <= shared <= 0.985 and 0.91 <= own <= 0.985, (shared, own)
    assert abs(shared - own) <= 0.03, (shared, own)
