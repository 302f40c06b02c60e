"""compare / cross_val_compare with clusters (groups=) and strata (strata=), and
ComparisonResult.scores(): the plumbing of issue 10.

What is checked here is that the design reaches the engine exactly (each row
of compare equals the direct test of the pair on the same seed and design;
runs="pool" tiles the ids; runs="each"/"average"), the errors, determinism,
and that the per-system score table equals ``sigtest.score`` on the seeds
compare documents. The statistics of the clustered tests themselves (type-I
error, coverage) are checked with the engine and the tests.
"""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import BCaInterval, PairedPermutation, compare
from sigtest._engine import prepare_paired, prepare_paired_runs
from sigtest.tests_._score import score_paired
from sigtest.utils.validation import spawn_seeds
from sigtest._constants import N_RESAMPLES

B = 299  # small resample counts: bookkeeping, not accuracy


def _clustered(n_groups=30, k=3, accs=(0.6, 0.7, 0.75), seed=0):
    """Items in clusters of 5-15 sharing a random effect on each system's accuracy."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 16, n_groups)
    groups = np.repeat(np.array([f"doc{i:02d}" for i in range(n_groups)]), sizes)
    n = groups.shape[0]
    y = rng.integers(0, k, n)
    preds = {}
    for i, acc in enumerate(accs):
        effect = np.repeat(rng.normal(0.0, 0.15, n_groups), sizes)
        right = rng.random(n) < np.clip(acc + effect, 0.05, 0.95)
        preds[f"s{i}"] = np.where(right, y, (y + rng.integers(1, k, n)) % k)
    return y, preds, groups


def _tests():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


def _direct(y, a, b, metric, seeds, **kw):
    """The row compare should give: each test run directly on the prepared pair."""
    paired = prepare_paired(y, a, b, metric, **kw)
    p = PairedPermutation(n_resamples=B, random_state=seeds[0]).test_paired(paired)
    ci = BCaInterval(n_resamples=B, random_state=seeds[1]).test_paired(paired)
    return p, ci


def _assert_row(row, p, ci):
    assert row.score_a == p.score_a and row.score_b == p.score_b
    assert row.pvalue == p.pvalue
    assert (row.ci_low, row.ci_high) == (ci.confidence_interval.low, ci.confidence_interval.high)


def _row(frame, a, b, metric, run=None):
    sel = (frame.system_a == a) & (frame.system_b == b) & (frame.metric == metric)
    if run is not None:
        sel &= frame.run == run
    out = frame[sel]
    assert len(out) == 1
    return out.iloc[0]


# --------------------------------------------------------------- plumbing
@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("design", ["groups", "strata", "both"])
def test_every_row_equals_the_direct_test_with_the_design(design):
    y, preds, groups = _clustered()
    # strata must nest the clusters: a stratum per cluster, from its id
    strata = np.array(["even" if int(g[-1]) % 2 == 0 else "odd" for g in groups])
    kw = {"groups": dict(groups=groups), "strata": dict(strata=strata),
          "both": dict(groups=groups, strata=strata)}[design]
    metrics = ["accuracy", "f1_macro"]
    res = compare(y, preds, metrics=metrics, test=_tests(), random_state=7, **kw)
    plain = compare(y, preds, metrics=metrics, test=_tests(), random_state=7)
    frame, plain_frame = res.to_frame(), plain.to_frame()
    pairs = [("s0", "s1"), ("s0", "s2"), ("s1", "s2")]  # canonical (sorted) = seed order
    seeds = spawn_seeds(7, 2 * len(pairs))
    union = np.unique(np.concatenate([y, *preds.values()]))
    for metric in metrics:
        labels = np.unique(y) if metric == "f1_macro" else union
        for k, (a, b) in enumerate(pairs):
            p, ci = _direct(y, preds[a], preds[b], metric, seeds[2 * k:2 * k + 2],
                            labels=labels, **kw)
            _assert_row(_row(frame, a, b, metric), p, ci)
    # the design changed the answer (the plumbing cannot silently drop it)
    assert not np.allclose(frame[["ci_low", "ci_high"]], plain_frame[["ci_low", "ci_high"]])
    if "groups" in kw:
        assert not np.allclose(frame.pvalue, plain_frame.pvalue)
    assert res.n_groups == (len(np.unique(groups)) if "groups" in kw else None)
    assert res.n_strata == (2 if "strata" in kw else None)
    assert plain.n_groups is None and plain.n_strata is None


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_rows_equal_the_public_test_with_groups():
    """compare's row = SignificanceTest.test(..., groups=) (the user-facing path)."""
    y, preds, groups = _clustered()
    a, b = preds["s0"], preds["s2"]
    res = compare(y, {"s0": a, "s2": b}, metrics="accuracy", test=_tests(), random_state=3,
                  groups=groups, correction=None)
    s_p, s_ci = spawn_seeds(3, 2)
    p = PairedPermutation(n_resamples=B, random_state=s_p).test(y, a, b, groups=groups)
    ci = BCaInterval(n_resamples=B, random_state=s_ci).test(y, a, b, groups=groups)
    _assert_row(res.to_frame().iloc[0], p, ci)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("name", sigtest.get_test_names())
def test_every_registered_test_gets_the_design(name):
    """Each registered test, run by compare with groups and strata, gives the row of its
    own test(..., groups=, strata=) on the same seed (tests that ignore strata too); a
    test that refuses strata raises its error through compare."""
    y, preds, groups = _clustered()
    strata = np.array(["even" if int(g[-1]) % 2 == 0 else "odd" for g in groups])
    a, b = preds["s0"], preds["s1"]
    test = sigtest.get_test(name)
    if name == "delong":
        # DeLong's variance assumes independent items: it refuses a design, directly and
        # through compare (binary labels and scores: it tests the ROC AUC only)
        rng = np.random.default_rng(0)
        yb = rng.integers(0, 2, y.size)
        sa, sb = rng.random(y.size) + yb, rng.random(y.size) + 2 * yb
        with pytest.raises(ValueError, match="groups"):
            test.test(yb, sa, sb, metric="roc_auc", groups=groups)
        with pytest.raises(ValueError, match="groups"):
            compare(yb, {"s0": sa, "s1": sb}, metrics="roc_auc", test=test, groups=groups)
        return
    params = test.get_params()
    test.set_params(**({"n_resamples": B} if "n_resamples" in params else {}),
                    **({"method": "chi2"} if name == "mcnemar" else {}))  # clustered McNemar
    design = dict(groups=groups, strata=strata)
    try:
        test.test(y, a, b, **design)
    except ValueError as exc:
        assert "strata" in str(exc)
        with pytest.raises(ValueError, match="strata"):
            compare(y, {"s0": a, "s1": b}, metrics="accuracy", test=test, pairs="baseline",
                    baseline="s0", **design)
        design.pop("strata")
    res = compare(y, {"s0": a, "s1": b}, metrics="accuracy", test=test, random_state=3,
                  pairs="baseline", baseline="s0", **design)
    if "random_state" in params:
        test.set_params(random_state=spawn_seeds(3, 1)[0])
    ref = test.test(y, a, b, **design)
    row = res.to_frame().iloc[0]
    np.testing.assert_array_equal([row.pvalue, row.ci_low, row.ci_high],
                                  [ref.pvalue, *ref.confidence_interval])
    assert res.n_groups == ref.n_groups == len(np.unique(groups))


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_pool_tiles_the_ids_with_the_runs():
    """runs='pool': the R copies of an item stay in its cluster (ids tiled like y)."""
    y, preds, groups = _clustered()
    rng = np.random.default_rng(1)
    runs = {n: [p, np.where(rng.random(p.size) < 0.1, (p + 1) % 3, p)]
            for n, p in list(preds.items())[:2]}
    with warnings.catch_warnings():
        # with clusters the copies are not resampled as independent items: no
        # anti-conservative pool warning
        warnings.filterwarnings("error", message="runs='pool'")
        res = compare(y, runs, metrics="accuracy", test=_tests(), random_state=5,
                      runs="pool", groups=groups)
    with pytest.warns(UserWarning, match="runs='pool'"):
        compare(y, runs, metrics="accuracy", test=_tests(), random_state=5, runs="pool")
    seeds = spawn_seeds(5, 2)
    p, ci = _direct(np.tile(y, 2), np.concatenate(runs["s0"]), np.concatenate(runs["s1"]),
                    "accuracy", seeds, groups=np.tile(groups, 2))
    _assert_row(res.to_frame().iloc[0], p, ci)
    assert res.n_groups == len(np.unique(groups))


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("metric", ["accuracy", "f1_macro"])
def test_clustered_pool_is_the_clustered_average(metric):
    """Pooled cluster sums are R times the run-averaged ones: for a score that a common
    scale of the statistics does not change, pool + groups = average + groups (same
    seeds, same resampled clusters), up to rounding."""
    y, preds, groups = _clustered()
    rng = np.random.default_rng(1)
    runs = {n: [p] + [np.where(rng.random(p.size) < 0.1, (p + k) % 3, p) for k in (1, 2)]
            for n, p in preds.items()}
    # Monte Carlo p-values: the exact enumeration's "auto" choice counts distinct
    # cluster differences, which the rounding of averaged statistics can split
    tests = (PairedPermutation(n_resamples=B, exact=False), BCaInterval(n_resamples=B))
    kw = dict(metrics=metric, test=tests, random_state=5, groups=groups)
    pool = compare(y, runs, runs="pool", **kw)
    avg = compare(y, runs, runs="average", **kw)
    cols = ["score_a", "score_b", "delta", "ci_low", "ci_high"]
    np.testing.assert_allclose(pool.to_frame()[cols], avg.to_frame()[cols], rtol=0, atol=1e-12)
    # the same swaps of the same cluster rows: run totals are summed per cluster
    # before the one division by R, so a cluster where A and B agree has D exactly 0
    # (summing run-averages k/3 in another order gave D = 8.9e-16 for accuracy)
    np.testing.assert_allclose(pool.to_frame().pvalue, avg.to_frame().pvalue, rtol=0,
                               atol=1e-12)
    cols = ["score", "ci_low", "ci_high"]
    np.testing.assert_allclose(pool.scores()[cols], avg.scores()[cols], rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_each_and_average_use_the_ids_of_the_items():
    y, preds, groups = _clustered()
    rng = np.random.default_rng(2)
    runs = {n: [p, np.where(rng.random(p.size) < 0.15, (p + 1) % 3, p)]
            for n, p in list(preds.items())[:2]}
    each = compare(y, runs, metrics="accuracy", test=_tests(), random_state=11,
                   runs="each", groups=groups).to_frame()
    seeds = spawn_seeds(11, 4)  # run -> pair -> role
    for r in range(2):
        p, ci = _direct(y, runs["s0"][r], runs["s1"][r], "accuracy", seeds[2 * r:2 * r + 2],
                        groups=groups)
        _assert_row(_row(each, "s0", "s1", "accuracy", run=r), p, ci)
    avg = compare(y, runs, metrics="accuracy", test=_tests(), random_state=11,
                  groups=groups).to_frame()
    s_p, s_ci = spawn_seeds(11, 2)
    paired = prepare_paired_runs(y, runs["s0"], runs["s1"], "accuracy", groups=groups)
    assert paired.n_groups == len(np.unique(groups))
    p = PairedPermutation(n_resamples=B, random_state=s_p).test_paired(paired)
    ci = BCaInterval(n_resamples=B, random_state=s_ci).test_paired(paired)
    _assert_row(avg.iloc[0], p, ci)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_groups_as_a_pandas_series_and_ints_equal_strings():
    y, preds, groups = _clustered()
    codes = np.unique(groups, return_inverse=True)[1] * 3 + 100  # other ids, same clusters
    kw = dict(metrics="accuracy", test=_tests(), random_state=0)
    a = compare(y, preds, groups=groups, **kw).to_frame()
    b = compare(y, preds, groups=pd.Series(codes), **kw).to_frame()
    pd.testing.assert_frame_equal(a, b)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("name", ["groups", "strata"])
def test_bad_ids_raise_naming_the_parameter(name):
    y, preds, groups = _clustered()
    with pytest.raises(ValueError, match=rf"'{name}'.*{len(y) - 1} ids.*{len(y)} items"):
        compare(y, preds, metrics="accuracy", test=_tests(), **{name: groups[:-1]})
    with pytest.raises(ValueError, match=rf"'{name}'.*1-D"):
        compare(y, preds, metrics="accuracy", test=_tests(),
                **{name: np.stack([groups, groups], axis=1)})


def test_engine_errors_on_the_ids_name_the_parameter_and_no_system():
    y, preds, groups = _clustered()
    with pytest.raises(ValueError, match="groups") as err:
        compare(y, preds, metrics="accuracy", test=_tests(), groups=np.zeros(len(y), int))
    assert "System" not in str(err.value)
    # a cluster spread over two strata
    strata = np.arange(len(y)) % 2
    with pytest.raises(ValueError, match="strat") as err:
        compare(y, preds, metrics="accuracy", test=_tests(), groups=groups, strata=strata)
    assert "System" not in str(err.value)


def test_cross_val_compare_bad_groups():
    from sklearn.dummy import DummyClassifier

    X = np.zeros((40, 1))
    y = np.arange(40) % 2
    ests = {"a": DummyClassifier(), "b": DummyClassifier(strategy="uniform", random_state=0)}
    with pytest.raises(ValueError, match="'groups'"):
        sigtest.cross_val_compare(ests, X, y, cv=2, metrics="accuracy", groups=np.arange(39))


# ------------------------------------------------------------- determinism
@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_clustered_results_do_not_depend_on_n_jobs_or_order():
    y, preds, groups = _clustered()
    kw = dict(metrics=["accuracy", "f1_macro"], test=_tests(), random_state=123,
              groups=groups)
    ref = compare(y, preds, n_jobs=1, **kw)
    rev = compare(y, dict(reversed(list(preds.items()))), n_jobs=2, **kw)
    a, b = ref.to_frame(), rev.to_frame()
    # rev lists the pairs reversed; re-orient its rows to ref's order
    b = b.rename(columns={"system_a": "system_b", "system_b": "system_a",
                          "score_a": "score_b", "score_b": "score_a",
                          "ci_low": "ci_high", "ci_high": "ci_low"})
    b[["delta", "ci_low", "ci_high"]] = -b[["delta", "ci_low", "ci_high"]]
    key = ["metric", "system_a", "system_b"]
    a = a.sort_values(key).reset_index(drop=True)
    b = b[a.columns].sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    sa = ref.scores().set_index(["system", "metric"])
    sb = rev.scores().set_index(["system", "metric"]).loc[sa.index]
    pd.testing.assert_frame_equal(sa, sb)
    assert list(rev.scores().system.unique()) == list(reversed(list(preds)))  # input order


# ------------------------------------------------------------------ scores
def _score_seeds(random_state, n_pair_seeds, names, n_runs=1):
    """The seeds compare documents: the child after the pairs' seeds, then run -> sorted name."""
    root = spawn_seeds(random_state, n_pair_seeds + 1)[-1]
    kids = iter(root.spawn(n_runs * len(names)))
    return {(r, n): next(kids) for r in range(n_runs) for n in sorted(names)}


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
@pytest.mark.parametrize("design", [{}, {"groups": True}, {"groups": True, "strata": True}])
def test_scores_equal_sigtest_score_on_the_documented_seeds(design):
    y, preds, groups = _clustered()
    strata = np.array(["even" if int(g[-1]) % 2 == 0 else "odd" for g in groups])
    kw = {k: {"groups": groups, "strata": strata}[k] for k in design}
    metrics = ["accuracy", "f1_macro"]
    res = compare(y, preds, metrics=metrics, test=_tests(), random_state=9, **kw)
    table = res.scores()
    assert list(table.columns) == ["system", "metric", "score", "ci_low", "ci_high",
                                   "ci_level", "n_resamples", "ci_method"]
    assert (table["ci_method"] == "bca").all()
    assert list(zip(table.system, table.metric)) == [(s, m) for s in preds for m in metrics]
    seeds = _score_seeds(9, 3 * 2, list(preds))
    frame = res.to_frame()
    union = np.unique(np.concatenate([y, *preds.values()]))
    for row in table.itertuples(index=False):
        labels = np.unique(y) if row.metric == "f1_macro" else union
        ref = sigtest.score(y, preds[row.system], row.metric, n_resamples=B,
                            random_state=seeds[(0, row.system)], labels=labels, **kw)
        assert row.score == ref.estimate
        assert (row.ci_low, row.ci_high) == tuple(ref.confidence_interval)
        assert row.ci_level == 0.95 and row.n_resamples == B == ref.n_resamples
        # the observed score is the one of the pair rows
        side = frame[frame.metric == row.metric]
        seen = np.r_[side.score_a[side.system_a == row.system],
                     side.score_b[side.system_b == row.system]]
        assert np.all(seen == row.score)
    if "groups" in kw:
        plain = compare(y, preds, metrics=metrics, test=_tests(), random_state=9).scores()
        assert not np.allclose(plain[["ci_low", "ci_high"]], table[["ci_low", "ci_high"]])


def test_scores_follow_the_interval_test_settings():
    y, preds, _ = _clustered()
    it = BCaInterval(n_resamples=257, method="percentile", confidence_level=0.8)
    res = compare(y, preds, metrics="accuracy", test=(PairedPermutation(n_resamples=B), it),
                  random_state=0)
    table = res.scores()
    assert set(table.ci_level) == {0.8} and set(table.n_resamples) == {257}
    seeds = _score_seeds(0, 3 * 2, list(preds))
    ref = sigtest.score(y, preds["s1"], n_resamples=257, method="percentile",
                        confidence_level=0.8, random_state=seeds[(0, "s1")])
    row = table[table.system == "s1"].iloc[0]
    assert (row.ci_low, row.ci_high) == tuple(ref.confidence_interval)
    # simultaneous intervals of the differences: the scores stay marginal
    sim = compare(y, preds, metrics="accuracy", test=(PairedPermutation(n_resamples=B), it),
                  random_state=0, ci="simultaneous")
    assert set(sim.scores().ci_level) == {0.8}
    # a p-value test alone (no level): BCa, 10,000 resamples, 95 %
    alone = compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=B),
                    random_state=0).scores()
    assert set(alone.ci_level) == {0.95} and set(alone.n_resamples) == {N_RESAMPLES}
    seeds = _score_seeds(0, 3, list(preds))
    ref = sigtest.score(y, preds["s2"], random_state=seeds[(0, "s2")])
    row = alone[alone.system == "s2"].iloc[0]
    assert (row.ci_low, row.ci_high) == tuple(ref.confidence_interval)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_scores_with_runs_each_and_average():
    y, preds, groups = _clustered()
    rng = np.random.default_rng(4)
    runs = {n: [p, np.where(rng.random(p.size) < 0.2, (p + 1) % 3, p)]
            for n, p in list(preds.items())[:2]}
    each = compare(y, runs, metrics="accuracy", test=_tests(), random_state=2, runs="each",
                   groups=groups).scores()
    assert list(each.columns[:3]) == ["run", "system", "metric"]
    assert list(zip(each.run, each.system)) == [(0, "s0"), (0, "s1"), (1, "s0"), (1, "s1")]
    seeds = _score_seeds(2, 2 * 1 * 2, list(runs), n_runs=2)
    for row in each.itertuples(index=False):
        ref = sigtest.score(y, runs[row.system][row.run], n_resamples=B, groups=groups,
                            random_state=seeds[(row.run, row.system)])
        assert (row.score, row.ci_low, row.ci_high) == (ref.estimate,
                                                        *ref.confidence_interval)
    avg = compare(y, runs, metrics="accuracy", test=_tests(), random_state=2,
                  groups=groups).scores()
    assert "run" not in avg
    seeds = _score_seeds(2, 2, list(runs))
    for row in avg.itertuples(index=False):
        paired = prepare_paired_runs(y, runs[row.system], runs[row.system], "accuracy",
                                     groups=groups)
        ref = score_paired(paired, n_resamples=B, seed=seeds[(0, row.system)])
        assert row.score == pytest.approx(np.mean([np.mean(r == y) for r in runs[row.system]]),
                                          rel=1e-12)
        assert (row.score, row.ci_low, row.ci_high) == (ref.estimate,
                                                        *ref.confidence_interval)


def test_scores_are_computed_once_and_returned_as_copies():
    y, preds, _ = _clustered()
    res = compare(y, preds, metrics="accuracy", test=_tests(), random_state=0)
    first = res.scores()
    first.loc[0, "score"] = -1.0
    again = res.scores()
    assert again.loc[0, "score"] != -1.0
    assert res._scores is not None
    clone = pickle.loads(pickle.dumps(res))
    pd.testing.assert_frame_equal(clone.scores(), again)
    # same seed without a first call: the same table (lazy = eager)
    fresh = compare(y, preds, metrics="accuracy", test=_tests(), random_state=0)
    pd.testing.assert_frame_equal(fresh.scores(), again)
    # random_state=None: drawn at compare time, so repeated calls agree
    unseeded = compare(y, preds, metrics="accuracy", test=_tests())
    pd.testing.assert_frame_equal(unseeded.scores(), unseeded.scores())


def test_scores_of_a_perfect_system_are_exact_or_a_point_with_a_warning_naming_it():
    # independent items: the exact Clopper-Pearson interval of N of N; clustered
    # items are not independent trials: the point [1, 1] of the degenerate
    # bootstrap (issue 20; both were nan)
    from scipy.stats import binomtest

    y, preds, groups = _clustered()
    preds = {"perfect": y.copy(), "s0": preds["s0"]}
    exact = binomtest(len(y), len(y)).proportion_ci(0.95, method="exact")
    for kw, expected in (({}, (exact.low, exact.high)), ({"groups": groups}, (1.0, 1.0))):
        res = compare(y, preds, metrics="accuracy", test=_tests(), random_state=0, **kw)
        with pytest.warns(sigtest.exceptions.DegenerateDistributionWarning, match="perfect"):
            table = res.scores()
        row = table[table.system == "perfect"].iloc[0]
        assert row.score == 1.0
        assert (row.ci_low, row.ci_high) == pytest.approx(expected, rel=1e-12)
    other = table[table.system == "s0"].iloc[0]
    assert other.ci_low < other.score < other.ci_high


# --------------------------------------------------------------- reporting
@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_str_says_clustered_and_stratified_and_recompare_turns_it_off():
    y, preds, groups = _clustered(n_groups=24)
    strata = np.array(["even" if int(g[-1]) % 2 == 0 else "odd" for g in groups])
    res = compare(y, preds, metrics="accuracy", test=_tests(), random_state=0,
                  groups=groups, strata=strata)
    head = str(res).splitlines()[0]
    assert "clustered by 24 groups" in head and "stratified by 2 strata" in head
    plain = res.recompare(groups=None, strata=None)
    assert plain.n_groups is None and "clustered" not in str(plain)
    direct = compare(y, preds, metrics="accuracy", test=_tests(), random_state=0)
    pd.testing.assert_frame_equal(plain.to_frame(), direct.to_frame())
    again = plain.recompare(groups=groups, strata=strata)
    pd.testing.assert_frame_equal(again.to_frame(), res.to_frame())


def test_few_clusters_warn_once():
    y, preds, groups = _clustered(n_groups=8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare(y, preds, metrics="accuracy", test=_tests(), random_state=0, groups=groups)
    small = [w for w in caught if issubclass(w.category, sigtest.exceptions.SmallSampleWarning)]
    assert small and any("cluster" in str(w.message) for w in small)


# ---------------------------------------------------------- cross-validation
def test_cross_val_compare_uses_the_groups_for_folds_and_tests():
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    n_groups, size = 30, 8
    groups = np.repeat(np.arange(n_groups), size)
    X = rng.normal(size=(n_groups * size, 3)) + np.repeat(rng.normal(size=(n_groups, 3)),
                                                          size, axis=0)
    y = (X[:, 0] + rng.normal(0, 1, X.shape[0]) > 0).astype(int)
    ests = {"lr": LogisticRegression(), "tree": DecisionTreeClassifier(random_state=0)}
    res = sigtest.cross_val_compare(ests, X, y, cv=5, metrics="accuracy", test=_tests(),
                                    random_state=0, groups=groups)
    assert res.n_groups == n_groups
    for train, test in res.cv_splits[0]:  # group folds: no group on both sides
        assert not set(groups[train]) & set(groups[test])
    # the tests are compare's on the out-of-fold predictions with the same groups
    test_seed = spawn_seeds(0, 2)[1]
    ref = compare(y, res.predictions, metrics="accuracy", test=_tests(),
                  random_state=test_seed, groups=groups, runs="each")
    pd.testing.assert_frame_equal(res.to_frame(), ref.to_frame())
    pd.testing.assert_frame_equal(res.scores(), ref.scores())
    item = res.recompare(groups=None)
    assert item.n_groups is None
    assert not np.allclose(item.to_frame().ci_low, res.to_frame().ci_low)


@pytest.mark.filterwarnings("ignore::sigtest.exceptions.SmallSampleWarning")
def test_cross_val_compare_gives_the_groups_to_a_splitter_and_to_every_repeat():
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import GroupKFold
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(24), 5)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] + rng.normal(0, 1, 120) > 0).astype(int)
    ests = {"dummy": DummyClassifier(), "nb": GaussianNB()}
    kw = dict(metrics="accuracy", test=_tests(), random_state=0, groups=groups)
    # GroupKFold refuses groups=None: it got them
    res = sigtest.cross_val_compare(ests, X, y, cv=GroupKFold(3), **kw)
    assert res.n_groups == 24
    rep = sigtest.cross_val_compare(ests, X, y, cv=4, n_repeats=2, **kw)
    assert rep.n_runs == 2 and list(rep.scores().run.unique()) == [0, 1]
    for folds in rep.cv_splits:
        for train, test in folds:
            assert not set(groups[train]) & set(groups[test])
    assert [list(t) for _, t in rep.cv_splits[0]] != [list(t) for _, t in rep.cv_splits[1]]
