"""runs="nested": the hierarchical (two-stage) bootstrap over runs and items (issue 11, sec. 3)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from sigtest import DegenerateDistributionWarning, HierarchicalBootstrap, SmallSampleWarning
from sigtest import compare
from sigtest._engine.kernels_numpy import _indices
from sigtest._engine.nested import nested_bootstrap_sums
from sigtest._engine import prepare_paired_runs
from sigtest._engine.rng import resample_keys
from sigtest.metrics import Metric
from sigtest.tests_ import BergKirkpatrickBootstrap, PairedPermutation

from _runs_data import null_runs


def _seed_runs(rng, y, k, acc, n_runs, sd):
    """Runs whose accuracy carries a seed effect: p_r = acc + sd * z_r, items drawn anew."""
    runs = []
    for _ in range(n_runs):
        p = acc + sd * rng.standard_normal()
        wrong = (y + rng.integers(1, k, y.shape[0])) % k
        runs.append(np.where(rng.random(y.shape[0]) < p, y, wrong))
    return runs


def _naive_sums(stats_a, stats_b, B, seed, expand=True):
    """Twin of nested_bootstrap_sums: explicit index draws and gathers, one resample at a time."""
    ra, n, s = stats_a.shape
    rb = stats_b.shape[0]
    ki, ka, kb = (resample_keys(seed, B, stream=st) for st in (0, 1, 2))
    out_a, out_b = np.zeros((B, s)), np.zeros((B, s))
    for b in range(B):
        items = _indices(ki[b:b + 1], n, n)[0]
        for stats, keys, r, out in ((stats_a, ka, ra, out_a), (stats_b, kb, rb, out_b)):
            runs = _indices(keys[b:b + 1], r, r)[0]
            mean = stats.mean(axis=0)
            c = np.sqrt(r / (r - 1.0)) if (expand and r > 1) else 1.0
            for run in runs:  # mean of the drawn (expanded) runs on the drawn items
                out[b] += (mean + c * (stats[run] - mean))[items].sum(axis=0) / r
    return out_a, out_b


@pytest.mark.parametrize("expand", [True, False])
def test_sums_match_a_naive_twin(expand):
    rng = np.random.default_rng(0)
    sa = rng.random((4, 37, 2))
    sb = rng.random((3, 37, 2))
    got = nested_bootstrap_sums(sa, sb, 50, seed=7, expand=expand)
    want = _naive_sums(sa, sb, 50, 7, expand=expand)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    # hard 0/1 statistics with many identical rows
    ha = (rng.random((5, 200, 1)) < 0.7).astype(float)
    hb = (rng.random((5, 200, 1)) < 0.7).astype(float)
    ha[:, 100:] = 1.0
    hb[:, 100:] = 1.0
    got = nested_bootstrap_sums(ha, hb, 40, seed=3, expand=expand)
    want = _naive_sums(ha, hb, 40, 3, expand=expand)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def _data(n=300, runs=(5, 5, 4), seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    systems = {name: _seed_runs(rng, y, 3, acc, r, 0.02)
               for name, acc, r in zip(("s0", "s1", "s2"), (0.7, 0.75, 0.7), runs)}
    return y, systems


def test_compare_nested_is_deterministic_for_any_order_and_n_jobs():
    y, systems = _data()
    kw = dict(metrics=["accuracy", "f1_macro"], runs="nested",
              test=HierarchicalBootstrap(n_resamples=300), random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        one = compare(y, systems, **kw)
        rev = compare(y, dict(reversed(list(systems.items()))), **kw)
        par = compare(y, systems, n_jobs=2, **kw)
    key = ["metric", "system_a", "system_b"]
    f1 = one.to_frame()
    pd.testing.assert_frame_equal(f1, par.to_frame(), check_exact=True)
    # reversed order: rows re-oriented exactly (A and B swapped, delta negated)
    f2 = rev.to_frame().rename(columns={"system_a": "system_b", "system_b": "system_a",
                                        "score_a": "score_b", "score_b": "score_a",
                                        "ci_low": "ci_high", "ci_high": "ci_low"})
    f2["delta"], f2["ci_low"], f2["ci_high"] = -f2["delta"], -f2["ci_low"], -f2["ci_high"]
    cols = ["score_a", "score_b", "delta", "ci_low", "ci_high", "pvalue"]
    a = f1.set_index(key).sort_index()[cols]
    b = f2.set_index(key).sort_index()[cols]
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert set(f1["test"]) == {"hierarchical_bootstrap"}
    assert "runs='nested' (runs per system: s0 5, s1 5, s2 4)" in str(one)
    # the pair's row is what the test itself gives on the canonical pair with its seed
    assert (f1["n_resamples"] == 300).all()


def test_nested_scores_are_the_pooled_scores_and_ci_contains_delta():
    y, systems = _data()
    res = HierarchicalBootstrap(n_resamples=500, alternative="two-sided", random_state=0).test(
        y, systems["s0"], systems["s1"], metric="accuracy")
    pooled_a = np.mean([np.mean(r == y) for r in systems["s0"]])
    pooled_b = np.mean([np.mean(r == y) for r in systems["s1"]])
    assert res.score_a == pytest.approx(pooled_a, abs=1e-12)
    assert res.score_b == pytest.approx(pooled_b, abs=1e-12)
    assert res.confidence_interval.low < res.delta < res.confidence_interval.high
    assert res.params["n_runs_a"] == 5 and res.params["n_runs_b"] == 5
    # the interval is the percentile interval of the stored distribution
    assert res.ci(0.95, "percentile") == res.confidence_interval
    # the nested interval is wider than the item-only bootstrap of the averaged runs,
    # since it adds the seed variance
    item = compare(y, {"A": systems["s0"], "B": systems["s1"]}, metrics="accuracy",
                   test=BergKirkpatrickBootstrap(n_resamples=500), random_state=0)
    nested = compare(y, {"A": systems["s0"], "B": systems["s1"]}, metrics="accuracy",
                     runs="nested", test=HierarchicalBootstrap(n_resamples=500), random_state=0)
    assert nested.to_frame().pvalue.iloc[0] >= item.to_frame().pvalue.iloc[0]


def test_nested_warnings_and_degenerate():
    y, systems = _data()
    hb = HierarchicalBootstrap(n_resamples=200, random_state=0)
    with pytest.warns(SmallSampleWarning, match="fewer than 5 runs"):
        hb.test(y, systems["s0"][:3], systems["s1"])
    with pytest.warns(SmallSampleWarning, match="single run, so their seed variance"):
        hb.test(y, systems["s0"][0], systems["s1"])
    with pytest.warns(SmallSampleWarning, match="every system has a single run"):
        hb.test(y, systems["s0"][0], systems["s1"][0])
    with pytest.warns(DegenerateDistributionWarning), \
            pytest.warns(SmallSampleWarning, match="single run"):
        res = hb.test(y, systems["s0"][0], systems["s0"][0])
    assert res.pvalue == 1.0 and np.isnan(res.confidence_interval.low)
    # the same runs on both sides: runs are drawn independently for A and B, so
    # the distribution is not degenerate, but delta = 0 gives p = 1
    res = hb.set_params(alternative="two-sided").test(y, systems["s0"], systems["s0"])
    assert res.delta == 0.0 and res.pvalue == 1.0


def test_nested_bad_inputs():
    y, systems = _data()
    slow = Metric(name="slow_acc", score_func=lambda yt, yp, **kw: float(np.mean(yt == yp)))
    with pytest.raises(ValueError, match="runs='nested'.*statistics"):
        compare(y, systems, metrics=slow, runs="nested")
    with pytest.raises(ValueError, match="runs='nested'.*cannot resample runs"):
        compare(y, systems, metrics="accuracy", runs="nested", test=PairedPermutation())
    with pytest.raises(ValueError, match="'groups'.*runs='nested'"):
        compare(y, systems, metrics="accuracy", runs="nested", groups=np.arange(300) // 3)
    with pytest.raises(ValueError, match="'sample_weight'.*runs='nested'"):
        compare(y, systems, metrics="accuracy", runs="nested", sample_weight=np.ones(300))
    with pytest.raises(ValueError, match="runs"):
        compare(y, systems, metrics="accuracy", runs="nestedx")
    with pytest.raises(ValueError, match="n_resamples"):
        HierarchicalBootstrap(n_resamples=0).test(y, systems["s0"], systems["s1"])
    with pytest.raises(ValueError, match="'groups'"):
        HierarchicalBootstrap().test(y, systems["s0"], systems["s1"], groups=np.arange(300))
    with pytest.raises(ValueError, match="samples"):
        HierarchicalBootstrap().test(y, systems["s0"], [np.zeros(299, int)] * 2)


def _rates(scenario, reps, n, B, seed):
    """Rejection rates at alpha = .05 of runs="nested" and runs="average" (two-sided).

    The tests run directly (what compare runs for the pair, without its
    bookkeeping): the hierarchical bootstrap on the runs, and the paired
    Berg-Kirkpatrick bootstrap on the run-averaged statistics
    (``prepare_paired_runs``, what ``runs="average"`` tests).
    """
    rej = {"nested": 0, "average": 0}
    for ss in np.random.SeedSequence(seed).spawn(reps):
        rng = np.random.default_rng(ss)
        y = rng.integers(0, 3, n)
        a, b = scenario(rng, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nested = HierarchicalBootstrap(n_resamples=B, alternative="two-sided",
                                           random_state=int(rng.integers(2**32)))
            rej["nested"] += int(nested.test(y, a, b).pvalue <= 0.05)
            avg = BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided",
                                           random_state=int(rng.integers(2**32)))
            paired = prepare_paired_runs(y, a, b, "accuracy")
            rej["average"] += int(avg.test_paired(paired).pvalue <= 0.05)
    return {k: v / reps for k, v in rej.items()}


@pytest.mark.slow
def test_nested_level_under_the_issue5_null():
    """Type-I error under the issue-5 null: N = 300, 3 classes, 5 runs each re-drawing 10 %.

    A and B come from the same process (accuracy .7). 250 seeded replications,
    B = 199; the rejection count must stay below the upper 99.9 % binomial
    quantile of Bin(250, .05) (k <= 23, i.e. .092). Measured (SeedSequence(11),
    250 reps): nested .028, average .024 (both hold it here: the seed
    variance is small next to the item variance).
    """
    reps = 250
    rates = _rates(lambda rng, y: (null_runs(rng, y, 3, 0.7, 5, 0.1),
                                   null_runs(rng, y, 3, 0.7, 5, 0.1)),
                   reps, 300, 199, 11)
    print("issue-5 null", rates)
    assert rates["nested"] * reps <= binom.ppf(0.999, reps, 0.05)


@pytest.mark.slow
def test_average_is_anticonservative_for_seeds_where_nested_holds():
    """Seed-level null with a large seed effect: run accuracy .7 + .05 z (z ~ N(0, 1)).

    N = 300, 5 runs per system, identical processes for A and B, 300
    replications, B = 199. "average" tests the runs at hand (conditional on
    the seeds) and rejects far above .05 for the seed-level hypothesis;
    "nested" must stay below the 99.9 % band of Bin(300, .05) (k <= 27).
    Measured (SeedSequence(12)): nested .027, average .34.
    """
    reps = 300
    rates = _rates(lambda rng, y: (_seed_runs(rng, y, 3, 0.7, 5, 0.05),
                                   _seed_runs(rng, y, 3, 0.7, 5, 0.05)),
                   reps, 300, 199, 12)
    print("seed null", rates)
    assert rates["nested"] * reps <= binom.ppf(0.999, reps, 0.05)
    assert rates["average"] * reps > binom.ppf(0.999, reps, 0.05)


@pytest.mark.slow
def test_nested_power_with_a_real_difference():
    """Power: run accuracy .70 vs .80 (+ seed effect sd .02), N = 300, 5 runs, 60 reps.

    Measured (SeedSequence(13)): nested .98 (average 1.0, which tests the
    runs at hand); nested must reject in at least 80 %.
    """
    rates = _rates(lambda rng, y: (_seed_runs(rng, y, 3, 0.7, 5, 0.02),
                                   _seed_runs(rng, y, 3, 0.8, 5, 0.02)),
                   60, 300, 199, 13)
    print("power", rates)
    assert rates["nested"] >= 0.8


def test_cli_run_nested(tmp_path):
    """``sigtest run --runs nested`` runs the hierarchical bootstrap, as compare does."""
    import io

    from sigtest.cli import main

    y, systems = _data(n=200, runs=(3, 3, 3))
    np.savetxt(tmp_path / "gold.txt", y, fmt="%d")
    store = tmp_path / "store"
    for name in ("s0", "s1"):
        for r, run in enumerate(systems[name]):
            np.savetxt(tmp_path / f"{name}_{r}.txt", run, fmt="%d")
            argv = ["feed", store, name, tmp_path / f"{name}_{r}.txt"]
            if name == "s0" and r == 0:
                argv += ["--gold", tmp_path / "gold.txt"]
            assert main([str(a) for a in argv], out=io.StringIO()) == 0
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        status = main([str(a) for a in ("run", store, "-m", "accuracy", "--runs", "nested",
                                        "-B", 499, "--seed", 3, "--format", "csv")], out=out)
        want = compare(y, {"s0": systems["s0"], "s1": systems["s1"]}, metrics="accuracy",
                       runs="nested", test=HierarchicalBootstrap(n_resamples=499),
                       random_state=3).to_frame()
    assert status == 0, out.getvalue()
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert got["test"].tolist() == ["hierarchical_bootstrap"]
    for column in ("pvalue", "delta", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)


def test_nested_loss_orientation_and_soft_metrics():
    """A loss (cross-entropy, lower is better): statistic = -delta, positive when B is better."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    Y = np.eye(3)[y]

    def run(sharp):
        logits = rng.normal(0, 1, (300, 3))
        logits[np.arange(300), y] += sharp
        p = np.exp(logits)
        return p / p.sum(1, keepdims=True)

    a, b = [run(1.0) for _ in range(5)], [run(2.0) for _ in range(5)]
    res = HierarchicalBootstrap(n_resamples=499, random_state=0).test(
        Y, a, b, metric="cross_entropy")
    assert res.delta < 0 and res.statistic == -res.delta and not res.greater_is_better
    assert res.pvalue <= 0.01
    assert res.confidence_interval.low < res.delta < res.confidence_interval.high < 0
    worse = HierarchicalBootstrap(n_resamples=499, alternative="greater",
                                  random_state=0).test(Y, b, a, metric="cross_entropy")
    assert worse.pvalue == 1.0  # "greater": B (here the worse system) not better


def test_nested_small_sample_floor_and_warning_as_the_other_bootstrap_tests():
    """Issue 20: two items gave p = .005 (BK .25, exact permutation .5). The floor
    is the exact sign test with all d discordant items one way, 2**-d one-sided
    and 2**(1 - d) two-sided, written naively here."""
    y = [[1, 0], [0, 1]]
    a = [[.5, .5], [.6, .4]]
    b = [[.9, .1], [.3, .7]]
    with pytest.warns(SmallSampleWarning, match="raised to the exact sign-test bound"):
        res = HierarchicalBootstrap(n_resamples=199, alternative="greater",
                                    random_state=0).test(y, a, b, metric="soft_accuracy")
    d = 2  # both items: B's soft accuracy differs from A's
    assert res.params["n_discordant"] == d
    assert res.params["pvalue_unfloored"] < 0.05  # the old answer
    assert res.pvalue >= 0.5 ** d
    with pytest.warns(SmallSampleWarning, match="raised"):
        bk = BergKirkpatrickBootstrap(n_resamples=199, alternative="greater",
                                      random_state=0).test(y, a, b, metric="soft_accuracy")
    assert res.pvalue == bk.pvalue == 0.25
    # two-sided (the default): the floor 2**(1 - d) = .5 is above .05, so the
    # interval holds 0
    with pytest.warns(SmallSampleWarning, match="raised"):
        res = HierarchicalBootstrap(n_resamples=199, random_state=0).test(
            y, a, b, metric="soft_accuracy")
    assert res.pvalue >= 0.5 ** (d - 1)
    assert res.confidence_interval.low <= 0.0 <= res.confidence_interval.high


def test_nested_discordant_items_are_those_whose_run_average_differs():
    """With several runs, d counts the items whose run-averaged statistics differ
    (a naive count here); equal averages over 3 and 2 runs are not discordant."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 12)
    runs_a = [np.where(rng.random(12) < 0.7, y, 1 - y) for _ in range(3)]
    runs_b = [np.where(rng.random(12) < 0.7, y, 1 - y) for _ in range(2)]
    mean_a = np.mean([r == y for r in runs_a], axis=0)
    mean_b = np.mean([r == y for r in runs_b], axis=0)
    naive = int(np.sum(~np.isclose(mean_a, mean_b)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = HierarchicalBootstrap(n_resamples=99, random_state=0).test(y, runs_a, runs_b)
    assert res.params["n_discordant"] == naive
    assert res.pvalue >= 0.5 ** naive
    # the same soft prediction in 3 runs of A and 2 of B: (.1 + .1 + .1) / 3 is
    # not .1 in floating point, but no item is discordant
    soft_y = np.tile([[1.0, 0.0]], (12, 1))
    soft = np.tile([[0.1, 0.9]], (12, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = HierarchicalBootstrap(n_resamples=99, random_state=0).test(
            soft_y, [soft] * 3, [soft] * 2, metric="soft_accuracy")
    assert same.params["n_discordant"] == 0 and same.pvalue == 1.0


@pytest.mark.slow
def test_nested_size_with_few_items_is_held_by_the_floor():
    """Size of the two-sided level-.05 test on N = 6 items, one run per system,
    A and B exchangeable (each item right with probability .5 for both). Without
    the sign-test floor (params['pvalue_unfloored']) it rejected ~10 % of the
    time; with it at most .05 + 3.09 sd of a binomial proportion over 2000
    replications (sd = sqrt(.05 * .95 / 2000) = .0049: the one-sided 99.9 %
    band, .065). Measured: unfloored .10, floored 0."""
    rng = np.random.default_rng([2025, 20])
    reps, n = 2000, 6
    rejected = unfloored = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(reps):
            y = rng.integers(0, 2, n)
            a = np.where(rng.random(n) < 0.5, y, 1 - y)
            b = np.where(rng.random(n) < 0.5, y, 1 - y)
            res = HierarchicalBootstrap(n_resamples=199, alternative="two-sided",
                                        random_state=int(rng.integers(2**31))).test(y, a, b)
            rejected += res.pvalue <= 0.05
            unfloored += res.params["pvalue_unfloored"] <= 0.05
    assert rejected / reps <= 0.05 + 3.09 * np.sqrt(0.05 * 0.95 / reps)
    assert unfloored / reps > 0.065  # the old test exceeded the band: the floor matters
