"""Compact letter display on hand-built significance matrices."""

import itertools

import numpy as np
import pandas as pd
import pytest

from sigtest import compact_letters
from sigtest._report.letters import compact_letter_display


def _sig(k, pairs):
    s = np.zeros((k, k), dtype=bool)
    for i, j in pairs:
        s[i, j] = s[j, i] = True
    return s


def _check_exact(sig, letters):
    """Two systems share a letter iff they are not significantly different."""
    k = len(letters)
    for i, j in itertools.combinations(range(k), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        assert share == (not sig[i, j]), (i, j, letters)


def test_all_equal():
    sig = _sig(4, [])
    assert compact_letter_display(sig) == ["a"] * 4


def test_all_different():
    sig = ~np.eye(4, dtype=bool)
    assert compact_letter_display(sig) == ["a", "b", "c", "d"]


def test_chain_a_b_c_overlaps():
    # 0 ~ 1 ~ 2 ~ 3 in a chain: only neighbours are not different
    sig = _sig(4, [(0, 2), (0, 3), (1, 3)])
    letters = compact_letter_display(sig)
    assert letters == ["a", "ab", "bc", "c"]
    _check_exact(sig, letters)


def test_bestgen_figure_2():
    # AEN BERT, BERT SPC, MEMNET, ATAE LSTM, TD LSTM (ordered by accuracy):
    # the BERT models beat the other three, MEMNET beats TD LSTM (seed 002).
    sig = _sig(5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 4)])
    assert compact_letter_display(sig) == ["a", "a", "b", "bc", "c"]


def test_order_decides_which_group_is_a():
    sig = _sig(3, [(0, 2)])
    assert compact_letter_display(sig, order=[2, 1, 0]) == ["b", "ab", "a"]


def test_non_interval_pattern_still_exact():
    # 0-1 and 2-3 differ, everything else does not: needs crossing groups
    sig = _sig(4, [(0, 1), (2, 3)])
    letters = compact_letter_display(sig)
    _check_exact(sig, letters)
    # the four maximal "not different" groups {0,2} {0,3} {1,2} {1,3}, lettered
    # in display order: a={0,2}, b={0,3}, c={1,2}, d={1,3}
    assert letters == ["ab", "cd", "ac", "bd"]


@pytest.mark.parametrize("seed", range(30))
def test_random_matrices_exact_and_minimal(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    upper = np.triu(rng.random((k, k)) < rng.uniform(0.1, 0.9), 1)
    sig = upper | upper.T
    letters = compact_letter_display(sig)
    _check_exact(sig, letters)
    # every system has a letter and no letter column is contained in another
    assert all(letters)
    cols = [frozenset(i for i in range(k) if c in letters[i]) for c in set("".join(letters))]
    assert not any(a < b for a in cols for b in cols)


def test_many_groups_use_uppercase_then_numbered():
    k = 60
    letters = compact_letter_display(~np.eye(k, dtype=bool))
    assert letters[:2] == ["a", "b"] and letters[26] == "A" and letters[52] == "a1"
    assert len(set(letters)) == k


def test_bad_input():
    with pytest.raises(ValueError, match="square"):
        compact_letter_display(np.zeros((2, 3), dtype=bool))
    with pytest.raises(ValueError, match="symmetric"):
        compact_letter_display(np.array([[False, True], [False, False]]))
    with pytest.raises(ValueError, match="permutation"):
        compact_letter_display(np.zeros((2, 2), dtype=bool), order=[0, 0])


# --------------------------------------------- compact_letters (issue 24)
def _pmatrix(k, seed, names=None):
    rng = np.random.default_rng(seed)
    p = rng.choice([0.001, 0.01, 0.04, 0.05, 0.2, 0.6, np.nan], size=(k, k),
                   p=[.2, .15, .1, .1, .2, .2, .05])
    p = np.triu(p, 1)
    p = p + p.T
    np.fill_diagonal(p, 1.0)
    names = names or [f"sys{i}" for i in range(k)]
    return pd.DataFrame(p, index=names, columns=names)


@pytest.mark.parametrize("seed", range(30))
def test_compact_letters_share_exactly_when_p_exceeds_alpha(seed):
    k = 2 + seed % 7
    p = _pmatrix(k, seed)
    for alpha in (0.01, 0.05):
        table = compact_letters(p, alpha=alpha)
        assert list(table.columns) == ["score", "letters"] and table["score"].isna().all()
        letters = table["letters"]
        assert list(letters.index) == list(p.index)
        for a, b in itertools.combinations(p.index, 2):
            share = bool(set(letters[a]) & set(letters[b]))
            pab = p.loc[a, b]
            # p == alpha is significant (p <= alpha), NaN (no test) is not
            assert share == (np.isnan(pab) or pab > alpha), (a, b, pab, letters.to_dict())


def test_compact_letters_best_first_and_independent_of_the_matrix_order():
    p = _pmatrix(6, 3)
    scores = pd.Series([0.7, 0.9, 0.8, 0.8, 0.6, 0.75], index=p.index)
    letters = compact_letters(p, scores=scores)
    assert list(letters.index) == ["sys1", "sys2", "sys3", "sys5", "sys0", "sys4"]  # ties by name
    assert letters["letters"].iloc[0].startswith("a")
    assert letters["score"].tolist() == scores[letters.index].tolist()
    perm = ["sys4", "sys2", "sys0", "sys5", "sys3", "sys1"]
    again = compact_letters(p.loc[perm, perm[::-1]], scores=scores[perm].to_dict())
    pd.testing.assert_frame_equal(letters, again)
    # an array of scores follows the matrix order; a loss is passed negated
    pd.testing.assert_frame_equal(compact_letters(p, scores=scores.to_numpy()), letters)
    assert compact_letters(p, scores=-scores).index[0] == "sys4"


def test_compact_letters_of_a_matrix_array():
    p = np.array([[1, .3, .01], [.3, 1, .2], [.01, .2, 1]])
    assert compact_letters(p)["letters"].tolist() == ["a", "ab", "b"]
    assert list(compact_letters(p).index) == [0, 1, 2]


def test_compact_letters_equal_comparison_result_letters():
    from sigtest import compare

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    accs = {"a": .7, "b": .72, "c": .8, "d": .82, "e": .9}
    preds = {n: np.where(rng.uniform(size=300) < acc, y, 1 - y) for n, acc in accs.items()}
    res = compare(y, preds, metrics="accuracy", test="mcnemar")
    frame = res.to_frame()
    p = pd.DataFrame(1.0, index=list(accs), columns=list(accs))
    for row in frame.itertuples():
        p.loc[row.system_a, row.system_b] = p.loc[row.system_b, row.system_a] = row.pvalue_adj
    scores = dict(zip(frame.system_a, frame.score_a)) | dict(zip(frame.system_b, frame.score_b))
    expected = res.letters()
    got = compact_letters(p, scores=scores)
    # one shape: the same frame (index "system", columns score and letters)
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.parametrize("values, what", [([["1", "0.01"], ["0.01", "1"]], "strings"),
                                          ([[True, False], [False, True]], "booleans"),
                                          ([[1, 0.01j], [0.01j, 1]], "complex")])
def test_compact_letters_refuses_pvalues_that_are_not_real_numbers(values, what):
    # before: strings and booleans were read as numbers, complex ones with a warning
    with pytest.raises(TypeError, match=f"'pvalues' parameter must hold a matrix of p-values.*"
                                        f"{what}"):
        compact_letters(values)
    frame = pd.DataFrame(values, index=["a", "b"], columns=["a", "b"])
    with pytest.raises(TypeError, match="'pvalues'"):
        compact_letters(frame)


def test_compact_letters_bad_input():
    p = _pmatrix(3, 0)
    with pytest.raises(ValueError, match="'pvalues'.*square"):
        compact_letters(np.zeros((2, 3)))
    asym = p.copy()
    asym.iloc[0, 1] = 0.5 if asym.iloc[1, 0] != 0.5 else 0.6
    with pytest.raises(ValueError, match="'pvalues'.*symmetric.*'sys0', 'sys1'"):
        compact_letters(asym)
    bad = p.copy()
    bad.iloc[0, 2] = bad.iloc[2, 0] = 1.5
    with pytest.raises(ValueError, match="'pvalues'.*\\[0, 1\\]"):
        compact_letters(bad)
    with pytest.raises(ValueError, match="'pvalues'.*index and its columns"):
        compact_letters(p.set_axis(["x", "y", "z"], axis=1))
    with pytest.raises(TypeError, match="'pvalues'.*strings"):
        compact_letters([["a", "b"], ["b", "a"]])
    with pytest.raises(ValueError, match="'scores'.*one score per system"):
        compact_letters(p, scores={"sys0": 1.0, "sys1": 2.0})
    with pytest.raises(ValueError, match="'scores'.*3 scores"):
        compact_letters(p, scores=[1.0, 2.0])
    with pytest.raises(ValueError, match="'scores'.*finite"):
        compact_letters(p, scores=[1.0, np.nan, 2.0])
    for alpha in (0, 1, 1.5, "0.05", True):
        with pytest.raises(ValueError, match="'alpha'"):
            compact_letters(p, alpha=alpha)
