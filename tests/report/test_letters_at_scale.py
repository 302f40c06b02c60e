"""Letters for hundreds to thousands of systems: valid by construction, no more than Piepho's.

:func:`~sigtest._report.letters.letter_columns` builds an edge clique cover of
the "not significantly different" graph in display order (a few operations on
``k``-bit integers per step) and keeps Piepho's (2004) insert-and-absorb
columns instead when that search finishes within its budget and needs no more
letters. Checked here on random, banded, block and score-gap matrices:

* validity: two systems share a letter exactly when they do not differ, and
  every system has a letter (an indicator matrix ``M``: ``M M^T > 0`` equals
  "not different" off the diagonal);
* letters: never more than the naive insert-and-absorb below (the code of
  earlier versions, on frozensets) wherever that one runs;
* size: 1,000 systems of every pattern give a valid display (the time is
  measured in ``benchmarks/bench_letters.py``, not here).
"""

import numpy as np
import pytest

from sigtest._report import letters as L
from sigtest._report.letters import letter_columns


def _naive_piepho(sig):
    """Insert-and-absorb then sweep, as written before the cover (frozensets)."""
    k = sig.shape[0]

    def absorb(columns):
        return [c for i, c in enumerate(columns)
                if not any(c < o or (c == o and j < i) for j, o in enumerate(columns) if j != i)]

    columns = [frozenset(range(k))]
    for i in range(k):
        for j in range(i + 1, k):
            if sig[i, j]:
                new = []
                for col in columns:
                    new += [col - {i}, col - {j}] if (i in col and j in col) else [col]
                columns = absorb(new)
    columns = [set(c) for c in columns]
    for ci, col in enumerate(columns):
        for t in sorted(col):
            others = [c for cj, c in enumerate(columns) if cj != ci]
            if any(t in c for c in others) and all(
                    any(t in c and u in c for c in others) for u in col if u != t):
                col.discard(t)
    return absorb([frozenset(c) for c in columns if c])


def _random(rng, k):
    upper = np.triu(rng.random((k, k)) < rng.uniform(0.02, 0.9), 1)
    return upper | upper.T


def _banded(rng, k):
    width = int(rng.integers(1, 5))
    i = np.arange(k)
    return np.abs(i[:, None] - i[None, :]) > width


def _block(rng, k):
    groups = np.sort(rng.integers(0, max(1, k // 5), k))
    sig = groups[:, None] != groups[None, :]
    flip = np.triu(rng.random((k, k)) < 0.05, 1)  # a few exceptions to the blocks
    return sig ^ (flip | flip.T)


def _gaps(rng, k):
    scores = np.sort(rng.normal(size=k))[::-1]
    return np.abs(scores[:, None] - scores[None, :]) > rng.uniform(0.1, 1.0)


PATTERNS = {"random": _random, "banded": _banded, "block": _block, "gaps": _gaps}


def _check_valid(sig, columns):
    k = sig.shape[0]
    member = np.zeros((k, len(columns)), dtype=np.float32)  # counts < 2**24: exact
    for n, col in enumerate(columns):
        assert col, "an empty letter"
        member[list(col), n] = 1
    share = member @ member.T > 0
    near = ~sig
    np.fill_diagonal(near, True)
    np.fill_diagonal(share, True)
    assert np.array_equal(share, near), "a pair shares a letter iff it does not differ"
    assert member.sum(axis=1).min() >= 1, "every system has a letter"


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("seed", range(12))
def test_valid_and_no_more_letters_than_insert_absorb(pattern, seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 13))
    sig = PATTERNS[pattern](rng, k)
    np.fill_diagonal(sig, False)
    order = rng.permutation(k)
    columns = letter_columns(sig, order=order)
    _check_valid(sig, columns)
    assert len(columns) <= len(_naive_piepho(sig))


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_the_cover_alone_is_valid(pattern, monkeypatch):
    # insert-and-absorb never finishes within a zero budget: the cover alone answers
    monkeypatch.setattr(L, "_PIEPHO_BUDGET", 0)
    monkeypatch.setattr(L._piepho, "__defaults__", (0,))
    rng = np.random.default_rng(7)
    for _ in range(10):
        k = int(rng.integers(2, 60))
        sig = PATTERNS[pattern](rng, k)
        np.fill_diagonal(sig, False)
        _check_valid(sig, letter_columns(sig))


def test_display_order_gives_the_first_letter_to_the_first_system():
    rng = np.random.default_rng(3)
    sig = _gaps(rng, 40)
    np.fill_diagonal(sig, False)
    order = rng.permutation(40)
    columns = letter_columns(sig, order=order)
    assert order[0] in columns[0]
    # letters appear in display order: column n's first system comes no later than column n+1's
    position = np.empty(40, dtype=int)
    position[order] = np.arange(40)
    firsts = [min(position[list(c)]) for c in columns]
    assert firsts == sorted(firsts)


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_a_thousand_systems(pattern):
    rng = np.random.default_rng(11)
    sig = PATTERNS[pattern](rng, 1000)
    np.fill_diagonal(sig, False)
    _check_valid(sig, letter_columns(sig))


def test_the_naive_twin_is_what_the_display_gave_before():
    # the hand-checked case of tests/report/test_letters.py: 0-1, 1-2, 2-3 not different
    sig = np.ones((4, 4), dtype=bool)
    for i in range(3):
        sig[i, i + 1] = sig[i + 1, i] = False
    np.fill_diagonal(sig, False)
    assert sorted(map(sorted, _naive_piepho(sig))) == [[0, 1], [1, 2], [2, 3]]
    assert sorted(map(sorted, letter_columns(sig))) == [[0, 1], [1, 2], [2, 3]]


def _naive_absorb(columns):
    # every column against every other: drop a subset of another, keep the first of equal ones
    unique = list(dict.fromkeys(c for c in columns if c))
    return [c for c in unique if not any(c & o == c and c != o for o in unique)]


def _numpy_sweep(columns, k):
    # the sweep as written with numpy fancy indexing (the twin of the list version)
    sets = [np.array(L._members(col), dtype=np.intp) for col in columns]
    shared = np.zeros((k, k), dtype=np.int32)
    for members in sets:
        shared[np.ix_(members, members)] += 1
    for n in range(len(sets) - 1, -1, -1):
        block = np.ix_(sets[n], sets[n])
        if shared[block].min() >= 2:
            shared[block] -= 1
            sets[n] = sets[n][:0]
    if sum(len(members) for members in sets) <= L._SWEEP_MEMBERS_MAX:
        for n, members in enumerate(sets):
            sub = shared[np.ix_(members, members)]
            keep = np.ones(len(members), dtype=bool)
            for i in range(len(members)):
                others = keep.copy()
                others[i] = False
                if sub[i, i] >= 2 and others.any() and sub[i, others].min() >= 2:
                    keep[i] = False
                    sub[i, others] -= 1
                    sub[others, i] -= 1
                    sub[i, i] -= 1
            shared[np.ix_(members, members)] = sub
            sets[n] = members[keep]
    out = [sum(1 << int(m) for m in members) for members in sets]
    return _naive_absorb([col for col in out if col])


@pytest.mark.parametrize("seed", range(6))
def test_absorb_and_sweep_equal_their_naive_twins(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(5, 60))
    # columns of 1 to k members, repeats and subsets included
    columns = [int(sum(1 << int(m) for m in rng.choice(k, size=rng.integers(1, k + 1),
                                                          replace=False)))
               for _ in range(int(rng.integers(1, 80)))]
    columns += [c & (c - 1) for c in columns[:10]] + columns[:5]
    assert L._absorb(columns) == _naive_absorb(columns)
    columns = [c for c in columns if c]  # a display's columns are never empty
    assert L._sweep(columns, k) == _numpy_sweep(columns, k)
    # a cover of a random "not different" graph, as the display sweeps it
    near = np.triu(rng.random((k, k)) < 0.5, 1)
    near = near | near.T
    cover = L._greedy_cover(L._bits(near), k)
    assert L._sweep(cover, k) == _numpy_sweep(cover, k)
