"""compare with many systems: the bootstrap test (BK) on the shared resamples, in pieces.

Every BK row of a compare of 6+ systems must be the 2-delta p-value of the
pair's differences on the shared resamples, reconstructed here naively (the
drawn items scored by the metric's own function, the p counted by a loop);
the shared bootstrap split into per-system and per-range pieces must equal
the one-call kernel; results do not depend on n_jobs or the systems' order.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from sigtest import BCaInterval, BergKirkpatrickBootstrap, compare
from sigtest._engine import prepare_paired
from sigtest._engine.design import check_design
from sigtest._engine.shared import SharedDeltas, shared_bootstrap_sums, shared_draws
from sigtest._engine.shared_blocks import shared_sums_range, shared_units, system_units
from sigtest._workflows.compare.shared import _SHARED_TAG, MIN_SHARED_SYSTEMS, shared_seed
from sigtest.tests_ import BooStSaBootstrap, accepts_resamples, shared_scheme
from sigtest.utils.validation import spawn_seeds

from _shared_data import hard_systems, naive_shared_scores, pair_row

B = 199


def _systems(k=MIN_SHARED_SYSTEMS, n=300, seed=0, spread=(0.5, 0.8)):
    return hard_systems(k, n, seed=seed, spread=spread)


def _naive_bk_two_sided(d_star, delta, sign, atol, n_discordant):
    """Two-sided 2-delta p by a loop: #{|t* - t| >= |t|}, ties within tolerance."""
    t = sign * delta
    if t == 0.0:
        return 1.0
    count = 0
    for d in d_star:
        if abs(sign * d - t) >= abs(t) - 100 * np.finfo(float).eps * abs(t) - atol:
            count += 1
    raw = (count + 1) / (len(d_star) + 1)
    return max(raw, min(1.0, 2.0 ** (1 - n_discordant)))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bk_rows_equal_the_2_delta_rule_on_naive_shared_resamples():
    y, preds = _systems()
    metrics = ["accuracy", "f1_macro"]
    test = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided")
    frame = compare(y, preds, metrics=metrics, test=test, random_state=7).to_frame()
    names = list(preds)
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(7, len(pairs) + 1)  # one p-value seed per pair, then the score seed
    seed = shared_seed(seeds[-1], _SHARED_TAG, 0)
    draws = shared_draws(y.shape[0], B, seed)
    labels = np.unique(y)
    for metric in metrics:
        T = naive_shared_scores(y, preds, draws, metric, labels)
        for k, (a, b) in enumerate(pairs):
            row = pair_row(frame, metric, a, b)
            lab = labels if metric == "f1_macro" else np.unique(np.r_[y, *preds.values()])
            paired = prepare_paired(y, preds[a], preds[b], metric, labels=lab)
            d_star = T[:, names.index(b)] - T[:, names.index(a)]
            atol = 100 * np.finfo(float).eps * (abs(paired.score_a) + abs(paired.score_b))
            want = _naive_bk_two_sided(d_star, paired.delta, 1.0, atol, paired.n_discordant)
            assert math.isclose(row.pvalue, want, rel_tol=1e-12), (metric, a, b)
            # the same as the test run on those differences through its entry
            got = test.test_paired(paired, resamples=SharedDeltas(d_star, seed))
            assert row.pvalue == got.pvalue
            # and not the pair's own resamples (the scheme did change)
            own = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided",
                                           random_state=seeds[k]).test(
                y, preds[a], preds[b], metric=metric, labels=lab)
            assert not np.array_equal(np.sort(own.null_distribution), np.sort(d_star))


def test_fewer_systems_and_subsamples_keep_their_own_resamples():
    y, preds = _systems(k=MIN_SHARED_SYSTEMS - 1)
    test = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided")
    frame = compare(y, preds, metrics="accuracy", test=test, random_state=1).to_frame()
    a, b = list(preds)[:2]
    seeds = spawn_seeds(1, 10)
    own = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided",
                                   random_state=seeds[0]).test(y, preds[a], preds[b])
    assert frame.iloc[0].pvalue == own.pvalue
    # a subsample bootstrap draws its own resamples at any number of systems
    y, preds = _systems(k=MIN_SHARED_SYSTEMS + 1)
    sub = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided", sample_size=0.5)
    frame = compare(y, preds, metrics="accuracy", test=sub, random_state=1).to_frame()
    seeds = spawn_seeds(1, 22)
    own = sub.set_params(random_state=seeds[0]).test(y, preds["s0"], preds["s1"])
    assert frame.iloc[0].pvalue == own.pvalue


def test_schemes_declared_by_the_tests():
    assert shared_scheme(BergKirkpatrickBootstrap()) == "bootstrap"
    assert shared_scheme(BergKirkpatrickBootstrap(sample_size=0.5)) is None
    assert shared_scheme(BergKirkpatrickBootstrap(sample_size=1)) is None  # one item
    assert shared_scheme(BooStSaBootstrap()) is None
    assert shared_scheme(BCaInterval(method="percentile")) == "bootstrap"
    assert shared_scheme(BCaInterval(method="studentized")) is None
    assert not accepts_resamples(BCaInterval(method="studentized"))
    assert shared_scheme(object()) is None

    y, preds = _systems(k=2, n=100)
    paired = prepare_paired(y, preds["s0"], preds["s1"], "accuracy")
    fake = SharedDeltas(np.linspace(-0.1, 0.2, B), 0)
    for test in (BergKirkpatrickBootstrap(n_resamples=B, sample_size=0.5),
                 BCaInterval(n_resamples=B, method="studentized")):
        with pytest.raises(TypeError, match="resamples"):
            test.test_paired(paired, resamples=fake)
    with pytest.raises(ValueError, match="scheme"):
        SharedDeltas(fake.deltas, 0, "jackknife")
    # a direct call of evaluate with a subsample is refused too
    with pytest.raises(ValueError, match="sample_size=1.0"):
        BergKirkpatrickBootstrap(n_resamples=B, sample_size=0.5).evaluate(
            paired, 0, resamples=fake)
    got = BergKirkpatrickBootstrap(n_resamples=B).test_paired(paired, resamples=fake)
    np.testing.assert_array_equal(got.null_distribution, fake.deltas)
    with pytest.raises(ValueError, match="n_resamples"):
        BergKirkpatrickBootstrap(n_resamples=B + 1).test_paired(paired, resamples=fake)


@pytest.mark.parametrize("design", ["none", "groups", "strata"])
@pytest.mark.parametrize("n_classes", [3, 0])
def test_pieces_equal_the_one_call_kernel(design, n_classes, monkeypatch):
    """Per-system codes + ranges of resamples == shared_bootstrap_sums, bit for bit."""
    rng = np.random.default_rng(5)
    k, s = 4, 3
    if n_classes:  # few distinct rows: the count kernel
        n = 120
        stats = [rng.integers(0, n_classes, (n, s)).astype(float) for _ in range(k)]
    else:  # more than 4,096 distinct unit rows (soft statistics): the generic kernel
        n = 17_000
        stats = [rng.random((n, s)) for _ in range(k)]
        stats[1][:] = np.round(stats[1], 1)  # one coded system among uncoded ones
    groups = np.repeat(np.arange(n // 4), 4) if design == "groups" else None
    strata = (np.arange(n) % 3) if design == "strata" else None
    d = check_design(groups, strata, n)
    from sigtest._engine.shared import shared_unit_rows

    rows, unit_strata = shared_unit_rows(stats, d)
    whole = shared_bootstrap_sums(rows, 150, 11, unit_strata=unit_strata, parallel=False)
    units = shared_units([system_units(st, d) for st in stats])
    assert (units.codes is not None) == bool(n_classes)
    pieces = np.concatenate([shared_sums_range(units, 150, 11, b0, min(150, b0 + 64))
                             for b0 in range(0, 150, 64)])
    np.testing.assert_array_equal(pieces, whole)
    with pytest.raises(ValueError, match="start <= stop"):
        shared_sums_range(units, 150, 11, 10, 151)
    if n_classes and design != "groups":  # the NumPy twins: the same rows (small N)
        monkeypatch.setenv("SIGTEST_DISABLE_NUMBA", "1")
        np.testing.assert_array_equal(shared_sums_range(units, 150, 11, 64, 100),
                                      whole[64:100])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bk_identical_for_any_n_jobs_and_system_order():
    y, preds = _systems(k=7, n=240)
    args = dict(metrics=["f1_macro", "accuracy"],
                test=(BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided"),
                      BCaInterval(n_resamples=B, method="percentile")),
                random_state=3, strata=np.arange(240) % 2)
    ref = compare(y, preds, n_jobs=1, **args).to_frame()
    pd.testing.assert_frame_equal(ref, compare(y, preds, n_jobs=2, **args).to_frame(),
                                  check_exact=True)
    backwards = dict(reversed(list(preds.items())))
    other = compare(y, backwards, n_jobs=2, **args).to_frame()
    rows = {(r.metric, frozenset((r.system_a, r.system_b))): r for r in other.itertuples()}
    for r1 in ref.itertuples():
        r2 = rows[r1.metric, frozenset((r1.system_a, r1.system_b))]
        assert r1.pvalue == r2.pvalue
        if r1.system_a == r2.system_a:
            assert (r1.ci_low, r1.ci_high) == (r2.ci_low, r2.ci_high)
        else:
            assert (r1.ci_low, r1.ci_high) == (-r2.ci_high, -r2.ci_low)


@pytest.mark.slow
def test_shared_bk_size_on_null_systems():
    """8 exchangeable systems (every pair null): per-pair rejection rate of BK at 5 %.

    300 data sets x 28 pairs = 8,400 pair tests, all on shared resamples.
    The pairs of one data set are correlated (they share systems and draws),
    so the band is set by the 300 independent data sets: the rejection rate
    of a 5 % test has sd sqrt(.05 .95 / 300) = 0.0126 per pair; the mean of
    28 correlated pairs has at most that sd, so 4 sd around it is
    [0.0, 0.10]. The bootstrap test is somewhat anti-conservative at small
    N (the centred bootstrap of a difference of accuracies): the band's top
    end allows that, and the bottom end (>= 0.02) catches a test that never
    rejects (e.g. deltas of the wrong pair).
    """
    rejected = []
    test = BergKirkpatrickBootstrap(n_resamples=199, alternative="two-sided")
    for rep in range(300):
        y, preds = _systems(k=8, n=200, seed=10_000 + rep, spread=(0.7, 0.7))
        frame = compare(y, preds, metrics="accuracy", test=test, correction=None,
                        random_state=rep).to_frame()
        rejected.append(frame.pvalue.to_numpy() <= 0.05)
    rate = float(np.mean(rejected))
    assert 0.02 <= rate <= 0.10, rate


@pytest.mark.slow
def test_shared_percentile_interval_coverage():
    """7 systems with known accuracies: percentile intervals on shared resamples cover.

    System s is right on each item with probability P[s] independently, so the
    difference of accuracies of (a, b) has mean P[b] - P[a]. 150 data sets x
    21 pairs; the 95 % intervals of the correlated pairs of a data set give a
    band set by the 150 data sets: sd sqrt(.95 .05 / 150) = 0.018, so 4 sd is
    [0.88, 1.0]; the percentile bootstrap at N = 300 undercovers slightly
    (its known small-sample bias), so the lower end is 0.88.
    """
    P = np.linspace(0.6, 0.8, 7)
    covered = []
    for rep in range(150):
        rng = np.random.default_rng(20_000 + rep)
        y = rng.integers(0, 3, 300)
        preds = {f"s{i}": np.where(rng.random(300) < p, y, (y + 1) % 3)
                 for i, p in enumerate(P)}
        frame = compare(y, preds, metrics="accuracy", correction=None, random_state=rep,
                        test=BCaInterval(n_resamples=499, method="percentile")).to_frame()
        for row in frame.itertuples():
            a, b = int(row.system_a[1]), int(row.system_b[1])
            covered.append(row.ci_low <= P[b] - P[a] <= row.ci_high)
    rate = float(np.mean(covered))
    assert 0.88 <= rate <= 1.0, rate
