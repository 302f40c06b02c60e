"""Tiers of a ranked list and the choice between letters and tiers.

:func:`~sigtest._report.tiers.step_down_tiers` numbers runs of consecutive
systems, a new tier starting at the first system significantly different
from the current tier's leader; :func:`~sigtest._report.tiers.group_labels`
shows the letters while at most ``MAX_LETTERS`` suffice and the tiers
otherwise, saying so. Checked against a naive twin and on random, banded and
block matrices (the patterns of ``tests/report/test_letters_at_scale.py``).
"""

import numpy as np
import pytest

from sigtest._report import tiers as T
from sigtest._report.letters import letter_columns


def _pattern(name, k, rng):
    if name == "random":
        upper = np.triu(rng.random((k, k)) < 0.5, 1)
    elif name == "banded":
        d = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
        upper = np.triu(d > 2, 1)
    else:  # blocks of 10 equal systems, 5 % of the pairs flipped
        block = np.arange(k) // 10
        upper = np.triu((block[:, None] != block[None, :]) ^ (rng.random((k, k)) < 0.05), 1)
    return upper | upper.T


def _naive_tiers(sig, order):
    """The definition, written plainly: leaders are the systems that start a tier."""
    tiers, leaders = {}, []
    for s in order:
        if not leaders or sig[leaders[-1], s]:
            leaders.append(s)
        tiers[s] = len(leaders)
    return [tiers[s] for s in range(len(order))]


@pytest.mark.parametrize("name", ["random", "banded", "block"])
@pytest.mark.parametrize("k", [2, 7, 60])
def test_tiers_equal_the_naive_twin_and_follow_the_order(name, k):
    rng = np.random.default_rng(k)
    sig = _pattern(name, k, rng)
    order = rng.permutation(k)
    tiers = T.step_down_tiers(sig, order)
    assert tiers.tolist() == _naive_tiers(sig, order)
    along = tiers[order]
    assert along[0] == 1 and np.all(np.diff(along) >= 0) and np.all(np.diff(along) <= 1)
    # each tier's members do not differ from its leader; each leader differs from
    # the previous leader
    leaders = [order[np.argmax(along == t)] for t in range(1, along.max() + 1)]
    for t, leader in enumerate(leaders, start=1):
        members = np.flatnonzero(tiers == t)
        assert not sig[leader, members].any()
        if t > 1:
            assert sig[leaders[t - 2], leader]


def test_no_significant_pair_is_one_tier_and_all_significant_is_one_tier_each():
    k = 5
    assert T.step_down_tiers(np.zeros((k, k), bool), range(k)).tolist() == [1] * k
    sig = ~np.eye(k, dtype=bool)
    assert T.step_down_tiers(sig, [4, 3, 2, 1, 0]).tolist() == [5, 4, 3, 2, 1]


def test_bad_order_names_the_argument():
    with pytest.raises(ValueError, match="'order'"):
        T.step_down_tiers(np.zeros((3, 3), bool), [0, 1, 1])


@pytest.mark.parametrize("name", ["random", "banded", "block"])
def test_letters_while_few_enough_else_tiers_with_a_note(name):
    rng = np.random.default_rng(3)
    k = 80
    sig = _pattern(name, k, rng)
    order = np.arange(k)
    n_letters = len(letter_columns(sig, order))
    shown = T.group_labels(sig, order)
    assert shown.n_letters == n_letters
    if n_letters <= T.MAX_LETTERS:
        assert shown.kind == "letters" and shown.note == ""
        for i in range(k):  # valid: a shared letter exactly when not different
            for j in range(i + 1, k):
                assert bool(set(shown.labels[i]) & set(shown.labels[j])) == (not sig[i, j])
    else:
        assert shown.kind == "tiers"
        assert f"needs {n_letters} letters" in shown.note
        assert shown.labels == [str(t) for t in T.step_down_tiers(sig, order)]


def test_banded_leaderboard_of_200_needs_tiers():
    d = np.abs(np.subtract.outer(np.arange(200), np.arange(200)))
    shown = T.group_labels(d > 2, np.arange(200))
    assert shown.kind == "tiers" and shown.n_letters > T.MAX_LETTERS
    assert shown.labels[:4] == ["1", "1", "1", "2"]


def test_the_letter_limit_is_read_when_called(monkeypatch):
    sig = np.zeros((3, 3), dtype=bool)
    sig[0, 2] = sig[2, 0] = True
    assert T.group_labels(sig, [0, 1, 2]).kind == "letters"
    monkeypatch.setattr(T, "MAX_LETTERS", 1)
    assert T.group_labels(sig, [0, 1, 2]).labels == ["1", "1", "2"]


def test_the_methods_paragraph_names_tiers_when_the_tables_show_them(monkeypatch):
    import sigtest
    from sigtest._report.sections import methods_text

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 600)
    preds = {name: np.where(rng.random(600) < acc, y, 1 - y)
             for name, acc in [("weak", 0.55), ("good", 0.75), ("best", 0.95)]}
    res = sigtest.compare(y, preds, metrics="accuracy", random_state=0)
    letters = methods_text(res)
    assert "Systems sharing a letter" in letters and "tiers are shown" not in letters
    # three letters needed, one allowed: the report's tables show tiers, and so
    # must its methods paragraph
    monkeypatch.setattr(T, "MAX_LETTERS", 1)
    tiers = methods_text(res)
    assert "tiers are shown instead" in tiers and "sharing a letter" not in tiers
