"""compare with many systems: permutations and Bayesian bootstrap shared by all pairs.

Metrics with per-item statistics (soft probabilities): every pair's permuted
differences come from one swap vector per resample shared by all pairs. Each
row's p-value must be the Monte Carlo permutation p of the pair on those
swaps, reconstructed here naively (the swaps recomputed from SplitMix64 in
Python, the swapped predictions scored by the metric's own function);
results do not depend on n_jobs or on the order of the systems, and each
pair's test keeps its size. The Bayesian bootstrap draws one Dirichlet
weight vector per resample for all systems: each row's interval and
probabilities are recomputed from naively reweighted scores.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

from sigtest import BayesianBootstrap, PairedPermutation, compare
from sigtest._engine import prepare_paired
from sigtest._engine.rng import resample_keys
from sigtest._engine.shared import SharedDeltas
from sigtest._workflows.compare.shared import (
    _DIRICHLET_TAG,
    _FLIP_TAG,
    MIN_SHARED_SYSTEMS,
    shared_seed,
)
from sigtest.metrics import get_metric
from sigtest.tests_ import shared_scheme
from sigtest.utils.validation import spawn_seeds

B = 199
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _splitmix(z):
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
    return z ^ (z >> 31)


def _naive_swaps(seed, n_units):
    """``(B, n_units)`` bools: unit u swapped in resample b (bit u % 64 of word u // 64)."""
    keys = [int(k) for k in resample_keys(seed, B)]
    out = np.zeros((B, n_units), dtype=bool)
    for b, key in enumerate(keys):
        for u in range(n_units):
            word = _splitmix((key + (u // 64 + 1) * _GOLDEN) & _MASK)
            out[b, u] = (word >> (u % 64)) & 1
    return out


def _soft_systems(k=MIN_SHARED_SYSTEMS, n=120, seed=0, sharp=None):
    rng = np.random.default_rng(seed)
    Y = rng.dirichlet(np.ones(3), n)
    sharp = np.linspace(1.0, 3.0, k) if sharp is None else sharp
    preds = {f"s{i}": rng.dirichlet(np.ones(3) * c, n) for i, c in enumerate(sharp)}
    return Y, preds


def test_paired_permutation_declares_the_permutation_scheme():
    assert shared_scheme(BayesianBootstrap()) == "bayesian"
    assert shared_scheme(PairedPermutation()) == "permutation"
    assert shared_scheme(PairedPermutation(exact=False)) == "permutation"
    assert shared_scheme(PairedPermutation(exact=True)) is None


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rows_equal_the_permutation_p_on_naive_shared_swaps():
    Y, preds = _soft_systems()
    metrics = ["soft_accuracy", "cross_entropy"]
    frame = compare(Y, preds, metrics=metrics, test=PairedPermutation(n_resamples=B),
                    random_state=5).to_frame()
    names = list(preds)
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(5, len(pairs) + 1)
    seed = shared_seed(seeds[-1], _FLIP_TAG, 0)
    swaps = _naive_swaps(seed, Y.shape[0])
    eps100 = 100 * np.finfo(float).eps
    for metric in metrics:
        func = get_metric(metric).score_func
        for a, b in pairs:
            row = frame[(frame.metric == metric) & (frame.system_a == a)
                        & (frame.system_b == b)].iloc[0]
            pa, pb = preds[a], preds[b]
            d_star = np.array([func(Y, np.where(f[:, None], pa, pb))
                               - func(Y, np.where(f[:, None], pb, pa)) for f in swaps])
            sa, sb = func(Y, pa), func(Y, pb)
            d = sb - sa
            tol = eps100 * abs(d) + eps100 * (abs(sa) + abs(sb))
            want = (np.count_nonzero(np.abs(d_star) >= abs(d) - tol) + 1) / (B + 1)
            assert row.pvalue == pytest.approx(want, rel=1e-12), (metric, a, b)
            assert row.n_resamples == B
            # the same as the test run on those differences through its entry
            paired = prepare_paired(Y, pa, pb, metric)
            got = PairedPermutation(n_resamples=B).test_paired(
                paired, resamples=SharedDeltas(d_star, seed, "permutation"))
            assert got.pvalue == pytest.approx(row.pvalue, rel=1e-12)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fewer_systems_and_hard_labels_keep_their_own_permutations():
    Y, preds = _soft_systems(k=MIN_SHARED_SYSTEMS - 1)
    test = PairedPermutation(n_resamples=B)
    frame = compare(Y, preds, metrics="soft_accuracy", test=test, random_state=2).to_frame()
    seeds = spawn_seeds(2, 11)
    own = PairedPermutation(n_resamples=B, random_state=seeds[0]).test(
        Y, preds["s0"], preds["s1"], metric="soft_accuracy")
    assert frame.iloc[0].pvalue == own.pvalue
    # hard labels: the pair's own cell kernel (B x cells per pair), also with 6+ systems
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    hard = {f"s{i}": np.where(rng.random(200) < 0.6 + 0.04 * i, y, (y + 1) % 3)
            for i in range(MIN_SHARED_SYSTEMS + 1)}
    frame = compare(y, hard, metrics="f1_macro", test=PairedPermutation(n_resamples=B),
                    random_state=2).to_frame()
    seeds = spawn_seeds(2, 22)
    own = PairedPermutation(n_resamples=B, random_state=seeds[0]).test(
        y, hard["s0"], hard["s1"], metric="f1_macro", labels=np.unique(y))
    assert frame.iloc[0].pvalue == own.pvalue


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("design", ["none", "groups"])
def test_identical_for_any_n_jobs_and_system_order(design):
    Y, preds = _soft_systems(k=7, n=96)
    kw = {"groups": np.repeat(np.arange(32), 3)} if design == "groups" else {}
    args = dict(metrics=["soft_f1_macro", "soft_accuracy"],
                test=PairedPermutation(n_resamples=B), random_state=3, **kw)
    ref = compare(Y, preds, n_jobs=1, **args).to_frame()
    pd.testing.assert_frame_equal(ref, compare(Y, preds, n_jobs=2, **args).to_frame(),
                                  check_exact=True)
    backwards = dict(reversed(list(preds.items())))
    other = compare(Y, backwards, n_jobs=2, **args).to_frame()
    rows = {(r.metric, frozenset((r.system_a, r.system_b))): r for r in other.itertuples()}
    assert len(rows) == len(ref)
    for r1 in ref.itertuples():
        assert r1.pvalue == rows[r1.metric, frozenset((r1.system_a, r1.system_b))].pvalue


@pytest.mark.slow
def test_shared_permutation_size_on_null_systems():
    """8 exchangeable systems (every pair null): per-pair rejection rate at 5 %.

    Each pair's test is an exact Monte Carlo permutation test on the shared
    swaps, so every pair rejects with probability at most 0.05 (exactly
    floor(0.05 (B + 1)) / (B + 1) = 0.05 for B = 199 with continuous
    scores). 300 data sets x 28 pairs: the pairs of a data set are
    correlated, so the band is set by the 300 independent data sets: sd
    sqrt(.05 .95 / 300) = 0.0126 at most; 4 sd is [0.0, 0.10]; the lower end
    0.02 catches a test that never rejects (e.g. deltas of the wrong pair).
    """
    rejected = []
    test = PairedPermutation(n_resamples=B)
    for rep in range(300):
        Y, preds = _soft_systems(k=8, n=60, seed=30_000 + rep, sharp=np.full(8, 2.0))
        frame = compare(Y, preds, metrics="soft_accuracy", test=test, correction=None,
                        random_state=rep).to_frame()
        rejected.append(frame.pvalue.to_numpy() <= 0.05)
    rate = float(np.mean(rejected))
    assert 0.02 <= rate <= 0.10, rate


def _naive_dirichlet(seed, n_units, block=128):
    """``(B, n_units)`` weights: block q from default_rng(SeedSequence(seed, (7, q))), sum n."""
    out = []
    for q in range(-(-B // block)):
        size = min(B, (q + 1) * block) - q * block
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(7, q)))
        G = rng.standard_exponential((size, n_units))
        out.append(G * (n_units / G.sum(axis=1, keepdims=True)))
    return np.concatenate(out)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bayesian_rows_equal_naive_reweighted_scores():
    Y, preds = _soft_systems(n=80)
    names = list(preds)
    test = BayesianBootstrap(n_resamples=B, rope=0.01)
    frame = compare(Y, preds, metrics="soft_accuracy", test=test, random_state=9).to_frame()
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(9, len(pairs) + 1)
    seed = shared_seed(seeds[-1], _DIRICHLET_TAG, 0)
    W = _naive_dirichlet(seed, Y.shape[0])
    func = get_metric("soft_accuracy").score_func
    T = np.array([[func(Y, preds[s], sample_weight=w) for s in names] for w in W])
    for a, b in pairs:
        row = frame[(frame.system_a == a) & (frame.system_b == b)].iloc[0]
        d = T[:, names.index(b)] - T[:, names.index(a)]
        low, high = np.quantile(d, [0.025, 0.975])
        np.testing.assert_allclose((row.ci_low, row.ci_high), (low, high), rtol=1e-9)
        # probabilities: counts of draws beyond the rope (no draw sits within 1e-9 of it)
        assert row.prob_better == pytest.approx(np.mean(d > 0.01), abs=1e-12)
        assert row.prob_worse == pytest.approx(np.mean(d < -0.01), abs=1e-12)
        own = BayesianBootstrap(n_resamples=B, rope=0.01, random_state=seeds[0]).test(
            Y, preds[a], preds[b], metric="soft_accuracy")
        assert (row.ci_low, row.ci_high) != tuple(own.confidence_interval)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bayesian_identical_for_any_n_jobs_order_and_range_split():
    from sigtest._engine.shared_blocks import (
        shared_dirichlet_sums_range,
        shared_units,
        system_units,
    )
    from sigtest._engine.design import check_design

    Y, preds = _soft_systems(k=7, n=90)
    args = dict(metrics=["soft_accuracy"], test=BayesianBootstrap(n_resamples=B),
                random_state=4, strata=np.arange(90) % 3)
    ref = compare(Y, preds, n_jobs=1, **args).to_frame()
    pd.testing.assert_frame_equal(ref, compare(Y, preds, n_jobs=2, **args).to_frame(),
                                  check_exact=True)
    other = compare(Y, dict(reversed(list(preds.items()))), n_jobs=1, **args).to_frame()
    rows = {frozenset((r.system_a, r.system_b)): r for r in other.itertuples()}
    for r1 in ref.itertuples():
        r2 = rows[frozenset((r1.system_a, r1.system_b))]
        same = r1.system_a == r2.system_a
        assert (r1.ci_low, r1.ci_high) == ((r2.ci_low, r2.ci_high) if same
                                           else (-r2.ci_high, -r2.ci_low))
    # ranges of resamples (across the 128-resample streams) give the whole run's rows
    d = check_design(None, np.arange(90) % 3, 90)
    rng = np.random.default_rng(0)
    units = shared_units([system_units(rng.random((90, 2)), d) for _ in range(3)])
    whole = shared_dirichlet_sums_range(units, 300, 8, 0, 300)
    parts = np.concatenate([shared_dirichlet_sums_range(units, 300, 8, lo, min(300, lo + 100))
                            for lo in range(0, 300, 100)])
    np.testing.assert_array_equal(parts, whole)
    # each stratum keeps its number of units: the weights of a stratum sum to 30
    ones = shared_units([system_units(np.c_[np.arange(90) % 3 == h], d) for h in range(3)])
    np.testing.assert_allclose(shared_dirichlet_sums_range(ones, 300, 8, 0, 300)[:, :, 0], 30.0)
