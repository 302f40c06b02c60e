"""The result's stored predictions (packed narrow when exact) and the memory hand-back."""

import numpy as np
import pandas as pd
import pytest

import sigtest
from sigtest._engine.release import release_free_memory
from sigtest._workflows.compare import api, packed
from sigtest._workflows.compare.checks import check_pairs, count_pairs
from sigtest._workflows.compare.packed import Packed, pack, unpack


def _bits(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


@pytest.mark.parametrize("values, narrow", [
    (np.array([0.0, 1.0, 1.0, 0.0]), np.uint8),
    (np.array([0, 3, 9, 255], dtype=np.int64), np.uint8),
    (np.array([-1, 1, 1, -1], dtype=np.int64), np.int8),
    (np.array([[0.0, 2.0], [1.0, 0.0]]), np.uint8),           # 2-D
    (np.array([0, 1, 2], dtype=np.int32), np.uint8),
    (np.array([1.0, 2.0, 3.0])[::2], np.uint8),                # not contiguous
])
def test_exact_values_are_stored_narrow_and_read_back_bit_for_bit(values, narrow):
    stored = pack(values)
    assert isinstance(stored, Packed) and stored.values.dtype == narrow
    assert not stored.values.flags.writeable
    back = unpack(stored)
    assert back.dtype == values.dtype and back.shape == values.shape
    assert np.array_equal(_bits(back), _bits(values)) and not back.flags.writeable


@pytest.mark.parametrize("values", [
    np.array([0.0, -0.0, 1.0]),          # -0.0 == 0.0, but its bits would not come back
    np.array([0.0, 0.5, 1.0]),           # a fraction
    np.array([0.0, np.nan, 1.0]),        # NaN: no range holds it
    np.array([0, 256], dtype=np.int64),  # out of uint8, and negative-free
    np.array([-129, 0], dtype=np.int64),
    np.array([True, False]),             # one byte already
    np.array(["a", "b"]),
    np.zeros(0),
])
def test_other_values_keep_a_read_only_copy(values):
    stored = pack(values)
    assert isinstance(stored, np.ndarray) and stored is not values
    assert stored.dtype == values.dtype and not stored.flags.writeable
    assert np.array_equal(_bits(stored), _bits(values))
    values_copy = values.copy()
    assert pack(stored) is stored  # a stored copy is not copied again
    assert np.array_equal(_bits(values), _bits(values_copy))


def test_the_result_reads_back_what_was_given_and_the_caller_cannot_change_it():
    rng = np.random.default_rng(0)
    scores = {f"s{j}": (rng.random(300) < p).astype(np.float64)
              for j, p in enumerate((0.5, 0.6, 0.7))}
    given = {name: a.copy() for name, a in scores.items()}
    res = sigtest.compare(None, scores, metrics="mean", random_state=0)
    for a in scores.values():  # the caller reuses its buffers
        a[:] = 1.0
    for name, a in res.predictions.items():
        assert a.dtype == np.float64 and not a.flags.writeable
        assert np.array_equal(_bits(a), _bits(given[name]))
    again = res.recompare()
    pd.testing.assert_frame_equal(res.to_frame(), again.to_frame(), check_exact=True)


def test_packing_changes_no_result(monkeypatch):
    # the same comparison with every copy kept at full width (the path before packing)
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 400)
    preds = {f"m{j}": np.where(rng.random(400) < q, y, rng.integers(0, 3, 400))
             for j, q in enumerate((0.6, 0.7, 0.8, 0.75))}
    kwargs = dict(metrics=("accuracy", "f1_macro"), random_state=0)
    res = sigtest.compare(y, preds, **kwargs)
    assert all(isinstance(v, Packed) for v in res._predictions.values())
    monkeypatch.setattr(packed, "_narrow", lambda arr: None)
    wide = sigtest.compare(y, preds, **kwargs)
    assert not any(isinstance(v, Packed) for v in wide._predictions.values())
    pd.testing.assert_frame_equal(res.to_frame(), wide.to_frame(), check_exact=True)
    pd.testing.assert_frame_equal(res.ranks(), wide.ranks(), check_exact=True)
    pd.testing.assert_frame_equal(res.scores(), wide.scores(), check_exact=True)
    assert res.report("markdown") == wide.report("markdown")


@pytest.mark.parametrize("pairs, baseline", [("all", None), ("adjacent", None),
                                             ("baseline", "b"), ("baseline", ["a", "c"])])
def test_count_pairs_counts_what_check_pairs_lists(pairs, baseline):
    names = ["a", "b", "c", "d", "e"]
    assert count_pairs(names, pairs, baseline) == len(check_pairs(names, pairs, baseline))


@pytest.mark.parametrize("pairs, baseline", [("all", "a"), ("baseline", None),
                                             ("baseline", "zz")])
def test_count_pairs_checks_as_check_pairs(pairs, baseline):
    names = ["a", "b", "c"]
    with pytest.raises(ValueError) as want:
        check_pairs(names, pairs, baseline)
    with pytest.raises(ValueError) as got:
        count_pairs(names, pairs, baseline)
    assert str(got.value) == str(want.value)


def test_handing_memory_back_changes_no_result(monkeypatch):
    assert isinstance(release_free_memory(), bool)
    rng = np.random.default_rng(2)
    scores = {f"s{j}": (rng.random(200) < p).astype(float)
              for j, p in enumerate(np.linspace(0.5, 0.7, 6))}
    calls = []
    monkeypatch.setattr(api, "release_free_memory", lambda: calls.append(1))
    monkeypatch.setattr(api, "RELEASE_MIN_PAIRS", 10**9)
    kept = sigtest.compare(None, scores, metrics="mean", random_state=0)
    assert not calls
    monkeypatch.setattr(api, "RELEASE_MIN_PAIRS", 1)
    released = sigtest.compare(None, scores, metrics="mean", random_state=0)
    assert len(calls) == 4  # between the five phases
    pd.testing.assert_frame_equal(kept.to_frame(), released.to_frame(), check_exact=True)
