"""sigtest.compare: equality with pair-by-pair tests, determinism, corrections, errors."""

import io
import itertools
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation, compare
from sigtest.tests_._corrections import adjust_pvalues
from sigtest.metrics import get_metric
from sigtest.utils.validation import spawn_seeds

B = 199  # small resample counts: these tests check bookkeeping, not accuracy


def _systems(n=300, k=3, accs=(0.55, 0.7, 0.72, 0.9), seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    preds = {
        f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, k, n))
        for i, acc in enumerate(accs)
    }
    return y, preds


def _fast_tests():
    return (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_equals_pair_by_pair_with_spawned_seeds():
    y, preds = _systems()
    preds["s3"] = preds["s3"].copy()
    preds["s3"][:5] = 7  # a class absent from y_true and from the other systems
    metrics = ["accuracy", "f1_macro"]
    res = compare(y, preds, metrics=metrics, test=_fast_tests(), random_state=42)
    frame = res.to_frame()
    names = list(preds)
    pairs = list(itertools.combinations(names, 2))
    # one (p-value, interval) seed pair per system pair, shared by the metrics
    # (names s0..s3 are sorted: the canonical pair order is the input order)
    seeds = spawn_seeds(42, len(pairs) * 2)
    union = np.unique(np.concatenate([y, *preds.values()]))
    assert 7 in union
    with pytest.warns(UserWarning, match=r"\['s3'\] predict labels absent.*s3: \[7\]"):
        compare(y, preds, metrics=metrics, test=_fast_tests(), random_state=42)
    for metric in metrics:
        # the class set of macro-F1 is the gold set; accuracy has no class set
        labels = np.unique(y) if metric == "f1_macro" else union
        for k, (a, b) in enumerate(pairs):
            p = PairedPermutation(n_resamples=B, random_state=seeds[2 * k]).test(
                y, preds[a], preds[b], metric=metric, labels=labels)
            ci = BCaInterval(n_resamples=B, random_state=seeds[2 * k + 1]).test(
                y, preds[a], preds[b], metric=metric, labels=labels)
            row = frame[(frame.metric == metric) & (frame.system_a == a) & (frame.system_b == b)]
            assert len(row) == 1
            row = row.iloc[0]
            assert row.test == f"{p.test}+{ci.test}" == "permutation+bca"
            assert (row.score_a, row.score_b, row.delta) == (p.score_a, p.score_b, p.delta)
            assert row.pvalue == p.pvalue
            assert (row.ci_low, row.ci_high) == tuple(ci.confidence_interval)
            # the frame counts Monte Carlo draws: 0 for an exact permutation p-value
            assert row.n_resamples == (0 if p.resampling == "exact permutation"
                                       else p.n_resamples)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_labels_fixed_from_the_gold_set():
    # macro-F1 of a system must be the same in every pair it appears in,
    # even though a label appears only in the predictions of one system; the
    # class set is the gold set, so that label is not a class
    y, preds = _systems()
    preds["s0"] = preds["s0"].copy()
    preds["s0"][:10] = 9
    frame = compare(y, preds, metrics="f1_macro", test=PairedPermutation(n_resamples=B),
                    random_state=0).to_frame()
    labels = np.unique(y)
    for name, pred in preds.items():
        expected = get_metric("f1_macro")(y, pred, labels=labels, zero_division=0.0)
        seen = pd.concat([frame.loc[frame.system_a == name, "score_a"],
                          frame.loc[frame.system_b == name, "score_b"]])
        np.testing.assert_allclose(seen.to_numpy(), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_identical_for_any_n_jobs(n_jobs):
    y, preds = _systems()
    kw = dict(metrics=["accuracy", "f1_macro"], test=_fast_tests(), random_state=3)
    ref = compare(y, preds, n_jobs=1, **kw).to_frame()
    other = compare(y, preds, n_jobs=n_jobs, **kw).to_frame()
    pd.testing.assert_frame_equal(ref, other, check_exact=True)


def test_seed_sequence_and_int_seeds_reproducible():
    y, preds = _systems()
    t = PairedPermutation(n_resamples=B)
    a = compare(y, preds, metrics="accuracy", test=t, random_state=np.random.SeedSequence(5))
    b = compare(y, preds, metrics="accuracy", test=t, random_state=np.random.SeedSequence(5))
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame(), check_exact=True)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh", None])
def test_correction_per_metric(correction):
    y, preds = _systems(accs=(0.6, 0.62, 0.66, 0.7, 0.72))
    res = compare(y, preds, metrics=["accuracy", "f1_macro"],
                  test=PairedPermutation(n_resamples=B), correction=correction, alpha=0.1,
                  random_state=1)
    frame = res.to_frame()
    assert len(frame) == 2 * 10
    for _, part in frame.groupby("metric"):
        np.testing.assert_array_equal(part.pvalue_adj,
                                      adjust_pvalues(part.pvalue.to_numpy(), correction))
    np.testing.assert_array_equal(frame.significant, frame.pvalue_adj <= 0.1)


@pytest.mark.parametrize("correction", ["sidak", "holm-sidak", "hochberg", "hommel", "fdr_by",
                                        "bh", "by"])
def test_every_method_of_adjust_pvalues_is_a_correction(correction):
    # issue 24: compare(correction=) accepts the methods of sigtest.adjust_pvalues
    y, preds = _systems(accs=(0.6, 0.62, 0.66, 0.7, 0.72))
    frame = compare(y, preds, metrics="accuracy", test="mcnemar",
                    correction=correction).to_frame()
    np.testing.assert_array_equal(frame.pvalue_adj,
                                  adjust_pvalues(frame.pvalue.to_numpy(), correction))
    with pytest.raises(ValueError, match="correction"):
        compare(y, preds, metrics="accuracy", test="mcnemar", correction="simes")


def test_clear_differences_found_and_identical_systems_not():
    # 1000 items, true accuracies .5 + .5/3 = .667 vs .9 + .1/3 = .933: the
    # difference .267 is > 8 standard errors (se of a paired difference of
    # proportions <= sqrt(.33/1000) ~ .018), so even the 95 % CI stays > .2
    y, preds = _systems(n=1000, accs=(0.5, 0.9))
    preds["twin"] = preds["s1"].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate twin pair warns
        frame = compare(y, preds, metrics="accuracy", test=_fast_tests(),
                        random_state=0).to_frame().set_index(["system_a", "system_b"])
    assert frame.loc[("s0", "s1"), "significant"]
    row = frame.loc[("s0", "s1")]
    assert 0.2 < row.ci_low < row.delta < row.ci_high
    assert not frame.loc[("s1", "twin"), "significant"]
    assert frame.loc[("s1", "twin"), "delta"] == 0


def test_pairs_baseline():
    y, preds = _systems(accs=(0.6, 0.7, 0.8, 0.9))
    res = compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=B),
                  pairs="baseline", baseline="s1", random_state=0)
    frame = res.to_frame()
    assert list(zip(frame.system_a, frame.system_b)) == [("s1", "s0"), ("s1", "s2"), ("s1", "s3")]
    res2 = compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=B),
                   pairs="baseline", baseline=["s0", "s1"], random_state=0)
    got = list(zip(res2.to_frame().system_a, res2.to_frame().system_b))
    assert got == [("s0", "s2"), ("s0", "s3"), ("s1", "s2"), ("s1", "s3")]
    with pytest.raises(ValueError, match="every pair"):
        res.letters("accuracy")


def test_several_tests_one_row_each():
    y, preds = _systems(accs=(0.6, 0.7, 0.8))
    tests = [PairedPermutation(n_resamples=B), BergKirkpatrickBootstrap(n_resamples=B),
             PairedPermutation(n_resamples=99)]
    res = compare(y, preds, metrics="accuracy", test=tests, random_state=0)
    frame = res.to_frame()
    assert len(frame) == 3 * 3
    assert res.tests == ["permutation#1", BergKirkpatrickBootstrap._test_name(),
                         "permutation#2"]
    assert set(frame.test) == set(res.tests)
    # Holm is applied within each test's family
    for _, part in frame.groupby("test"):
        np.testing.assert_array_equal(part.pvalue_adj, adjust_pvalues(part.pvalue.to_numpy()))


def test_dataframe_input_and_outputs(tmp_path):
    y, preds = _systems(n=400, accs=(0.5, 0.52, 0.9))
    res = compare(y, pd.DataFrame(preds), metrics=["accuracy", "f1_macro"], test=_fast_tests(),
                  random_state=0)
    frame = res.to_frame()
    assert list(frame.columns) == [
        "system_a", "system_b", "metric", "test", "alternative", "score_a", "score_b", "delta",
        "ci_low", "ci_high", "ci_level", "pvalue", "pvalue_adj", "significant", "n_resamples"]
    assert set(frame.alternative) == {"two-sided"} and set(frame.ci_level) == {0.95}
    summary = res.system_table()
    assert list(summary.index) == ["s0", "s1", "s2"]
    assert list(summary.columns) == ["accuracy", "f1_macro"]
    np.testing.assert_allclose(summary.loc["s2", "accuracy"], np.mean(preds["s2"] == y))
    letters = res.letters("accuracy")
    assert list(letters.index) == ["s2", "s1", "s0"]  # by score, best first
    assert letters.loc["s2", "letters"] == "a"
    assert letters.loc["s1", "letters"] == letters.loc["s0", "letters"] == "b"
    text = str(res)
    assert "**" in text and "s2" in text and "holm" in text
    path = tmp_path / "out.csv"
    res.to_csv(path)
    back = pd.read_csv(path)
    np.testing.assert_allclose(back.pvalue_adj, frame.pvalue_adj)


def test_to_latex_escapes_names_and_has_stars():
    pytest.importorskip("jinja2")  # pandas needs it for LaTeX output
    y, preds = _systems(n=400, accs=(0.5, 0.9))
    res = compare(y, {"sys_a": preds["s0"], "sys_b": preds["s1"]}, metrics="f1_macro",
                  test=_fast_tests(), random_state=0)
    latex = res.to_latex()
    assert "\\begin{tabular}" in latex and "sys\\_a" in latex and "f1\\_macro" in latex
    assert "**" in latex


def test_soft_metric_and_argmax_for_hard_metrics():
    rng = np.random.default_rng(0)
    n, k = 200, 3
    p_true = rng.dirichlet(np.ones(k), n)
    preds = {f"m{i}": rng.dirichlet(np.ones(k) * (i + 1), n) for i in range(3)}
    soft = next(m for m in ("po_jsd", "soft_accuracy", "soft_f1_micro")
                if m in __import__("sigtest").get_metric_names())
    res = compare(p_true, preds, metrics=["accuracy", soft],
                  test=PairedPermutation(n_resamples=B), random_state=0)
    summary = res.system_table()
    for name, q in preds.items():
        np.testing.assert_allclose(summary.loc[name, "accuracy"],
                                   np.mean(q.argmax(1) == p_true.argmax(1)))
        np.testing.assert_allclose(summary.loc[name, soft], get_metric(soft)(p_true, q))


def test_letters_order_a_loss_lowest_first():
    rng = np.random.default_rng(1)
    n, k = 300, 3
    p_true = rng.dirichlet(np.ones(k), n)
    noise = rng.dirichlet(np.ones(k), n)
    preds = {f"w{w}": w * p_true + (1 - w) * noise for w in (0.2, 0.9, 0.5)}
    res = compare(p_true, preds, metrics="jsd", test=PairedPermutation(n_resamples=B),
                  random_state=0)
    letters = res.letters("jsd")
    assert list(letters.index) == ["w0.9", "w0.5", "w0.2"]  # smallest divergence first
    assert letters["score"].is_monotonic_increasing
    assert letters.loc["w0.9", "letters"] == "a"


def test_verbose_progress(capsys, monkeypatch):
    # the bar is drawn on a terminal only (tests/workflows/compare/test_progress.py: not in a pipe or a log)
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    y, preds = _systems(accs=(0.6, 0.7, 0.8))
    compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=B), verbose=True,
            random_state=0)
    assert "3/3" in err.getvalue()


def test_recompare_without_refitting():
    y, preds = _systems(accs=(0.6, 0.7, 0.8))
    res = compare(y, preds, metrics="accuracy", test=PairedPermutation(n_resamples=B),
                  random_state=0)
    again = res.recompare(metrics=["f1_macro"], correction=None)
    direct = compare(y, preds, metrics=["f1_macro"], test=PairedPermutation(n_resamples=B),
                     correction=None, random_state=0)
    pd.testing.assert_frame_equal(again.to_frame(), direct.to_frame(), check_exact=True)
    with pytest.raises(TypeError, match="unexpected"):
        res.recompare(y_true=y)


# ------------------------------------------------------------------ bad input
def test_error_different_lengths_names_system():
    y, preds = _systems()
    preds["short_one"] = preds["s0"][:-3]
    with pytest.raises(ValueError, match="short_one"):
        compare(y, preds)


def test_error_duplicate_names():
    y, preds = _systems(accs=(0.6, 0.7))
    frame = pd.DataFrame(np.column_stack([preds["s0"], preds["s1"]]), columns=["x", "x"])
    with pytest.raises(ValueError, match="duplicate"):
        compare(y, frame)
    with pytest.raises(ValueError, match="Duplicate"):
        compare(y, {1: preds["s0"], "1": preds["s1"]})


def test_error_unknown_baseline_and_misuse():
    y, preds = _systems()
    with pytest.raises(ValueError, match="nope"):
        compare(y, preds, pairs="baseline", baseline="nope")
    with pytest.raises(ValueError, match="baseline"):
        compare(y, preds, pairs="baseline")
    with pytest.raises(ValueError, match="pairs='all'"):
        compare(y, preds, baseline="s0")


def test_error_fewer_than_two_systems():
    y, preds = _systems(accs=(0.6,))
    with pytest.raises(ValueError, match="at least two"):
        compare(y, preds)


def test_error_mixing_hard_and_soft_predictions():
    rng = np.random.default_rng(0)
    p_true = rng.dirichlet(np.ones(3), 50)
    preds = {"soft": rng.dirichlet(np.ones(3), 50), "hard": rng.integers(0, 3, 50)}
    soft = next(m for m in ("po_jsd", "soft_accuracy", "soft_f1_micro")
                if m in __import__("sigtest").get_metric_names())
    with pytest.raises(ValueError, match="'hard'"):
        compare(p_true, preds, metrics=[soft])
    with pytest.raises(ValueError, match="soft targets"):
        compare(p_true.argmax(1), {"a": preds["soft"], "b": preds["soft"]}, metrics=[soft])


def test_error_run_count_mismatch_each():
    y, preds = _systems(accs=(0.6, 0.7))
    runs = {"a": [preds["s0"]] * 3, "b": [preds["s1"]] * 2}
    with pytest.raises(ValueError, match="same number of runs"):
        compare(y, runs, runs="each")


@pytest.mark.parametrize("kwargs, match", [
    ({"correction": "sidak-ish"}, "correction"),
    ({"alpha": 1.5}, "alpha"),
    ({"pairs": "some"}, "pairs"),
    ({"runs": "median"}, "runs"),
    ({"metrics": "no_such_metric"}, "no_such_metric"),
    ({"test": "not a test"}, "test"),
])
def test_error_bad_parameters(kwargs, match):
    y, preds = _systems(accs=(0.6, 0.7))
    with pytest.raises((ValueError, TypeError), match=match):
        compare(y, preds, **kwargs)


@pytest.mark.slow
def test_holm_controls_familywise_error_under_global_null():
    # Five systems with the same accuracy (independent errors): every null is
    # true. With Holm at alpha=.05 the probability of any significant pair is
    # <= .05. 300 replications: binomial sd of the rate ~ .0126, so the bound
    # .05 + 2.6 sd = .083 is exceeded by chance with probability < .5 %.
    # Without correction the 10 tests give a family-wise rate far above .05
    # (observed ~ .2), which shows that the simulation can detect a failure.
    # The uncorrected rejections are those of the same raw p-values (the same
    # tests and seed): read from the Holm frame's "pvalue" column, not from a
    # second comparison, which the first replicates check.
    hits = {"holm": 0, None: 0}
    reps = 300
    for rep in range(reps):
        y, preds = _systems(n=200, accs=(0.7,) * 5, seed=1000 + rep)
        kwargs = dict(metrics="accuracy", test=PairedPermutation(n_resamples=199),
                      random_state=rep)
        frame = compare(y, preds, correction="holm", **kwargs).to_frame()
        raw = (frame.pvalue <= 0.05).to_numpy()
        if rep < 3:
            plain = compare(y, preds, correction=None, **kwargs).to_frame()
            np.testing.assert_array_equal(plain.significant.to_numpy(), raw)
            np.testing.assert_array_equal(plain.pvalue.to_numpy(), frame.pvalue.to_numpy())
        hits["holm"] += bool(frame.significant.any())
        hits[None] += bool(raw.any())
    assert hits["holm"] / reps <= 0.083
    assert hits[None] / reps >= 0.12


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_worker_warnings_reach_the_caller_once(n_jobs):
    # identical systems: the tests warn that the distribution is degenerate;
    # the warning must reach the caller also from worker processes, once
    from sigtest import DegenerateDistributionWarning

    y, preds = _systems(accs=(0.7, 0.8))
    preds["twin"] = preds["s1"].copy()
    with pytest.warns(DegenerateDistributionWarning, match="s1 vs twin") as record:
        compare(y, preds, metrics="accuracy", test=_fast_tests(), n_jobs=n_jobs,
                random_state=0)
    messages = [str(w.message) for w in record
                if issubclass(w.category, DegenerateDistributionWarning)]
    assert len(messages) == len(set(messages))


def test_string_labels_in_pandas_objects_same_as_integer_codes():
    y, preds = _systems(accs=(0.6, 0.7, 0.9))
    names = np.array(["neg", "neu", "pos"])
    frame_str = pd.DataFrame({k: pd.Series(names[v], dtype="string") for k, v in preds.items()})
    kw = dict(metrics=["accuracy", "f1_macro"], test=_fast_tests(), random_state=0)
    as_str = compare(pd.Series(names[y], dtype="string"), frame_str, **kw).to_frame()
    as_int = compare(y, preds, **kw).to_frame()
    pd.testing.assert_frame_equal(as_str, as_int, check_exact=True)


def test_serial_kernels_requested_only_when_joblib_runs_several_jobs():
    from sigtest._workflows.compare.plan import _seeded

    seed = np.random.SeedSequence(0)
    inside = _seeded(PairedPermutation(), seed, serial=True)
    alone = _seeded(PairedPermutation(), seed, serial=False)
    assert inside.n_jobs == 1 and alone.n_jobs is None
    assert inside.random_state is seed and alone.random_state is seed


# ------------------------------------------------- issue 8: order independence
def _order_tests():
    from sigtest.tests_ import BooStSaBootstrap

    return {
        "bootstrap": BergKirkpatrickBootstrap(n_resamples=B),  # default alternative: greater
        "boostsa": BooStSaBootstrap(n_resamples=B),
        "bca": BCaInterval(n_resamples=B),
        "permutation": PairedPermutation(n_resamples=B),
        "tuple": (PairedPermutation(n_resamples=B), BCaInterval(n_resamples=B)),
    }


def _rows_by_pair(frame):
    return {frozenset((r.system_a, r.system_b, r.metric)): r for r in frame.itertuples()}


def _assert_same_up_to_orientation(frame1, frame2):
    rows1, rows2 = _rows_by_pair(frame1), _rows_by_pair(frame2)
    assert rows1.keys() == rows2.keys()
    for key, r1 in rows1.items():
        r2 = rows2[key]
        assert (r1.pvalue, r1.pvalue_adj, r1.significant, r1.alternative) == (
            r2.pvalue, r2.pvalue_adj, r2.significant, r2.alternative)
        if r1.system_a == r2.system_a:
            assert (r1.score_a, r1.score_b, r1.delta) == (r2.score_a, r2.score_b, r2.delta)
            np.testing.assert_array_equal([r1.ci_low, r1.ci_high], [r2.ci_low, r2.ci_high])
        else:  # re-oriented exactly: scores swapped, delta negated, CI mirrored
            assert (r1.score_a, r1.score_b, r1.delta) == (r2.score_b, r2.score_a, -r2.delta)
            np.testing.assert_array_equal([r1.ci_low, r1.ci_high], [-r2.ci_high, -r2.ci_low])


@pytest.mark.parametrize("test_name", list(_order_tests()))
@pytest.mark.parametrize("k", [3, 4, 5])
def test_results_do_not_depend_on_the_order_of_the_systems(test_name, k):
    y, preds = _systems(n=300, accs=(0.55, 0.6, 0.75, 0.78, 0.95)[:k], seed=k)
    names = ["zeta", "alpha", "mid", "beta", "omega"][:k]
    preds = dict(zip(names, preds.values()))
    test = _order_tests()[test_name]
    ref = compare(y, preds, metrics=["accuracy", "f1_macro"], test=test, random_state=5)
    assert set(ref.to_frame().alternative) == {"two-sided"}
    rng = np.random.default_rng(k)
    for _ in range(3):
        order = rng.permutation(k)
        permuted = {names[i]: preds[names[i]] for i in order}
        res = compare(y, permuted, metrics=["accuracy", "f1_macro"], test=test, random_state=5)
        _assert_same_up_to_orientation(ref.to_frame(), res.to_frame())
        for metric in ("accuracy", "f1_macro"):
            pd.testing.assert_frame_equal(ref.letters(metric), res.letters(metric))


def test_one_sided_bootstrap_in_all_pairs_is_two_sided_issue_example():
    # issue 8, item 1: 91 % vs 63 % accuracy, N = 1000: p = 1 and one letter in
    # one order, p ~ 0 in the other, with the one-sided Berg-Kirkpatrick test
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1000)
    good = np.where(rng.random(1000) < 0.91, y, 1 - y)
    bad = np.where(rng.random(1000) < 0.63, y, 1 - y)
    test = BergKirkpatrickBootstrap(n_resamples=999, alternative="greater")
    for preds in ({"good": good, "bad": bad}, {"bad": bad, "good": good}):
        res = compare(y, preds, metrics="accuracy", test=test, random_state=0)
        row = res.to_frame().iloc[0]
        assert row.alternative == "two-sided"
        assert row.pvalue < 0.01 and row.significant
        letters = res.letters()["letters"]
        assert letters["good"] != letters["bad"]
    # vs a baseline the test keeps its own (one-sided) alternative
    res = compare(y, {"good": good, "bad": bad}, metrics="accuracy", test=test,
                  pairs="baseline", baseline="good", random_state=0)
    row = res.to_frame().iloc[0]
    assert row.alternative == "greater" and row.pvalue == 1.0  # bad is not better than good


def test_a_test_that_cannot_be_two_sided_is_an_error_in_all_pairs():
    class GreaterOnly(PairedPermutation):
        _parameter_constraints = {
            **PairedPermutation._parameter_constraints,
            "alternative": [__import__("sigtest").utils._param_validation.StrOptions(
                {"greater"})],
        }

        def __init__(self, *, n_resamples=B, alternative="greater", exact="auto",
                     random_state=None, n_jobs=None):
            super().__init__(n_resamples=n_resamples, alternative=alternative, exact=exact,
                             random_state=random_state, n_jobs=n_jobs)

    y, preds = _systems(accs=(0.6, 0.7, 0.8))
    with pytest.raises(ValueError, match="two-sided.*pairs='baseline'"):
        compare(y, preds, metrics="accuracy", test=GreaterOnly())
    res = compare(y, preds, metrics="accuracy", test=GreaterOnly(), pairs="baseline",
                  baseline="s0", random_state=0)
    assert set(res.to_frame().alternative) == {"greater"}


# ----------------------------------------------- issue 8: resamples, many pairs
def test_default_resamples_rule():
    from sigtest._workflows.compare.checks import check_tests as _check_tests
    from sigtest._workflows.compare.checks import default_resamples as _default_resamples

    assert _default_resamples(1, 0.05, 9999) == 9999
    assert _default_resamples(1225, 0.05, 9999) == 244999  # 50 systems
    for m, alpha in [(1, 0.05), (45, 0.05), (1225, 0.05), (6, 0.0005), (10, 0.01)]:
        b = _default_resamples(m, alpha, 9999)
        assert m / (b + 1) <= alpha / 10  # smallest adjusted p at most alpha / 10
        assert b == 9999 or m / b > alpha / 10  # and no larger than needed
    (name, ptest, itest), = _check_tests(None, m=1225, m_ci=1225, alpha=0.05)
    assert (ptest.n_resamples, itest.n_resamples) == (244999, BCaInterval().n_resamples)
    (name, ptest, itest), = _check_tests(None, m=1225, m_ci=1225, alpha=0.05,
                                         simultaneous=True)
    assert itest.n_resamples == 244999


def test_default_finds_differences_that_the_monte_carlo_floor_hid():
    # 4 systems (6 pairs), alpha = .0005: with B = 10^4 (e60df5c) the floor
    # 6 / 10001 > alpha made every pair non-significant after Holm, even
    # differences of 45 accuracy points
    y, preds = _systems(n=2000, accs=(0.5, 0.6, 0.75, 0.95), seed=3)
    res = compare(y, preds, metrics="f1_macro", alpha=0.0005, random_state=0)
    frame = res.to_frame()
    assert frame.significant.all()
    assert set(frame.n_resamples) == {119999}  # ceil(10 * 6 / .0005) - 1
    assert frame.pvalue_adj.min() <= 0.0005 / 10 * (1 + 1e-9)  # = 6 / 120000


def test_too_few_resamples_for_the_family_warns_with_the_b_needed():
    y, preds = _systems(n=200, accs=(0.5, 0.6, 0.7, 0.8, 0.9))  # 10 pairs
    with pytest.warns(UserWarning, match=r"n_resamples=99.*n_resamples >= 199"):
        compare(y, preds, metrics="accuracy",
                test=PairedPermutation(n_resamples=99, exact=False), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        compare(y, preds, metrics="accuracy", correction=None,
                test=PairedPermutation(n_resamples=99, exact=False), random_state=0)


# --------------------------------------------- issue 8: simultaneous intervals
def test_simultaneous_intervals_are_bonferroni_level_intervals():
    y, preds = _systems()
    m = 6
    level = 1 - 0.05 / m
    res = compare(y, preds, metrics="accuracy", test=_fast_tests(), ci="simultaneous",
                  random_state=1)
    frame = res.to_frame()
    np.testing.assert_array_equal(frame.ci_level, level)
    pairs = list(itertools.combinations(preds, 2))
    seeds = spawn_seeds(1, len(pairs) * 2)
    marginal = compare(y, preds, metrics="accuracy", test=_fast_tests(), random_state=1)
    for k, (a, b) in enumerate(pairs):
        ci = BCaInterval(n_resamples=B, confidence_level=level,
                         random_state=seeds[2 * k + 1]).test(y, preds[a], preds[b])
        row = frame[(frame.system_a == a) & (frame.system_b == b)].iloc[0]
        assert (row.ci_low, row.ci_high) == tuple(ci.confidence_interval)
        narrow = marginal.to_frame().iloc[k]
        assert row.ci_low <= narrow.ci_low and row.ci_high >= narrow.ci_high
    text = str(res)
    assert "CI (simultaneous, 99.17 %)" in text and "p (raw)" in text and "p (Holm)" in text
    assert "CI 95 % (unadjusted)" in str(marginal)
    # a single bootstrap test: its stored distribution at the simultaneous level
    single = compare(y, preds, metrics="accuracy", test=BCaInterval(n_resamples=B),
                     ci="simultaneous", random_state=1).to_frame()
    np.testing.assert_array_equal(single.ci_level, level)


# ----------------------------------------------------------- issue 8: printing
def test_pvalues_print_as_less_than_never_zero():
    y, preds = _systems(n=2000, accs=(0.4, 0.95))
    res = compare(y, preds, metrics="accuracy", random_state=0,
                  test=PairedPermutation(n_resamples=99999, exact=False))
    assert res.to_frame().pvalue.iloc[0] < 1e-4
    text = str(res)
    assert "<0.0001" in text and "0.0000" not in text
    assert "n_resamples" in res.to_frame()
    pytest.importorskip("jinja2")
    latex = res.to_latex()
    assert "<0.0001" in latex and "0.0000 " not in latex
    assert "resamples (p-test)" in latex and "p (Holm)" in latex


def test_recompare_validates_like_compare():
    y, preds = _systems()
    res = compare(y, preds, metrics="accuracy", test=_fast_tests(), random_state=0)
    with pytest.raises(ValueError, match="alpha"):
        res.recompare(alpha=5)
    with pytest.raises(ValueError, match="ci"):
        res.recompare(ci="both")
    with pytest.raises(ValueError, match="runs"):
        res.recompare(runs="pooled")
    with pytest.raises(TypeError, match="unexpected"):
        res.recompare(alpah=0.1)
    again = res.recompare(ci="simultaneous")
    np.testing.assert_array_equal(again.to_frame().ci_level, 1 - 0.05 / 6)


# ------------------------------------------------------ issue 8: the class set
def test_a_system_predicting_an_unseen_label_does_not_change_other_pairs():
    y, preds = _systems(accs=(0.6, 0.7, 0.8))
    test = PairedPermutation(n_resamples=B)
    ref = compare(y, preds, metrics=["f1_macro", "accuracy"], test=test,
                  random_state=0).to_frame()
    odd = preds["s0"].copy()
    odd[:20] = 9  # a label absent from y_true
    with pytest.warns(UserWarning, match=r"\['zz_odd'\].*zz_odd: \[9\].*labels="):
        res = compare(y, {**preds, "zz_odd": odd}, metrics=["f1_macro", "accuracy"],
                      test=test, random_state=0).to_frame()
    res = res[res.system_b != "zz_odd"]
    for col in ("system_a", "system_b", "metric", "score_a", "score_b", "delta"):
        np.testing.assert_array_equal(res[col].to_numpy(), ref[col].to_numpy())
    # an explicit class set is used as given (here it makes 9 a class)
    with_9 = compare(y, {**preds, "zz_odd": odd}, metrics="f1_macro", test=test,
                     labels=[0, 1, 2, 9], random_state=0).to_frame()
    expected = get_metric("f1_macro")(y, preds["s0"], labels=[0, 1, 2, 9],
                                      zero_division=0.0)
    assert with_9[with_9.system_a == "s0"].score_a.iloc[0] == pytest.approx(expected,
                                                                             abs=1e-12)


def test_pos_label_for_one_class_metrics():
    from sklearn.metrics import f1_score, precision_score, recall_score

    rng = np.random.default_rng(0)
    y = rng.choice(["ham", "spam"], 300)
    preds = {n: np.where(rng.random(300) < acc, y, rng.choice(["ham", "spam"], 300))
             for n, acc in (("a", 0.6), ("b", 0.8))}
    res = compare(y, preds, metrics=["f1", "precision", "recall"], pos_label="spam",
                  test=PairedPermutation(n_resamples=B), random_state=0).to_frame()
    for metric, func in (("f1", f1_score), ("precision", precision_score),
                         ("recall", recall_score)):
        row = res[res.metric == metric].iloc[0]
        assert row.score_a == pytest.approx(func(y, preds["a"], pos_label="spam"), abs=1e-12)
        assert row.score_b == pytest.approx(func(y, preds["b"], pos_label="spam"), abs=1e-12)
    with pytest.raises(ValueError, match=r"pos_label.*\['accuracy'\]"):  # nobody uses it
        compare(y, preds, metrics=["accuracy"], pos_label="spam")
    with pytest.raises(ValueError, match="pos_label"):  # no default for {"ham", "spam"}
        compare(y, preds, metrics="f1")


def _binary_systems(labels=(0, 1), n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(labels, n)
    return y, {name: np.where(rng.random(n) < acc, y, rng.choice(labels, n))
               for name, acc in (("a", 0.6), ("b", 0.8))}


@pytest.mark.parametrize("labels", [(0, 1), (-1, 1)])
def test_accuracy_and_f1_in_one_call(labels):
    """Issue 20: pos_label goes to the one-class metrics only, and defaults to 1 for
    {0, 1} / {-1, 1} labels, as scikit-learn's f1_score(y, p)."""
    from sklearn.metrics import accuracy_score, f1_score, recall_score

    y, preds = _binary_systems(labels)
    metrics = ["accuracy", "f1", "f1_macro", "recall"]
    test = PairedPermutation(n_resamples=B)
    default = compare(y, preds, metrics=metrics, test=test, random_state=0).to_frame()
    for metric, func in (("accuracy", accuracy_score), ("f1", f1_score),
                         ("recall", recall_score),
                         ("f1_macro", lambda t, p: f1_score(t, p, average="macro"))):
        row = default[default.metric == metric].iloc[0]
        assert row.score_a == pytest.approx(func(y, preds["a"]), abs=1e-12)
        assert row.score_b == pytest.approx(func(y, preds["b"]), abs=1e-12)
    given = compare(y, preds, metrics=metrics, test=test, random_state=0, pos_label=1)
    pd.testing.assert_frame_equal(given.to_frame(), default, check_exact=True)
    other = labels[0]
    flipped = compare(y, preds, metrics=metrics, test=test, random_state=0,
                      pos_label=other).to_frame()
    row = flipped[flipped.metric == "f1"].iloc[0]
    assert row.score_a == pytest.approx(f1_score(y, preds["a"], pos_label=other), abs=1e-12)
    for metric in ("accuracy", "f1_macro"):  # they ignore pos_label
        pd.testing.assert_frame_equal(flipped[flipped.metric == metric],
                                      default[default.metric == metric], check_exact=True)
    with pytest.raises(ValueError, match=r"'pos_label' parameter \(5\)"):  # absent label
        compare(y, preds, metrics=metrics, test=test, pos_label=5)
    assert default.equals(compare(y, preds, metrics=metrics, test=test,
                                  random_state=0).to_frame())


@pytest.mark.filterwarnings("ignore:System\\(s\\) \\['b'\\] predict labels absent:UserWarning")
def test_pos_label_default_only_for_binary_label_sets():
    y, preds = _binary_systems((1, 2))
    with pytest.raises(ValueError, match=r"pos_label.*\{0, 1\}.*labels seen: \[1, 2\]"):
        compare(y, preds, metrics=["accuracy", "f1"])
    y, preds = _binary_systems((0, 1))
    preds["b"][0] = 2  # a third label predicted: no default either
    with pytest.raises(ValueError, match="pos_label"):
        compare(y, preds, metrics=["accuracy", "f1"])
    res = compare(y, preds, metrics=["accuracy", "f1"], pos_label=1,
                  test=PairedPermutation(n_resamples=B), random_state=0)
    assert len(res.to_frame()) == 2


def test_pos_label_default_in_scores_ranks_and_power():
    """The result's other tables take the same default as the pair tests."""
    from sklearn.metrics import f1_score

    y, preds = _binary_systems()
    res = compare(y, preds, metrics=["accuracy", "f1"],
                  test=PairedPermutation(n_resamples=B), random_state=0)
    scores = res.scores()
    got = scores[(scores.metric == "f1") & (scores.system == "a")].score.iloc[0]
    assert got == pytest.approx(f1_score(y, preds["a"]), abs=1e-12)
    assert set(res.ranks(n_resamples=B).metric) == {"accuracy", "f1"}
    assert set(res.minimum_detectable_effects(n_simulations=20).metric) <= {"accuracy", "f1"}


def test_registered_plain_metric_in_compare():
    from sklearn.metrics import matthews_corrcoef

    from sigtest import register_metric
    from sigtest.metrics import unregister_metric

    y, preds = _systems(accs=(0.6, 0.8))
    register_metric("t_mcc", matthews_corrcoef)
    try:
        frame = compare(y, preds, metrics="t_mcc", test=PairedPermutation(n_resamples=49),
                        random_state=0).to_frame()
        assert frame.score_a.iloc[0] == pytest.approx(matthews_corrcoef(y, preds["s0"]))
        assert frame.score_b.iloc[0] == pytest.approx(matthews_corrcoef(y, preds["s1"]))
        assert 0 < frame.pvalue.iloc[0] <= 1
        with pytest.raises(TypeError, match="labels"):
            compare(y, preds, metrics="t_mcc", labels=[0, 1, 2],
                    test=PairedPermutation(n_resamples=49))
    finally:
        unregister_metric("t_mcc")


def test_letters_of_tied_systems_do_not_depend_on_the_order():
    y, preds = _systems(accs=(0.6, 0.9))
    tied = {"b_copy": preds["s0"].copy(), "a_orig": preds["s0"], "c_best": preds["s1"]}
    ref = compare(y, tied, metrics="accuracy", test=PairedPermutation(n_resamples=B),
                  random_state=0).letters()
    assert list(ref.index) == ["c_best", "a_orig", "b_copy"]  # tie broken by name
    for order in (["a_orig", "c_best", "b_copy"], ["c_best", "b_copy", "a_orig"]):
        res = compare(y, {n: tied[n] for n in order}, metrics="accuracy",
                      test=PairedPermutation(n_resamples=B), random_state=0)
        pd.testing.assert_frame_equal(res.letters(), ref)


@pytest.mark.slow
def test_simultaneous_intervals_cover_the_whole_family():
    """Family-wise coverage of ci="simultaneous" (issue 8, item 7).

    4 systems drawn from the same process (accuracy .7, N = 300), so every
    true difference is 0; 6 pairs, BCa with B = 499. Bonferroni-level
    intervals (1 - .05/6) must cover all 6 differences at once in at least
    95 % of the data sets: with 300 seeded replications the count must reach
    the lower 99.9 % binomial quantile of Bin(300, .95) (k >= 272, i.e. .907).
    The marginal 95 % intervals fall far short of family-wise coverage.
    Measured (SeedSequence(11)): simultaneous .953, marginal .783.
    """
    reps = 300
    covered = {"marginal": 0, "simultaneous": 0}
    for ss in np.random.SeedSequence(11).spawn(reps):
        rng = np.random.default_rng(ss)
        y = rng.integers(0, 3, 300)
        preds = {f"s{i}": np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
                 for i in range(4)}
        for mode in covered:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frame = compare(y, preds, metrics="accuracy", test=BCaInterval(n_resamples=499),
                                ci=mode, random_state=int(rng.integers(2**32))).to_frame()
            covered[mode] += int(((frame.ci_low <= 0) & (frame.ci_high >= 0)).all())
    print(f"family-wise coverage: {({k: v / reps for k, v in covered.items()})}")
    band = __import__("scipy.stats").stats.binom.ppf(0.001, reps, 0.95)
    assert covered["simultaneous"] >= band
    assert covered["marginal"] < band


def test_registered_test_names_are_accepted():
    """compare(test="mcnemar") runs the registered test (it was refused: only objects)."""
    from sigtest import McNemar, get_test_names

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    preds = {"a": np.where(rng.random(200) < 0.7, y, 1 - y),
             "b": np.where(rng.random(200) < 0.85, y, 1 - y)}
    by_name = compare(y, preds, metrics="accuracy", test="mcnemar", random_state=0)
    by_obj = compare(y, preds, metrics="accuracy", test=McNemar(), random_state=0)
    pd.testing.assert_frame_equal(by_name.to_frame(), by_obj.to_frame())
    both = compare(y, preds, metrics="accuracy", test=[("permutation", "bca"), "sign"],
                   random_state=0)
    assert set(both.to_frame()["test"]) == {"permutation+bca", "sign"}
    assert "mcnemar" in get_test_names()
    with pytest.raises(ValueError, match="not a known significance test"):
        compare(y, preds, metrics="accuracy", test="mcnemr")
