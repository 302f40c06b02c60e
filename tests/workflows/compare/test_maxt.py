"""Max-T adjusted p-values (Westfall-Young single-step, Romano-Wolf step-down).

The engine function is checked against a naive twin written here (one loop
per step of Romano & Wolf's Algorithm 3.1, with p-values in place of
critical values); compare's max-T rows against the naive shared resamples of
test_compare_shared (the drawn items scored by the metric); the automatic
default against the rule it documents; the family-wise error rate and the
power by seeded simulations (slow).
"""

import dataclasses
import itertools

import numpy as np
import pytest
from scipy import stats
from threadpoolctl import threadpool_limits

from sigtest import BCaInterval, PairedPermutation, compare
from sigtest._constants import N_RESAMPLES
from sigtest._engine.maxt import _BLOCK, maxt_min_resamples, maxt_pvalues
from sigtest._engine.multiplier import jackknife_covariance, multiplier_draws
from sigtest._engine.shared import shared_draws
from sigtest._workflows.compare import maxt as maxt_module
from sigtest._workflows.compare.maxt import resolve_correction
from sigtest._workflows.compare.shared import _SHARED_TAG, shared_seed
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.metrics import get_metric
from sigtest import adjust_pvalues
from sigtest.utils.validation import spawn_seeds


# ------------------------------------------------------------ naive twins
def _naive_maxt(delta, boot, alternative="two-sided"):
    """Step-down and single-step adjusted p-values, one loop per step (no vectorised maxima)."""
    delta = np.asarray(delta, float)
    m, B = delta.size, boot.shape[0]
    se = np.array([np.std(boot[:, j], ddof=1) for j in range(m)])
    sign = -1.0 if alternative == "less" else 1.0
    t = sign * delta / se
    z = sign * (boot - delta) / se
    if alternative == "two-sided":
        t, z = np.abs(t), np.abs(z)
    remaining = list(range(m))
    step_down, single = np.empty(m), np.empty(m)
    overall = z.max(axis=1)
    for j in range(m):
        single[j] = (1 + sum(overall[b] >= t[j] for b in range(B))) / (B + 1)
    previous = 0.0
    while remaining:
        # the hypothesis with the largest statistic among those not yet rejected
        top = max(remaining, key=lambda j: t[j])
        tied = [j for j in remaining if t[j] == t[top]]
        worst = [max(z[b, j] for j in remaining) for b in range(B)]
        p = (1 + sum(w >= t[top] for w in worst)) / (B + 1)
        previous = max(previous, p)  # monotone: never below an earlier step
        for j in tied:
            step_down[j] = previous
            remaining.remove(j)
    return step_down, single


def _matrix(m=7, B=60, seed=0, rho=0.6):
    rng = np.random.default_rng(seed)
    common = rng.normal(size=(B, 1))
    boot = np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=(B, m))
    boot = np.round(boot, 1)  # ties between resamples and statistics
    delta = np.round(rng.normal(0, 1.5, m), 1)
    return delta, boot + delta


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_step_down_equals_the_naive_algorithm(alternative, seed):
    delta, boot = _matrix(seed=seed)
    res = maxt_pvalues(delta, boot, alternative=alternative)
    sd, ss = _naive_maxt(delta, boot, alternative)
    np.testing.assert_array_equal(res.step_down, sd)
    np.testing.assert_array_equal(res.single_step, ss)
    assert np.all(res.step_down <= res.single_step)
    assert np.all(res.marginal <= res.step_down)


def test_tied_statistics_and_blocks_and_columns():
    # two identical hypotheses (tied t) and more resamples than one block
    delta, boot = _matrix(m=5, B=_BLOCK * 2 + 37, seed=3)
    delta = np.r_[delta, delta[0]]
    boot = np.c_[boot, boot[:, 0]]
    res = maxt_pvalues(delta, boot)
    sd, ss = _naive_maxt(delta, boot)
    np.testing.assert_array_equal(res.step_down, sd)
    np.testing.assert_array_equal(res.single_step, ss)
    assert res.step_down[0] == res.step_down[-1]
    # a sequence of columns gives the same as the matrix
    cols = maxt_pvalues(delta, [boot[:, j].copy() for j in range(boot.shape[1])])
    np.testing.assert_array_equal(cols.step_down, res.step_down)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_threads_over_blocks_give_the_same_counts(alternative):
    """n_threads splits the resample blocks over threads: bit-identical to one thread.

    Reference: the naive algorithm, and the one-thread run (matrix, columns,
    and a dropped resample so that blocks gather rows).
    """
    delta, boot = _matrix(m=6, B=_BLOCK * 3 + 11, seed=8)
    boot[5, 2] = np.nan  # dropped for the whole family: gathered blocks
    one = maxt_pvalues(delta, boot, alternative=alternative)
    sd, _ = _naive_maxt(delta, boot[np.isfinite(boot).all(axis=1)], alternative)
    np.testing.assert_array_equal(one.step_down, sd)
    for threads in (2, 3):
        for given in (boot, [boot[:, j].copy() for j in range(boot.shape[1])]):
            got = maxt_pvalues(delta, given, alternative=alternative, n_threads=threads)
            for name in ("step_down", "single_step", "marginal", "max_stat"):
                np.testing.assert_array_equal(getattr(got, name), getattr(one, name))


def test_order_of_hypotheses_does_not_matter():
    delta, boot = _matrix(m=9, B=200, seed=4)
    delta[3] = delta[5]
    boot[:, 3] = boot[:, 5]
    res = maxt_pvalues(delta, boot)
    perm = np.random.default_rng(0).permutation(9)
    again = maxt_pvalues(delta[perm], boot[:, perm])
    np.testing.assert_array_equal(again.step_down, res.step_down[perm])
    np.testing.assert_array_equal(again.single_step, res.single_step[perm])


def test_degenerate_nan_and_dropped_resamples():
    delta, boot = _matrix(m=4, B=50, seed=5)
    boot[:, 1] = delta[1] = 0.0  # no spread: p = 1, not part of the maxima
    delta[2] = np.nan  # undefined difference: NaN, out of the family
    boot[7, 3] = np.nan  # one undefined resample: dropped for all
    res = maxt_pvalues(delta, boot)
    assert res.step_down[1] == 1.0 and res.degenerate[1]
    assert np.isnan(res.step_down[2])
    assert res.n_dropped == 1
    keep = np.r_[0:7, 8:50]
    sd, _ = _naive_maxt(delta[[0, 3]], boot[keep][:, [0, 3]])
    np.testing.assert_array_equal(res.step_down[[0, 3]], sd)


@pytest.mark.parametrize("kwargs, match", [
    (dict(delta=[0.1, 0.2], boot=np.zeros((5, 3))), "shape"),
    (dict(delta=[0.1], boot=np.zeros((1, 1))), "at least 2"),
    (dict(delta=[0.1, 0.2], boot=[np.zeros(4), np.zeros(5)]), "one length"),
    (dict(delta=[0.1], boot=np.zeros((5, 1)), alternative="bigger"), "alternative"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        maxt_pvalues(**kwargs)


# ------------------------------------------------------------ in compare
B = 199


def _systems(k, n=300, n_classes=3, seed=0, low=0.5, high=0.8):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {f"s{i:02d}": np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
             for i, acc in enumerate(np.linspace(low, high, k))}
    return y, preds


@pytest.mark.parametrize("k", [4, 6])  # below 6 systems max-T draws the resamples itself
@pytest.mark.parametrize("correction", ["max-t", "max-t-single-step", "romano-wolf"])
@pytest.mark.parametrize("test_b", ["enough", 199])
def test_compare_rows_equal_naive_shared_resamples(k, correction, test_b):
    # "enough": the test's B is the family's minimum (its shared resamples are reused
    # from 6 systems on); 199: fewer than max-T needs for the k (k - 1) / 2 pairs, so
    # the max-T step draws maxt_min_resamples(m) resamples on the same shared seed
    y, preds = _systems(k)
    m = k * (k - 1) // 2
    n_boot = maxt_min_resamples(m, 0.05)
    assert n_boot > B
    b_test = n_boot if test_b == "enough" else test_b
    res = compare(y, preds, metrics="accuracy", correction=correction, random_state=3,
                  test=(PairedPermutation(n_resamples=b_test),
                        BCaInterval(n_resamples=b_test)))
    assert res.correction == ("max-t" if correction == "romano-wolf" else correction)
    frame = res.to_frame()
    names = list(preds)
    pairs = list(itertools.combinations(names, 2))
    seeds = spawn_seeds(3, 2 * len(pairs) + 1)
    draws = shared_draws(y.shape[0], n_boot, shared_seed(seeds[-1], _SHARED_TAG, 0))
    T = np.array([[np.mean(y[d] == preds[s][d]) for s in names] for d in draws])
    full = np.array([np.mean(y == preds[s]) for s in names])
    ia = [names.index(a) for a, _ in pairs]
    ib = [names.index(b) for _, b in pairs]
    sd, ss = _naive_maxt(full[ib] - full[ia], T[:, ib] - T[:, ia])
    expected = np.maximum(frame["pvalue"].to_numpy(), sd if correction != "max-t-single-step"
                          else ss)
    np.testing.assert_array_equal(frame["pvalue_adj"].to_numpy(), expected)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compare_max_t_identical_for_n_jobs_and_system_order():
    y, preds = _systems(7, n=200)
    kw = dict(metrics=["accuracy", "f1_macro"], correction="max-t", random_state=1,
              test=BCaInterval(n_resamples=B))
    ref = compare(y, preds, **kw).to_frame()
    rev = dict(reversed(list(preds.items())))
    other = compare(y, rev, n_jobs=2, **kw).to_frame()
    key = ["metric", "a", "b"]
    for f in (ref, other):
        f["a"] = np.minimum(f.system_a, f.system_b)
        f["b"] = np.maximum(f.system_a, f.system_b)
    ref, other = (f.sort_values(key).reset_index(drop=True) for f in (ref, other))
    np.testing.assert_array_equal(ref.pvalue_adj.to_numpy(), other.pvalue_adj.to_numpy())


def test_compare_baseline_one_sided_and_a_loss():
    # "greater" means B better: for a loss (zero_one_loss) a smaller raw score
    y, preds = _systems(4, seed=2)
    kw = dict(pairs="baseline", baseline="s00", correction="max-t", random_state=0,
              test=(PairedPermutation(n_resamples=B, alternative="greater"),
                    BCaInterval(n_resamples=B)))
    acc = compare(y, preds, metrics="accuracy", **kw).to_frame()
    acc_m = get_metric("accuracy")
    error = dataclasses.replace(  # a loss with statistics: 1 - accuracy
        acc_m, name="error_rate", greater_is_better=False,
        score_func=lambda yt, yp, **k: 1.0 - acc_m.score_func(yt, yp, **k),
        aggregate=lambda sums, **k: 1.0 - acc_m.aggregate(sums, **k))
    loss = compare(y, preds, metrics=error, **kw).to_frame()
    names = list(preds)
    seeds = spawn_seeds(0, 2 * 3 + 1)  # (p, ci) per pair, then the score seed
    draws = shared_draws(y.shape[0], B, shared_seed(seeds[-1], _SHARED_TAG, 0))
    T = np.array([[np.mean(y[d] == preds[s][d]) for s in names] for d in draws])
    full = np.array([np.mean(y == preds[s]) for s in names])
    sd, _ = _naive_maxt(full[1:] - full[0], T[:, 1:] - T[:, [0]], "greater")
    np.testing.assert_array_equal(acc.pvalue_adj, np.maximum(acc.pvalue, sd))
    assert acc.significant.any()  # the strongest systems beat the baseline
    # B better = a smaller error: the raw alternative is "less"
    sd, _ = _naive_maxt((1 - full[1:]) - (1 - full[0]), (1 - T[:, 1:]) - (1 - T[:, [0]]),
                        "less")
    np.testing.assert_array_equal(loss.pvalue_adj, np.maximum(loss.pvalue, sd))
    assert loss.significant.tolist() == acc.significant.tolist()


@pytest.mark.parametrize("k, n, alpha, expected", [
    (11, 10_000, 0.05, "max-t"),  # 55 pairs > 50 on 10^4 items
    (10, 10_000, 0.05, "holm"),  # 45 pairs
    (11, 9_999, 0.05, "holm"),  # too few items for the asymptotic max-T
    (4, 10_000, 0.0005, "holm"),  # B of Holm's rule large, but only 6 pairs
    (11, 10_000, 0.1, "holm"),  # 55 pairs need B = 5,499 < 9,999 at alpha = .1
    (15, 10_000, 0.1, "max-t"),  # 105 pairs: B = 10,499
])
def test_auto_rule(k, n, alpha, expected):
    runs = {f"s{i}": None for i in range(k)}
    got, test = resolve_correction("auto", test=None, runs=runs, metrics="accuracy",
                                   pairs="all", baseline=None, alpha=alpha,
                                   runs_mode="average", n_units=n)
    assert got == expected
    assert (test is None) == (expected == "holm")


@pytest.mark.filterwarnings("ignore:Test .bca.. with n_resamples=199:UserWarning")
def test_auto_default_switches_for_large_families(monkeypatch):
    monkeypatch.setattr(maxt_module, "AUTO_MIN_UNITS", 100)  # small data, same rule
    y, preds = _systems(11, n=120)  # 55 pairs > 50: max-T, BCa alone
    small = dict(list(preds.items())[:10])  # 45 pairs: Holm, permutation + BCa
    big = compare(y, preds, metrics="accuracy", random_state=0)
    assert big.correction == "max-t" and big.tests == ["bca"]
    assert set(big.to_frame().n_resamples) == {N_RESAMPLES}
    little = compare(y, small, metrics="accuracy", random_state=0)
    assert little.correction == "holm" and little.tests == ["permutation+bca"]
    # an explicit correction keeps today's rule (B for Holm over 55 pairs)
    holm = compare(y, preds, metrics="accuracy", random_state=0, correction="holm",
                   test=None)
    assert holm.correction == "holm" and holm.tests == ["permutation+bca"]
    # an explicit test keeps Holm under "auto"
    given = compare(y, preds, metrics="accuracy", random_state=0,
                    test=BCaInterval(n_resamples=B))
    assert given.correction == "holm"
    # recompare re-resolves "auto"
    assert big.recompare(correction="holm").correction == "holm"


def test_max_t_refusals():
    y, preds = _systems(3, n=60)
    with pytest.raises(ValueError, match="runs='nested'"):
        compare(y, {k: [v, v] for k, v in preds.items()}, metrics="accuracy",
                correction="max-t", runs="nested")
    with pytest.raises(ValueError, match="margin"):
        compare(y, preds, metrics="accuracy", correction="max-t", pairs="baseline",
                baseline="s00", test=BCaInterval(n_resamples=B, alternative="non-inferiority",
                                                 margin=0.01))
    with pytest.raises(ValueError, match="correction"):
        compare(y, preds, metrics="accuracy", correction="max-T")


def test_identical_systems_get_one_with_a_warning():
    y, preds = _systems(3, n=100)
    preds["copy"] = preds["s00"].copy()
    with pytest.warns(DegenerateDistributionWarning, match="without spread"):
        frame = compare(y, preds, metrics="accuracy", correction="max-t", random_state=0,
                        test=BCaInterval(n_resamples=B)).to_frame()
    row = frame[(frame.system_a == "s00") & (frame.system_b == "copy")]
    assert row.pvalue_adj.iloc[0] == 1.0 and not row.significant.iloc[0]


# ------------------------------------------------------------ simulations
def _correct(rng, n, accs, spread=2.0):
    """Per-item correctness of systems correlated through a shared item difficulty.

    Item difficulty ``u_i ~ Beta``: system ``s`` is right on item ``i`` with
    probability ``u_i`` shifted on the logit scale to give it accuracy about
    ``accs[s]``; systems of equal ``accs`` are equal in distribution (the
    null), and all are positively correlated, as real systems on the same
    items are.
    """
    logit = rng.normal(0.0, spread, n)[:, None] + np.log(np.asarray(accs) / (1 - np.asarray(accs)))
    return (rng.random((n, len(accs))) < 1 / (1 + np.exp(-logit))).astype(np.float64)


def _exact_pair_pvalues(correct, ia, ib):
    """Two-sided exact paired permutation p-values of accuracy (sign test on discordant items).

    For accuracy the paired permutation test is exact on the ``d`` discordant
    items: what compare's default test computes for accuracy (its exact path).
    """
    a, b = correct[:, ia], correct[:, ib]
    wins = ((b == 1) & (a == 0)).sum(axis=0)
    d = wins + ((a == 1) & (b == 0)).sum(axis=0)
    low = stats.binom.cdf(np.minimum(wins, d - wins), d, 0.5)
    return np.where(d > 0, np.minimum(1.0, 2 * low), 1.0)


def _maxt_rejections(correct, ia, ib, n_boot, rng, alpha):
    """Pairs rejected by the step-down max-T on a shared item bootstrap.

    The draws are NumPy's (every system scored on the same drawn items, as
    compare's shared kernel does, checked against a naive twin above and in
    test_compare_shared), so that 10^4 items fit the time budget.
    """
    n = correct.shape[0]
    idx = rng.integers(0, n, (n_boot, n)) + (n * np.arange(n_boot))[:, None]
    counts = np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n)
    boot = counts.astype(np.float64) @ correct / n  # BLAS
    full = correct.mean(axis=0)
    res = maxt_pvalues(full[ib] - full[ia], boot[:, ib] - boot[:, ia])
    return res.step_down <= alpha


def _fwer_bound(rejections, reps, alpha):
    """One-sided binomial test of FWER <= alpha: P(X >= x | FWER = alpha) (the band's p)."""
    return stats.binom.sf(rejections - 1, reps, alpha)


def _multiplier_draws(correct, n_boot, seed):
    """Gaussian multiplier draws of the systems' accuracies, as compare(bootstrap="multiplier").

    Accuracy's leave-one-out score of a unit with correctness ``c`` is
    ``(S - c) / (n - 1)``: two codes per system, what compare's workers
    build; the draws are the engine's (:func:`multiplier_draws` on
    :func:`jackknife_covariance`). Given the data they are exactly
    ``N(full, Sigma)``: the large-N limit of the resampled draws too.
    """
    n = correct.shape[0]
    totals = correct.sum(axis=0)
    columns = [(correct[:, s].astype(np.uint8), (totals[s] - np.array([0.0, 1.0])) / (n - 1))
               for s in range(correct.shape[1])]
    full = correct.mean(axis=0)
    return full, multiplier_draws(full, jackknife_covariance(columns), n_boot, seed)


def _multiplier_rejections(correct, ia, ib, n_boot, seed, alpha):
    """Pairs rejected by the step-down max-T on :func:`_multiplier_draws`."""
    full, T = _multiplier_draws(correct, n_boot, seed)
    res = maxt_pvalues(full[ib] - full[ia], T[:, ib] - T[:, ia])
    return res.step_down <= alpha


def _any_rejected(delta, boot, alpha):
    """Whether the step-down max-T rejects some pair: its first step, in a few array passes.

    ``boot`` holds one pair per ROW (m, B), so that gathering the pairs
    copies rows. Under the complete null a pair is rejected iff the largest
    statistic is, i.e. ``(1 + #{b: max_j |t*_bj| >= max_j |t_j|}) / (B + 1)
    <= alpha``, the first step of :func:`maxt_pvalues` (checked equal to it
    by the caller).
    """
    se = np.std(boot, axis=1, ddof=1)
    t = np.max(np.abs(delta) / se)
    maxima = np.max(np.abs(boot - delta[:, None]) / se[:, None], axis=0)
    return 1 + np.count_nonzero(maxima >= t) <= alpha * (boot.shape[1] + 1)


def _holm_rejects_any(correct, ia, ib, alpha):
    """Whether Holm on the exact pair p-values rejects some pair: ``m min(p) <= alpha``.

    Holm's first step is Bonferroni's on the smallest p-value. The wins of
    each system over each other come from one matrix product (what
    :func:`_exact_pair_pvalues` counts pair by pair).
    """
    wins = correct.T @ (1.0 - correct)  # wins[s, t]: items s gets right and t wrong
    w, d = wins[ib, ia], wins[ib, ia] + wins[ia, ib]
    low = stats.binom.cdf(np.minimum(w, d - w), d, 0.5)
    p = np.where(d > 0, np.minimum(1.0, 2 * low), 1.0)
    return p.size * p.min() <= alpha


@pytest.mark.slow
def test_fwer_of_holm_and_max_t_at_the_enforced_resamples():
    """FWER <= alpha for 30 null systems (435 pairs) at the resamples compare enforces.

    The generator above (shared item difficulty, all systems at 0.7), N =
    10^4 items (compare's "auto" uses max-T from 10^4 items on), alpha =
    .05, 1,000 data sets. Max-T on the Gaussian multiplier draws (compare's
    ``bootstrap="multiplier"``; given the data, exactly the normal limit of
    the resampled draws, whose FWER benchmarks/bench_maxt_resamples.py
    measures too) at ``B = maxt_min_resamples(435) = 1,199``; Holm on the
    exact pair p-values on the same data. Band: the replicates with a false
    rejection are Binomial(R, FWER); the test fails when they are
    improbably many under FWER = alpha, one-sided p <= 0.01, i.e. at 68 of
    1,000 (6.8 %) or more: a procedure at .08 passes with probability .07,
    one at the 5 % excess the rule allows (.0525) fails with probability
    .02 (measured: Holm 33, max-T 52, the 199 resamples 70). The first 199 of the same draws (the B of the reported excess,
    8.15 % over 4,800 data sets) must fail that band: with 199 resamples
    max-T is liberal, and this test sees it.
    """
    alpha, n, k, reps = 0.05, 10_000, 30, 1000
    n_boot = maxt_min_resamples(k * (k - 1) // 2, alpha)
    assert n_boot == 1199
    rng = np.random.default_rng(20261202)
    ia, ib = map(np.array, zip(*itertools.combinations(range(k), 2)))
    holm = maxt = few = 0
    # small matrices: BLAS threads only wait for each other (eigh of 30 x 30)
    with threadpool_limits(limits=1, user_api="blas"):
        for rep in range(reps):
            correct = _correct(rng, n, [0.7] * k)
            holm += bool(_holm_rejects_any(correct, ia, ib, alpha))
            full, T = _multiplier_draws(correct, n_boot, rep)
            rows = np.ascontiguousarray(T.T)  # (k, B): the pairs are row differences
            delta, boot = full[ib] - full[ia], rows[ib] - rows[ia]
            maxt += bool(_any_rejected(delta, boot, alpha))
            few += bool(_any_rejected(delta, boot[:, :199], alpha))
            if rep < 3:  # the shortcuts are the engine's and the naive twin's answers
                assert _any_rejected(delta, boot, alpha) == (
                    maxt_pvalues(delta, boot.T).step_down.min() <= alpha)
                p = _exact_pair_pvalues(correct, ia, ib)
                assert _holm_rejects_any(correct, ia, ib, alpha) == (
                    adjust_pvalues(p, "holm") <= alpha).any()
    assert _fwer_bound(holm, reps, alpha) > 1e-2, (holm, reps)
    assert _fwer_bound(maxt, reps, alpha) > 1e-2, (maxt, reps)
    assert _fwer_bound(few, reps, alpha) <= 1e-2, (few, reps)


@pytest.mark.slow
def test_power_of_max_t_at_least_holm_on_separated_systems():
    """Separated correlated systems: max-T step-down finds at least Holm's discoveries.

    20 systems (190 pairs: the new default's regime) with accuracies from 0.70
    to 0.74, N = 10^4; Holm on the exact permutation p-values (today's
    default for accuracy, whose p-values are exact, with no Monte Carlo
    floor) against max-T on the B = maxt_min_resamples(190) = 999 shared
    resamples compare uses for 190 pairs, all-pairs discoveries summed over
    40 replicates (same data for both). The positive correlation
    of the differences is what max-T uses and Holm ignores, so max-T should
    find more; the band allows max-T 3 % fewer (the two counts are paired on
    the same data; their difference's Monte Carlo error over 40 replicates
    is about 1 % of the count).
    """
    alpha, n, reps, k = 0.05, 10_000, 40, 20
    n_boot = maxt_min_resamples(k * (k - 1) // 2, alpha)
    rng = np.random.default_rng(7)
    ia, ib = map(np.array, zip(*itertools.combinations(range(k), 2)))
    holm = maxt = 0
    for _ in range(reps):
        correct = _correct(rng, n, np.linspace(0.70, 0.74, k))
        p = _exact_pair_pvalues(correct, ia, ib)
        holm += int((adjust_pvalues(p, "holm") <= alpha).sum())
        maxt += int(_maxt_rejections(correct, ia, ib, n_boot, rng, alpha).sum())
    assert maxt >= 0.97 * holm, (maxt / reps, holm / reps)
    assert holm > 0  # the systems are separated enough for Holm to find some


def test_families_group_as_the_sorted_keys():
    # naive twin: iterate the sorted keys, one list per (run, metric, test)
    rng = np.random.default_rng(0)
    keys = {(int(r), int(mi), int(p), int(si))
            for r, mi, p, si in rng.integers(0, [2, 3, 40, 3], size=(300, 4))}
    keys = list(keys)
    rng.shuffle(keys)
    want = {}
    for key in sorted(keys):
        want.setdefault((key[0], key[1], key[3]), []).append(key)
    table = np.array(keys, dtype=np.int64)
    got = {fam: list(map(tuple, table[rows].tolist()))
           for fam, rows in maxt_module._families(table).items()}
    assert list(got) == list(want) and got == want
    assert maxt_module._families(np.empty((0, 4), dtype=np.int64)) == {}


def _supplied_scores_naive(shared, plan, keys, B):
    # the per-pair reading: each key's task's TaskDeltas, all of its entries
    from sigtest._workflows.compare.shared import TaskDeltas

    array, pairs = None, []
    for key in keys:
        supplied = shared[plan.tasks.index(key[0], key[2])] if len(shared) else None
        if not isinstance(supplied, TaskDeltas):
            return None
        entries = {e[0]: e for e in supplied.entries()}
        found = None
        for role in (1, 0):
            entry = entries.get((key, role))
            if entry is not None and entry[4] == "bootstrap" and entry[1].shape[1:] == (B,):
                found = entry
                break
        if found is None or (array is not None and found[1] is not array):
            return None
        array = found[1]
        pairs.append(found[2])
    if array is None or not np.all(np.isfinite(array)):
        return None
    return array, np.array(pairs, dtype=np.int64).reshape(-1, 2)


def test_supplied_scores_equal_the_naive_reading():
    from types import SimpleNamespace

    from sigtest._workflows.compare.plan_tasks import PairTasks
    from sigtest._workflows.compare.shared import SharedSupplies

    rng = np.random.default_rng(1)
    B, k = 20, 5
    scores, other = rng.normal(size=(k, B)), rng.normal(size=(k, B))
    canon = [(i, j) if (i + j) % 2 else (j, i) for i in range(k) for j in range(i + 1, k)]
    order = list(rng.permutation(len(canon)))
    # one metric, one spec; the plan's other fields are not read here
    template = (0, 0, None, {}, None, None, True, None, False, None, 0)
    tasks = PairTasks([{}], canon, order, [template], None, 1)
    plan = SimpleNamespace(tasks=tasks, canon=canon)
    keys = sorted((0, 0, p, 0) for p in range(len(canon)))
    family, pair_index = (0, 0, 0), np.array([key[2] for key in keys])
    variants = {
        "interval": {1: (scores, 3, "bootstrap"), 0: (other, 3, "bootstrap")},
        "pvalue": {0: (scores, 3, "bootstrap")},
        "permutation": {1: (scores, 3, "permutation"), 0: (other, 3, "bootstrap")},
        "short": {1: (scores[:, :B - 1], 3, "bootstrap"), 0: (scores, 3, "bootstrap")},
        "none": {},
        "permutation only": {1: (scores, 3, "permutation")},
    }
    for variant, by_role in variants.items():
        shared = SharedSupplies(tasks, {(0, 0, 0, role): found for role, found in by_role.items()})
        want = _supplied_scores_naive(shared, plan, keys, B)
        got = maxt_module._supplied_scores(shared, plan, family, pair_index, B)
        if want is None:
            assert got is None, variant
        else:
            assert got[0] is want[0] and np.array_equal(got[1], want[1]), variant
    shared = SharedSupplies(tasks, {(0, 0, 0, 0): (scores, 3, "bootstrap")})
    scores[2, 3] = np.nan
    assert maxt_module._supplied_scores(shared, plan, family, pair_index, B) is None
    assert maxt_module._supplied_scores(SharedSupplies(tasks, {}), plan, family, pair_index,
                                      B) is None
