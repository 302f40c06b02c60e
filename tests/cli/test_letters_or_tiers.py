"""The command line's letters fall back to the leaderboard's tiers when they are too many."""

import numpy as np

import sigtest
from sigtest import PairedPermutation
from sigtest._cli.commands import _letters_text
from sigtest._report import tiers


def _result():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    preds = {f"s{i}": np.where(rng.random(400) < acc, y, 1 - y)
             for i, acc in enumerate([0.55, 0.7, 0.72, 0.9])}
    return sigtest.compare(y, preds, metrics="accuracy",
                           test=PairedPermutation(n_resamples=999), random_state=0)


def test_letters_while_few_then_tiers_with_a_note(monkeypatch):
    res = _result()
    text = _letters_text(res)
    assert "note" not in text
    want = res.letters()["letters"].to_dict()
    rows = dict(line.split() for line in text.splitlines()[4:])
    assert rows == want
    monkeypatch.setattr(tiers, "MAX_LETTERS", 1)
    text = _letters_text(res)
    assert "note (accuracy): a valid letter display of these 4 systems needs" in text
    rows = dict(line.split() for line in text.splitlines()[4:] if not line.startswith("note"))
    assert rows == res.leaderboard()["tier"].to_dict()
    assert set(rows.values()) <= {"1", "2", "3", "4"}
