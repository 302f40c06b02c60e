"""Compact letter display on hand-built significance matrices."""

import itertools

import numpy as np
import pytest

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
