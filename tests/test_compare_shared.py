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
from sigtest._compare_shared import _SHARED_TAG, MIN_SHARED_SYSTEMS, shared_seed
from sigtest._engine.shared import shared_draws, supplied_bootstrap
from sigtest.metrics import get_metric
from sigtest.utils.validation import spawn_seeds

B = 199


def _systems(k=MIN_SHARED_SYSTEMS, n=300, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
             for i, acc in enumerate(np.linspace(0.5, 0.8, k))}
    return y, preds


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
        func = get_metric(metric)
        kw = {"labels": labels, "zero_division": 0.0} if metric == "f1_macro" else {}
        # naive twin: every system scored on the same drawn items
        T = np.array([[func(y[d], preds[s][d], **kw) for s in names] for d in draws])
        for k, (a, b) in enumerate(pairs):
            row = frame[(frame.metric == metric) & (frame.system_a == a)
                        & (frame.system_b == b)].iloc[0]
            lab = labels if metric == "f1_macro" else np.unique(np.r_[y, *preds.values()])
            p = PairedPermutation(n_resamples=B, random_state=seeds[2 * k]).test(
                y, preds[a], preds[b], metric=metric, labels=lab)
            assert row.pvalue == p.pvalue  # the p-value test keeps its own draws
            ia, ib = names.index(a), names.index(b)
            with supplied_bootstrap(T[:, ib] - T[:, ia]):
                ci = BCaInterval(n_resamples=B).test(y, preds[a], preds[b], metric=metric,
                                                     labels=lab)
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
    with supplied_bootstrap(fake):
        used = BCaInterval(n_resamples=B).test(y, a, b)
        other = BCaInterval(n_resamples=B + 1, random_state=0).test(y, a, b)
    np.testing.assert_array_equal(used.null_distribution, fake)
    ref = BCaInterval(n_resamples=B + 1, random_state=0).test(y, a, b)
    assert other.confidence_interval == ref.confidence_interval
