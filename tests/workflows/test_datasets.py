"""compare_datasets (issue 11 sections 1, 2 and 4): rank tests, post-hoc tests,
missing cells, replicability counts, reporting hooks.

References: scipy.stats.friedmanchisquare / wilcoxon and scikit-posthocs'
posthoc_nemenyi_friedman (test-only) to 1e-10; naive NumPy twins for the rest;
Demšar's (2006) worked example.
"""

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import sigtest
from sigtest import DatasetComparisonResult, compare_datasets
import sigtest.tests_._rank_tests as rt
# ------------------------------------------------------------------ naive twins
def naive_ranks(scores, greater_is_better=True):
    """Rank 1 = best per row, ties averaged, by counting (no scipy)."""
    s = np.asarray(scores, dtype=float) * (1 if greater_is_better else -1)
    out = np.empty_like(s)
    for i, row in enumerate(s):
        for j, v in enumerate(row):
            better = np.sum(row > v)
            tied = np.sum(row == v)
            out[i, j] = better + (tied + 1) / 2.0
    return out


def naive_holm(p):
    p = np.asarray(p, dtype=float)
    m = p.size
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def naive_partial_conjunction_bonferroni(p, alpha):
    """Dror et al. (2017): reject H0^{u/N} for u = 1, 2, ... while (N-u+1) p_(u) <= alpha."""
    p = sorted(p)
    n = len(p)
    u = 0
    while u < n and (n - (u + 1) + 1) * p[u] <= alpha:
        u += 1
    return u


def naive_partial_conjunction_fisher(p, alpha):
    p = sorted(p)
    n = len(p)
    u = 0
    while u < n:
        pc = stats.combine_pvalues(p[u:], method="fisher").pvalue  # p_(u+1) .. p_(N)
        if pc > alpha:
            break
        u += 1
    return u


def random_table(rng, n, k, ties=False):
    values = rng.integers(0, 6, (n, k)) / 10 if ties else rng.random((n, k))
    return pd.DataFrame(values, index=[f"d{i}" for i in range(n)],
                        columns=[f"s{j}" for j in range(k)])


# ------------------------------------------------------------------ rank statistics
@pytest.mark.parametrize("n, k, ties", [(5, 3, False), (14, 4, True), (30, 7, True),
                                        (9, 10, False)])
def test_friedman_matches_scipy_and_ranks_match_naive(n, k, ties):
    rng = np.random.default_rng(n * 100 + k)
    table = random_table(rng, n, k, ties)
    result = compare_datasets(table)
    np.testing.assert_allclose(result.average_ranks.to_numpy(), naive_ranks(table).mean(0),
                               rtol=0, atol=1e-12)
    ref = stats.friedmanchisquare(*table.to_numpy().T)
    assert result.friedman.statistic == pytest.approx(ref.statistic, rel=1e-10, abs=1e-10)
    assert result.friedman.pvalue == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-12)
    chi = ref.statistic
    f_ref = (n - 1) * chi / (n * (k - 1) - chi)
    assert result.iman_davenport.statistic == pytest.approx(f_ref, rel=1e-10)
    assert result.iman_davenport.pvalue == pytest.approx(
        stats.f.sf(f_ref, k - 1, (k - 1) * (n - 1)), rel=1e-10, abs=1e-14)
    assert result.iman_davenport.df == (k - 1, (k - 1) * (n - 1))


def test_loss_metric_and_override_reverse_the_ranks():
    rng = np.random.default_rng(1)
    table = random_table(rng, 8, 4)
    loss = [m for m in sigtest.get_metric_names() if not sigtest.get_metric(m).greater_is_better]
    assert loss, "a registered loss is needed for this test"
    by_loss = compare_datasets(table, metric=loss[0])
    np.testing.assert_allclose(by_loss.average_ranks, naive_ranks(table, False).mean(0))
    raw = compare_datasets(table, metric="my score", greater_is_better=False)
    np.testing.assert_allclose(raw.average_ranks, by_loss.average_ranks)
    assert raw.metric == "my score" and not raw.greater_is_better
    # an unregistered name needs the orientation
    with pytest.raises(ValueError, match="metric"):
        compare_datasets(table, metric="my score")


def test_demsar_2006_worked_example():
    # Demšar (2006), Table 6: AUC of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14 data
    # sets, as printed with 3 decimals; "voting" shows .975/.975 for the last two
    # but the paper's ranks (2 and 3) break that tie, so cf gets .9755 here.
    auc = np.array([
        [.763, .768, .771, .798], [.599, .591, .590, .569], [.954, .971, .968, .967],
        [.628, .661, .654, .657], [.882, .888, .886, .898], [.936, .931, .916, .931],
        [.661, .668, .609, .685], [.583, .583, .563, .625], [.775, .838, .866, .875],
        [1.0, 1.0, 1.0, 1.0], [.940, .962, .965, .962], [.619, .666, .614, .669],
        [.972, .981, .9755, .975], [.957, .978, .946, .970]])
    table = pd.DataFrame(auc, columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"])
    result = compare_datasets(table, metric="roc_auc", greater_is_better=True)
    # published average ranks 3.143, 2.000, 2.893, 1.964
    np.testing.assert_allclose(result.average_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    # published chi2_F = 9.28 and F_F = 3.69 use the formula without tie correction
    chi, ff = rt.friedman_test(auc, tie_correction=False)
    assert round(chi.statistic, 2) == 9.28 and round(ff.statistic, 2) == 3.69
    # the published critical values: F(3, 39) at .05 is 2.85 -> reject
    assert round(stats.f.ppf(0.95, *ff.df), 2) == 2.85 and ff.pvalue < 0.05
    # CD = 2.569 * sqrt(4 * 5 / (6 * 14)) = 1.25
    assert round(result.q_alpha, 3) == 2.569
    assert round(result.critical_difference, 2) == 1.25
    # sigtest's default applies scipy's tie correction (mushroom ties all four)
    ref = stats.friedmanchisquare(*auc.T)
    assert result.friedman.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert result.friedman.statistic > chi.statistic


def test_nemenyi_matches_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    for seed, (n, k, ties) in enumerate([(10, 4, False), (25, 6, True), (7, 3, True)]):
        table = random_table(np.random.default_rng(seed), n, k, ties)
        ours = compare_datasets(table).pairwise("nemenyi")
        # scikit-posthocs ranks ascending (1 = lowest): give it the negated scores
        ref = sp.posthoc_nemenyi_friedman(-table.to_numpy())
        np.testing.assert_allclose(ours.to_numpy(), ref.to_numpy(), rtol=1e-10, atol=1e-12)


def test_critical_difference_matches_nemenyi_pvalues():
    table = random_table(np.random.default_rng(3), 12, 5)
    result = compare_datasets(table, alpha=0.1)
    p = result.pairwise("nemenyi").to_numpy()
    r = result.average_ranks.to_numpy()
    gap = np.abs(r[:, None] - r[None, :])
    off = ~np.eye(5, dtype=bool)
    assert np.array_equal((p <= 0.1)[off], (gap >= result.critical_difference)[off])
    q = stats.studentized_range.ppf(0.9, 5, np.inf) / np.sqrt(2)
    assert result.critical_difference == pytest.approx(q * np.sqrt(5 * 6 / (6 * 12)), rel=1e-12)


def test_holm_against_control_and_all_pairs_match_naive():
    table = random_table(np.random.default_rng(4), 15, 5)
    result = compare_datasets(table)
    r = result.average_ranks.to_numpy()
    se = np.sqrt(5 * 6 / (6 * 15))
    # control
    raw = [2 * stats.norm.sf(abs(r[2] - r[j]) / se) for j in (0, 1, 3, 4)]
    got = result.pairwise("holm", control="s2")
    np.testing.assert_allclose(got.loc["s2", ["s0", "s1", "s3", "s4"]], naive_holm(raw),
                               rtol=1e-12)
    assert np.isnan(got.loc["s0", "s1"]) and got.loc["s2", "s2"] == 1
    # all pairs
    pairs = list(itertools.combinations(range(5), 2))
    raw = [2 * stats.norm.sf(abs(r[i] - r[j]) / se) for i, j in pairs]
    full = result.pairwise("holm").to_numpy()
    np.testing.assert_allclose([full[i, j] for i, j in pairs], naive_holm(raw), rtol=1e-12)
    np.testing.assert_array_equal(full, full.T)


def test_wilcoxon_matches_scipy_with_holm():
    table = random_table(np.random.default_rng(5), 12, 4)
    table["s3"] = table["s0"]  # a pair without any difference: p = 1 and a warning
    result = compare_datasets(table)
    with pytest.warns(UserWarning, match="equal scores on every dataset"):
        got = result.pairwise("wilcoxon")
    pairs = list(itertools.combinations(range(4), 2))
    x = table.to_numpy()
    raw = [1.0 if np.all(x[:, i] == x[:, j]) else stats.wilcoxon(x[:, i], x[:, j]).pvalue
           for i, j in pairs]
    np.testing.assert_allclose([got.iloc[i, j] for i, j in pairs], naive_holm(raw),
                               rtol=1e-10, atol=0)
    ctrl = result.pairwise("wilcoxon", control="s1")
    raw = [stats.wilcoxon(x[:, 1], x[:, j]).pvalue for j in (0, 2, 3)]
    np.testing.assert_allclose(ctrl.loc["s1", ["s0", "s2", "s3"]], naive_holm(raw), rtol=1e-10)


def test_signed_rank_pvalue_with_ties_and_zeros_matches_scipy():
    # ties or zeros with n <= 13: scipy enumerates the 2**n sign patterns through
    # permutation_test (slow); sigtest enumerates them directly. Also the other
    # branches (no ties: exact; n > 13 with ties: normal approximation).
    rng = np.random.default_rng(9)
    cases = [rng.integers(0, 4, (n, 2)) / 10 for n in (5, 7, 8, 9)]
    cases += [rng.random((10, 2)), rng.integers(0, 5, (20, 2)) / 10, rng.random((60, 2))]
    for x in cases:
        if np.all(x[:, 0] == x[:, 1]):
            continue
        ours = rt._signed_rank_pvalue(x[:, 0], x[:, 1])
        assert ours == pytest.approx(stats.wilcoxon(x[:, 0], x[:, 1]).pvalue, rel=1e-10,
                                     abs=1e-14)


def test_pairwise_bad_arguments():
    result = compare_datasets(random_table(np.random.default_rng(0), 5, 3))
    with pytest.raises(ValueError, match="'test' parameter"):
        result.pairwise("tukey")
    with pytest.raises(ValueError, match="control"):
        result.pairwise("holm", control="nope")
    with pytest.raises(ValueError, match="control"):
        result.pairwise("nemenyi", control="s0")


def test_degenerate_tables_give_defined_answers():
    # every system tied everywhere: no evidence, p = 1
    flat = pd.DataFrame(np.ones((4, 3)), columns=list("abc"))
    result = compare_datasets(flat)
    assert result.friedman.statistic == 0 and result.friedman.pvalue == 1
    assert result.iman_davenport.pvalue == 1
    # the same order on every dataset: F_F infinite, p = 0
    ordered = pd.DataFrame(np.tile([0.9, 0.8, 0.7], (6, 1)), columns=list("abc"))
    result = compare_datasets(ordered)
    assert result.iman_davenport.statistic == np.inf and result.iman_davenport.pvalue == 0
    assert result.friedman.statistic == pytest.approx(2 * 6)


# ------------------------------------------------------------------ inputs and missing cells
def test_long_format_averages_runs():
    rng = np.random.default_rng(6)
    rows = [dict(dataset=d, system=s, run=r, score=rng.random())
            for d in ("x", "y", "z") for s in ("a", "b", "c") for r in range(3)]
    long = pd.DataFrame(rows)
    result = compare_datasets(long)
    wide = long.groupby(["dataset", "system"])["score"].mean().unstack()
    np.testing.assert_allclose(result.scores.loc[wide.index, wide.columns], wide, rtol=0,
                               atol=0)
    assert result.n_runs == 3 and "averaged over up to 3 runs" in str(result)
    assert result.friedman.statistic == pytest.approx(
        stats.friedmanchisquare(*wide.to_numpy().T).statistic, rel=1e-10)
    with pytest.raises(ValueError, match="add a 'run' column"):
        compare_datasets(long.drop(columns="run"))
    with pytest.raises(ValueError, match="unknown column"):
        compare_datasets(long.assign(extra=1))


def test_missing_cells_rule():
    table = random_table(np.random.default_rng(7), 8, 4)
    table.loc["d1", "s0"] = np.nan          # an incomplete dataset
    table.loc[["d0", "d2", "d3", "d4", "d5"], "s3"] = np.nan   # missing on 5/8 > half
    with pytest.warns(UserWarning) as record:
        result = compare_datasets(table)
    messages = " ".join(str(w.message) for w in record)
    assert "['s3']" in messages and "['d1']" in messages
    assert result.systems == ["s0", "s1", "s2"] and "d1" not in result.datasets
    assert result.n_datasets == 7
    assert result.dropped_systems == ["s3"] and result.dropped_datasets == ["d1"]
    expected = table.drop(columns="s3").drop(index="d1")
    np.testing.assert_allclose(result.average_ranks, naive_ranks(expected).mean(0))


def test_too_little_left_is_a_value_error():
    table = random_table(np.random.default_rng(8), 3, 3)
    table.iloc[0, 0] = table.iloc[1, 1] = np.nan
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="1 complete dataset"):
        compare_datasets(table)
    with pytest.raises(ValueError, match="1 system"):
        compare_datasets(table[["s2"]])


@pytest.mark.parametrize("data, exc, match", [
    (pd.DataFrame({"a": ["x", "y"], "b": ["z", "w"]}), TypeError, "numeric"),
    (pd.DataFrame({"a": [1.0, np.inf], "b": [0.5, 0.2]}), ValueError, "infinite"),
    (pd.DataFrame(), ValueError, "empty"),
    ({"d": [1, 2]}, TypeError, "y_true"),
    ([[1, 2]], TypeError, "data"),
])
def test_bad_data(data, exc, match):
    with pytest.raises(exc, match=match):
        compare_datasets(data)


def test_bad_keywords():
    table = random_table(np.random.default_rng(0), 4, 3)
    with pytest.raises(TypeError):
        compare_datasets(table, bogus=1)
    with pytest.raises(ValueError, match="alpha"):
        compare_datasets(table, alpha=1.5)
    with pytest.raises(ValueError, match="test"):
        compare_datasets(table, test="mcnemar")
    with pytest.raises(ValueError, match="runs"):
        compare_datasets(table, runs="each")


# ------------------------------------------------------------------ predictions, replicability
def _predictions(seed, n_datasets=5, n=300, systems=("a", "b", "c"), runs=None):
    rng = np.random.default_rng(seed)
    data = {}
    for d in range(n_datasets):
        y = rng.integers(0, 2, n)
        preds = {}
        for i, s in enumerate(systems):
            acc = 0.65 + 0.06 * i
            draw = [np.where(rng.random(n) < acc, y, 1 - y) for _ in range(runs or 1)]
            preds[s] = draw if runs else draw[0]
        data[f"ds{d}"] = (y, preds)
    return data


FAST = sigtest.PairedPermutation(n_resamples=999)


def test_predictions_scores_and_item_tests_match_compare():
    data = _predictions(10, runs=2)
    result = compare_datasets(data, test=FAST, random_state=3)
    for name, (y, preds) in data.items():
        for s, runs in preds.items():
            # runs="average" scores accuracy as the mean over runs
            assert result.scores.loc[name, s] == pytest.approx(
                np.mean([np.mean(r == y) for r in runs]), abs=1e-12)
    frame = result.item_tests()
    assert set(frame["dataset"]) == set(data) and len(frame) == 5 * 3
    one = sigtest.compare(data["ds2"][0], data["ds2"][1], metrics="accuracy", test=FAST,
                          correction=None, random_state=0)
    assert set(one.to_frame().columns) <= set(frame.columns)
    assert result.n_runs == 2


def test_replicability_matches_naive_partial_conjunction():
    data = _predictions(11, n_datasets=6)
    result = compare_datasets(data, test=FAST, random_state=0)
    frame = result.item_tests()
    for alpha in (0.05, 0.2):
        for method, naive in (("bonferroni", naive_partial_conjunction_bonferroni),
                              ("fisher", naive_partial_conjunction_fisher)):
            table = result.replicability(alpha=alpha, combine=method)
            assert len(table) == 3
            for _, row in table.iterrows():
                p = frame.loc[(frame.system_a == row.system_a)
                              & (frame.system_b == row.system_b), "pvalue"].to_numpy()
                assert row.n_datasets == 6
                assert row.n_significant == int(np.sum(p <= alpha))
                assert row.u == naive(p, alpha)
                assert row.n_a_better + row.n_b_better == row.n_significant
    # the largest gap (a vs c) is found on several datasets
    counts = result.replicability().set_index(["system_a", "system_b"])["u"]
    assert counts[("a", "c")] >= 3


@pytest.mark.parametrize("method", ["bonferroni", "fisher"])
def test_partial_conjunction_on_random_pvalues(method):
    rng = np.random.default_rng(12)
    naive = {"bonferroni": naive_partial_conjunction_bonferroni,
             "fisher": naive_partial_conjunction_fisher}[method]
    for _ in range(300):
        n = int(rng.integers(1, 9))
        p = rng.random(n) ** rng.uniform(1, 6)
        assert rt.partial_conjunction(p, 0.05, method)[0] == naive(p, 0.05)
    # Bonferroni is not monotone in u by itself: the step stops at the first acceptance
    assert rt.partial_conjunction([0.001, 0.03, 0.031], 0.05)[0] == 1
    # (N - u + 1) p_(u): 3*0.001, 2*0.03=0.06 > .05 -> u = 1 even though 1*0.031 <= .05


def test_missing_system_in_one_dataset_with_predictions():
    data = _predictions(13, n_datasets=4)
    del data["ds1"][1]["c"]
    with pytest.warns(UserWarning, match="ds1"):
        result = compare_datasets(data, test=FAST, random_state=0)
    assert result.n_datasets == 3
    rep = result.replicability().set_index(["system_a", "system_b"])
    assert rep.loc[("a", "b"), "n_datasets"] == 4 and rep.loc[("a", "c"), "n_datasets"] == 3


def _canonical(frame):
    """Item-test rows with the two names of each pair sorted (delta flipped)."""
    frame = frame.copy()
    swap = (frame["system_a"] > frame["system_b"]).to_numpy()
    frame.loc[swap, ["system_a", "system_b"]] = frame.loc[swap, ["system_b", "system_a"]].to_numpy()
    for a, b in (("score_a", "score_b"),):
        frame.loc[swap, [a, b]] = frame.loc[swap, [b, a]].to_numpy()
    frame.loc[swap, "delta"] = -frame.loc[swap, "delta"]
    low, high = frame.loc[swap, "ci_low"].copy(), frame.loc[swap, "ci_high"].copy()
    frame.loc[swap, "ci_low"], frame.loc[swap, "ci_high"] = -high, -low
    cols = ["dataset", "system_a", "system_b"]
    return frame.sort_values(cols).reset_index(drop=True)


def test_results_do_not_depend_on_order_or_jobs():
    data = _predictions(14, n_datasets=4)
    base = compare_datasets(data, test=FAST, random_state=5)
    # datasets reversed; systems reversed on every dataset but the one now first
    first = list(data)[-1]
    reordered = {k: (data[k][0], data[k][1] if k == first
                     else dict(reversed(list(data[k][1].items()))))
                 for k in reversed(list(data))}
    other = compare_datasets(reordered, test=FAST, random_state=5, n_jobs=2)
    a, b = _canonical(base.item_tests()), _canonical(other.item_tests())
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12, atol=1e-15)
    assert a["pvalue"].tolist() == b["pvalue"].tolist()  # bit-identical
    pd.testing.assert_series_equal(base.average_ranks.sort_index(),
                                   other.average_ranks.sort_index())
    # one row per pair, oriented by the first order seen, whatever each dataset's order
    rep_a, rep_b = base.replicability(), other.replicability()
    assert len(rep_b) == 3
    key = ["system_a", "system_b"]
    pd.testing.assert_frame_equal(rep_a.sort_values(key).reset_index(drop=True),
                                  rep_b.sort_values(key).reset_index(drop=True))
    # same seed, same result: bit-identical
    again = compare_datasets(data, test=FAST, random_state=5)
    assert again.item_tests()["pvalue"].tolist() == base.item_tests()["pvalue"].tolist()


def test_score_table_has_no_item_tests():
    result = compare_datasets(random_table(np.random.default_rng(0), 4, 3))
    with pytest.raises(ValueError, match="predictions"):
        result.replicability()


# ------------------------------------------------------------------ reporting hooks
def test_reporting_hooks():
    table = random_table(np.random.default_rng(15), 6, 3)
    result = compare_datasets(table)
    assert isinstance(result, DatasetComparisonResult)
    text = str(result)
    assert repr(result) == text
    for piece in ("3 systems x 6 datasets", "Friedman", "Iman-Davenport", "critical difference",
                  "s0", "s1", "s2", "average_rank"):
        assert piece in text
    summary = result.system_table()
    assert list(summary.columns) == ["average_rank", "mean_score", "wins"]
    assert summary["average_rank"].is_monotonic_increasing
    assert summary["wins"].sum() == pytest.approx(6)
    frame = result.to_frame()
    assert list(frame.columns) == ["dataset", "system", "score", "rank"] and len(frame) == 18
    ranks = frame.pivot(index="dataset", columns="system", values="rank")
    np.testing.assert_allclose(ranks.mean().to_numpy(), result.average_ranks.to_numpy())
    out = result.to_dict()
    json.dumps(out)
    assert out["critical_difference"] == result.critical_difference
    assert out["friedman"]["pvalue"] == result.friedman.pvalue
    with_items = compare_datasets(_predictions(16, n_datasets=3), test=FAST, random_state=0)
    rows = with_items.to_dict()["replicability"]
    assert len(rows) == 3 and {"u", "n_significant"} <= set(rows[0])
    json.dumps(with_items.to_dict())


def test_lazy_exports():
    assert "compare_datasets" in sigtest.__all__ and "DatasetComparisonResult" in sigtest.__all__


# ------------------------------------------------------------------ type-I error
def test_friedman_type_one_error_under_the_null():
    # iid continuous scores: every ranking equally likely. 2000 replicates:
    # the binomial 99.9 % band around 0.05 is 0.05 +- 3.29 * sqrt(.05 * .95 / 2000)
    # = [0.034, 0.066]; chi2_F is known to be slightly conservative at N = 20
    # (Iman & Davenport 1980), F_F close to nominal. Measured: 4.60 % and 5.25 %
    # (about 2 s on the loaded 2-core machine, so not marked slow).
    rng = np.random.default_rng(2026)
    reps, n, k = 2000, 20, 5
    rej_chi = rej_f = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(reps):
            chi, ff = rt.friedman_test(rng.random((n, k)))
            rej_chi += chi.pvalue <= 0.05
            rej_f += ff.pvalue <= 0.05
    band = 3.29 * np.sqrt(0.05 * 0.95 / reps)
    assert abs(rej_f / reps - 0.05) <= band, rej_f / reps
    assert 0.05 - band <= rej_chi / reps <= 0.05 + band, rej_chi / reps


# ------------------------------------------------------------------ engine: merged run rows
def test_averaged_runs_merge_identical_rows_without_changing_the_test():
    # compare(..., runs="average") on hard labels: items with identical averaged
    # rows become one cell (what makes the issue-11 benchmark fast). The merged
    # data must hold the same rows and give the same test up to Monte Carlo error.
    import dataclasses

    from sigtest._engine import prepare_paired_runs

    rng = np.random.default_rng(21)
    n = 3000
    y = rng.integers(0, 3, n)
    runs_a = [np.where(rng.random(n) < 0.70, y, (y + 1) % 3) for _ in range(5)]
    runs_b = [np.where(rng.random(n) < 0.72, y, (y + 2) % 3) for _ in range(4)]
    merged = prepare_paired_runs(y, runs_a, runs_b, "accuracy")
    assert merged.counts is not None and merged.stats_a.shape[0] <= 6 * 5
    assert merged.counts.sum() == n
    items_a = np.mean([(r == y).astype(float) for r in runs_a], axis=0)
    items_b = np.mean([(r == y).astype(float) for r in runs_b], axis=0)
    sums_a, sums_b = merged.totals()
    assert sums_a[0] == pytest.approx(items_a.sum(), abs=1e-9)
    assert sums_b[0] == pytest.approx(items_b.sum(), abs=1e-9)
    expanded = dataclasses.replace(
        merged, stats_a=np.ascontiguousarray(np.repeat(merged.stats_a, merged.counts.astype(int),
                                                       axis=0)),
        stats_b=np.ascontiguousarray(np.repeat(merged.stats_b, merged.counts.astype(int), axis=0)),
        counts=None)
    B = 20_000
    p_merged = sigtest.PairedPermutation(n_resamples=B, random_state=1).test_paired(merged).pvalue
    p_items = sigtest.PairedPermutation(n_resamples=B, random_state=2).test_paired(expanded).pvalue
    # two independent Monte Carlo estimates of the same p: difference sd
    # sqrt(2 p (1 - p) / B); 4.5 sd keeps a false failure below 1e-5
    p = (p_merged + p_items) / 2
    assert abs(p_merged - p_items) <= 4.5 * np.sqrt(2 * p * (1 - p) / B) + 2 / B
    # probabilities: rows are all distinct, nothing is merged
    proba = [rng.dirichlet(np.ones(3), n) for _ in range(2)]
    soft = prepare_paired_runs(np.eye(3)[y], proba, proba[::-1], "cross_entropy")
    assert soft.counts is None and soft.stats_a.shape[0] == n


def test_result_is_read_only():
    result = compare_datasets(random_table(np.random.default_rng(17), 5, 3))
    with pytest.raises(AttributeError, match="read-only"):
        result.alpha = 0.1
    with pytest.raises(AttributeError, match="read-only"):
        del result.friedman
    scores = result.scores
    scores.iloc[0, 0] = -1.0
    ranks = result.average_ranks
    ranks.iloc[0] = 99.0
    assert result.scores.iloc[0, 0] != -1.0 and result.average_ranks.iloc[0] != 99.0


def test_long_format_bad_scores_and_missing_cells():
    rows = [dict(dataset=d, system=s, score=0.1 * i + 0.01 * j)
            for i, d in enumerate("xyzw") for j, s in enumerate("abc")]
    long = pd.DataFrame(rows)
    bad = long.astype({"score": object})
    bad.loc[0, "score"] = "high"
    with pytest.raises(TypeError, match="numeric"):
        compare_datasets(bad)
    gap = long[~((long.dataset == "y") & (long.system == "b"))]  # one absent row
    with pytest.warns(UserWarning, match=r"\['y'\]"):
        result = compare_datasets(gap)
    assert result.datasets == ["x", "z", "w"] and result.systems == ["a", "b", "c"]


def _small_sample_warnings(data, **kwargs):
    from sigtest.exceptions import SmallSampleWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_datasets(data, random_state=0, **kwargs)
    return [str(w.message) for w in caught if issubclass(w.category, SmallSampleWarning)]


def test_few_data_give_one_small_sample_warning():
    """Issue 20: the default test gave one warning per pair and dataset (12 here),
    each recommending the permutation test the p-values already came from."""
    data = _predictions(1, n_datasets=4, n=40)
    tests = (sigtest.PairedPermutation(n_resamples=999), sigtest.BCaInterval(n_resamples=999))
    default = _small_sample_warnings(data, test=tests)
    assert len(default) == 1
    assert "under-cover" in default[0] and "ds0" in default[0]
    assert "Use the exact permutation test" not in default[0]
    # a bootstrap p-value: the same one warning, now recommending the permutation test
    boot = _small_sample_warnings(data, test=sigtest.BCaInterval(n_resamples=999))
    assert len(boot) == 1 and "sigtest.PairedPermutation()" in boot[0]
    # enough data: no warning at all
    assert _small_sample_warnings(_predictions(1, n_datasets=3, n=600), test=tests) == []
