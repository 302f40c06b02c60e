"""sigtest.read_scores: long tables of per-item scores (issue 22 s4).

References: the arrays are built by hand from the table in the tests
(a dict per system, ordered by item id) and ``compare`` on them is the
reference for ``ScoreTable.compare``.
"""

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest import ScoreTable, read_scores


@pytest.fixture(scope="module")
def long_table():
    """3 systems x 2 datasets x 12 items x 2 samples of 0/1 scores, rows shuffled."""
    rng = np.random.default_rng(0)
    rows = [(d, m, f"q{q:02d}", e, int(rng.random() < p))
            for d in ("arc", "gsm8k") for m, p in (("m1", .4), ("m2", .6), ("m3", .8))
            for q in range(12) for e in range(2)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "epoch", "score"])
    return df.sample(frac=1.0, random_state=1).reset_index(drop=True)


def _by_hand(df, dataset, system):
    """The scores of one system on one dataset ordered by (item, epoch): the reference."""
    part = df[(df.dataset == dataset) & (df.system == system)].sort_values(["item", "epoch"])
    return part["score"].to_numpy(dtype=float), part["item"].to_numpy()


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def test_simple_table_aligns_items_by_id():
    df = pd.DataFrame({"system": ["a", "a", "a", "b", "b", "b"],
                       "item": [3, 1, 2, 2, 3, 1], "score": [0.5, 1.0, 0.0, 7, 8, 9]})
    table = read_scores(df)
    assert isinstance(table, ScoreTable) and table.systems == ["a", "b"]
    y_true, scores, groups = table.arrays()
    assert y_true is None and groups is None
    assert scores["a"].tolist() == [1.0, 0.0, 0.5] and scores["b"].tolist() == [9, 7, 8]
    assert table.items().tolist() == [1, 2, 3]


def test_repeated_samples_are_units_clustered_by_item(long_table):
    table = read_scores(long_table)
    assert table.datasets == ["arc", "gsm8k"] and table.systems == ["m1", "m2", "m3"] or \
        set(table.systems) == {"m1", "m2", "m3"}
    for d in table.datasets:
        _, scores, groups = table.arrays(d)
        for s in ("m1", "m2", "m3"):
            ref, items = _by_hand(long_table, d, s)
            # per item, the same multiset of samples (their pairing within the item is free)
            got = pd.Series(scores[s]).groupby(groups).sum()
            assert got.to_dict() == pd.Series(ref).groupby(items).sum().to_dict()
        assert groups.tolist() == sorted(groups.tolist())
        assert pd.Series(groups).value_counts().eq(2).all()


def test_compare_equals_compare_on_hand_built_arrays(long_table):
    table = read_scores(long_table)
    part = long_table[long_table.dataset == "arc"]
    got = _quiet(table.compare, dataset="arc", random_state=0).to_frame()
    preds, groups = {}, None
    for s in table.systems:
        preds[s], groups = _by_hand(part, "arc", s)
    ref = _quiet(sigtest.compare, None, preds, metrics="mean", groups=groups,
                 random_state=0).to_frame()
    cols = ["system_a", "system_b", "score_a", "score_b", "pvalue", "ci_low", "ci_high"]
    assert got[cols].equals(ref[cols])
    # the row order of the file does not matter
    again = _quiet(read_scores(long_table.iloc[::-1]).compare, dataset="arc",
                   random_state=0).to_frame()
    key = lambda f: {frozenset((r.system_a, r.system_b)): r.pvalue for r in f.itertuples()}
    assert key(again) == key(got)


def test_compare_datasets_uses_every_dataset_with_groups(long_table):
    result = _quiet(read_scores(long_table).compare_datasets, random_state=0)
    assert set(result.comparisons) == {"arc", "gsm8k"}
    assert result.comparisons["arc"].n_groups == 12
    means = {d: {s: _by_hand(long_table, d, s)[0].mean() for s in ("m1", "m2", "m3")}
             for d in ("arc", "gsm8k")}
    ranks = pd.DataFrame(means).T.rank(axis=1, ascending=False).mean()
    assert result.average_ranks.sort_index().tolist() == ranks.sort_index().tolist()


def test_one_dataset_compare_needs_a_name(long_table):
    with pytest.raises(ValueError, match="pass dataset=<name>"):
        read_scores(long_table).compare()
    with pytest.raises(ValueError, match="'dataset' parameter 'nope'"):
        read_scores(long_table).compare(dataset="nope")
    with pytest.raises(TypeError, match="'groups' keyword comes from the table"):
        read_scores(long_table).compare(dataset="arc", groups=np.zeros(24))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_every_file_format(tmp_path, long_table, fmt):
    path = tmp_path / f"runs.{fmt}"
    if fmt == "csv":
        long_table.to_csv(path, index=False)
    elif fmt == "tsv":
        long_table.to_csv(path, sep="\t", index=False)
    elif fmt == "parquet":
        pytest.importorskip("pyarrow")
        long_table.to_parquet(path, index=False)
    else:
        long_table.to_json(path, orient="records", lines=True)
    from_file = read_scores(str(path))
    ref = read_scores(long_table)
    for d in ref.datasets:
        got, want = from_file.arrays(d), ref.arrays(d)
        assert got[1].keys() == want[1].keys()
        for s in want[1]:
            np.testing.assert_array_equal(got[1][s], want[1][s])
        np.testing.assert_array_equal(got[2], want[2])
    # an explicit format wins over the extension
    other = tmp_path / "runs.txt"
    long_table.to_csv(other, sep="\t", index=False)
    assert read_scores(other, format="tsv").datasets == ref.datasets


def test_parquet_without_pyarrow_names_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    with pytest.raises(ImportError, match="pyarrow"):
        read_scores(tmp_path / "x.parquet")


def test_column_names_are_configurable(long_table):
    renamed = long_table.rename(columns={"system": "model", "item": "doc_id", "score": "acc",
                                         "dataset": "task"})
    table = read_scores(renamed, system="model", item="doc_id", score="acc", dataset="task")
    ref = read_scores(long_table)
    np.testing.assert_array_equal(table.arrays("arc")[1]["m2"], ref.arrays("arc")[1]["m2"])
    # a group column: prompts (items) within questions (groups)
    df = pd.DataFrame({"system": np.repeat(["a", "b"], 6), "item": list(range(6)) * 2,
                       "question": [0, 0, 1, 1, 2, 2] * 2, "score": np.arange(12) % 2})
    _, _, groups = read_scores(df, group="question").arrays()
    assert groups.tolist() == [0, 0, 1, 1, 2, 2]
    assert read_scores(df.rename(columns={"question": "group"})).arrays()[2] is not None
    assert read_scores(df.rename(columns={"question": "group"}), group=None).arrays()[2] is None


def test_missing_items_error_or_intersection(long_table):
    df = long_table[~((long_table.system == "m2") & (long_table.item == "q03"))]
    with pytest.raises(ValueError, match=r"items are missing.*m2: \['q03'\].*intersect"):
        read_scores(df)
    with pytest.warns(UserWarning, match="dropped"):
        table = read_scores(df, on_missing="intersect")
    assert table.n_dropped == {"arc": 4, "gsm8k": 4}  # q03: 2 samples x 2 other systems
    assert "q03" not in table.items("arc").tolist()
    assert table.items("arc").size == 22
    no_m3 = long_table[~((long_table.system == "m3") & (long_table.dataset == "gsm8k"))]
    with pytest.raises(ValueError, match=r"system\(s\) \['m3'\] have no rows"):
        read_scores(no_m3)
    with pytest.warns(UserWarning):
        assert "m3" not in read_scores(no_m3, on_missing="intersect").arrays("gsm8k")[1]


@pytest.mark.parametrize("change, match", [
    (lambda df: df.drop(columns="score"), "no score column 'score'.*'score' parameter"),
    (lambda df: df.assign(score=df.score.astype(str).where(df.index != 3, "C")),
     "score column 'score' must hold numbers.*'C'"),
    (lambda df: df.assign(score=df.score.astype(float).where(df.index != 5)),
     r"score column 'score' has 1 NaN.*rows \[5\]"),
    (lambda df: df.assign(item=df.item.where(df.index != 2)), "item column 'item' has missing"),
    (lambda df: df.iloc[1:], "different numbers of rows"),
    (lambda df: df[df.system == "m1"], "at least two"),
])
def test_bad_tables(long_table, change, match):
    with pytest.raises(ValueError, match=match):
        read_scores(change(long_table))


def test_bad_arguments(long_table, tmp_path):
    with pytest.raises(ValueError, match="no group column 'question'.*'group' parameter"):
        read_scores(long_table, group="question")
    with pytest.raises(ValueError, match="'on_missing' parameter"):
        read_scores(long_table, on_missing="drop")
    with pytest.raises(ValueError, match="'format' parameter"):
        read_scores(long_table, format="xlsx")
    with pytest.raises(ValueError, match="'format' parameter applies to files"):
        read_scores(long_table, format="csv")
    with pytest.raises(TypeError, match="'data' parameter"):
        read_scores({"system": []})
    with pytest.raises(ValueError, match="extension '.xlsx'"):
        read_scores(tmp_path / "runs.xlsx")
    bad_group = long_table.assign(group=np.arange(len(long_table)) % 2)
    with pytest.raises(ValueError, match="constant within an item"):
        read_scores(bad_group)
    bools = long_table.assign(score=long_table.score.astype(bool))
    np.testing.assert_array_equal(read_scores(bools).arrays("arc")[1]["m1"],
                                  read_scores(long_table).arrays("arc")[1]["m1"])


@pytest.mark.slow
def test_repeated_samples_clustered_by_item_keep_the_level():
    """H0 simulation: read_scores' clusters keep the permutation test's size.

    Each question q has a model-question interaction u_q ~ N(0, 2^2) that favours A
    or B (zero on average: H0 holds over questions); 5 sampled answers per question
    share it, so they are correlated. 400 tables of 30 questions x 5 samples; the
    permutation test (B = 199) on the table's clusters rejects at alpha = 0.05 in
    about 5 % of them; the same test on the 150 samples as independent items in far
    more. Band: 400 Bernoulli(0.05) trials have sd 0.011, so <= 0.05 + 3 sd = 0.083;
    the item-level rate is 0.22 with this seed (the samples of a question share
    u_q), and 0.12 is 5 sd (sd 0.02 at 0.22) below it.
    """
    rng = np.random.default_rng(12345)
    n_q, n_s, reps = 30, 5, 400
    clustered = naive = 0
    for _ in range(reps):
        base, u = rng.normal(0, 1, n_q), rng.normal(0, 2.0, n_q)
        rows = []
        for system, sign in (("A", 1), ("B", -1)):
            p = 1 / (1 + np.exp(-(base + sign * u)))
            for q in range(n_q):
                rows += [(system, q, int(rng.random() < p[q])) for _ in range(n_s)]
        table = read_scores(pd.DataFrame(rows, columns=["system", "item", "score"]))
        _, scores, groups = table.arrays()
        test = sigtest.PairedPermutation(n_resamples=199, random_state=0)
        kw = dict(metric="mean")
        clustered += _quiet(test.test, None, scores["A"], scores["B"], groups=groups,
                            **kw).pvalue <= 0.05
        naive += _quiet(test.test, None, scores["A"], scores["B"], **kw).pvalue <= 0.05
    assert clustered / reps <= 0.083, clustered / reps
    assert naive / reps >= 0.12, naive / reps
