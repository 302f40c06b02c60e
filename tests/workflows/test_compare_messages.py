"""compare's warnings name the quantity at risk, the pair and metric, and the remedy.

The bootstrap tests' own SmallSampleWarning says "use the exact permutation
test"; in compare's default (permutation p-value, BCa interval) that advice
was given although the p-value already came from it. A difference carried by
a handful of items (heavy-tailed per-item losses) gave no hint at all.
"""

import warnings

import numpy as np
from _pairs import discordant_pair

import sigtest
from sigtest.exceptions import SmallSampleWarning


def _messages(func):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func()
    return result, [str(w.message) for w in caught if issubclass(w.category, SmallSampleWarning)]


def test_default_test_says_only_the_interval_is_at_risk():
    y, preds = discordant_pair()
    _, messages = _messages(lambda: sigtest.compare(y, preds, metrics="accuracy",
                                                    random_state=0))
    assert len(messages) == 1
    text = messages[0]
    assert "interval of the difference may under-cover" in text
    assert "not at risk" in text and "exact permutation" in text
    assert "Use the exact permutation test" not in text
    assert "sysA vs sysB, accuracy" in text and "d = 10 discordant items" in text


def test_bootstrap_p_value_says_the_p_value_is_at_risk_and_names_the_remedy():
    y, preds = discordant_pair()
    _, messages = _messages(lambda: sigtest.compare(
        y, preds, metrics="accuracy", test=sigtest.BCaInterval(n_resamples=999),
        random_state=0))
    text = messages[0]
    assert "its p-value can exceed the nominal level" in text
    assert "test=('permutation', 'bca')" in text
    assert "sysA vs sysB, accuracy" in text


def test_macro_f1_names_a_class_the_systems_disagree_about():
    # A and B agree about class 0 everywhere; they differ between classes 1 and 2
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    a, b = y.copy(), y.copy()
    swap = np.flatnonzero(y > 0)[:12]
    b[swap] = 3 - y[swap]
    _, messages = _messages(lambda: sigtest.compare(y, {"A": a, "B": b}, metrics="f1_macro",
                                                    random_state=0))
    assert messages
    assert not any("d = 0 items discordant" in m for m in messages)
    assert any("discordant about class 1" in m or "discordant about class 2" in m
               for m in messages)


def _heavy_tailed_scores(n=400, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.exponential(0.05, n)  # per-item losses
    b = a + rng.normal(0, 0.01, n)
    b[[5, 77]] += (18.0, 12.0)  # two confident mistakes of B
    return {"forest": a, "knn": b}


def test_difference_carried_by_a_few_items_is_warned_and_summarised():
    scores = _heavy_tailed_scores()
    result, messages = _messages(lambda: sigtest.compare(None, scores, metrics="mean",
                                                         random_state=0))
    found = [m for m in messages if "carried by a handful of items" in m]
    assert len(found) == 1
    assert "forest vs knn, mean" in found[0]
    assert "2 of 400 items carry" in found[0] and "% of the difference" in found[0]
    assert "permutation p-value stays valid" in found[0]
    frame = result.to_frame()
    assert frame["n_effective"].iloc[0] < 2.5
    notes = result.system_table().attrs["notes"]
    assert len(notes) == 1 and "forest vs knn, mean" in notes[0]
    assert "note: forest vs knn, mean" in str(result)


def test_light_tailed_difference_gives_no_concentration_note():
    rng = np.random.default_rng(4)
    a = rng.normal(size=300)
    scores = {"A": a, "B": a + rng.normal(0.1, 1.0, 300)}
    result, messages = _messages(lambda: sigtest.compare(None, scores, metrics="mean",
                                                         random_state=0))
    assert not any("handful" in m for m in messages)
    assert "n_effective" not in result.to_frame()
    assert result.system_table().attrs["notes"] == []
