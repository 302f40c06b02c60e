"""Validation and encoding of hard labels (sigtest.metrics._check_labels)."""

import numpy as np
import pandas as pd
import pytest

from sigtest.metrics._check_labels import (
    check_hard_labels,
    check_label_pair,
    check_labels_param,
    check_multilabel_indicator,
    check_sample_weight,
    encode_labels,
)


@pytest.mark.parametrize(
    "y, kind",
    [
        ([0, 2, 1], "num"),
        (np.array([0.0, 2.0, 1.0]), "num"),
        (np.array([True, False]), "num"),
        (["a", "c", "b"], "str"),
        (np.array(["a", "b"], dtype=object), "str"),
        (pd.Series(["x", "y", "x"]), "str"),
        (pd.Series(pd.Categorical(["x", "y", "x"])), "str"),
        (pd.Series([3, 1, 2]), "num"),
        (np.array([1, 2.0], dtype=object), "num"),
    ],
)
def test_check_hard_labels_accepts(y, kind):
    out, got_kind = check_hard_labels(y, "y_true")
    assert got_kind == kind
    assert out.ndim == 1 and out.shape[0] == len(y)
    np.testing.assert_array_equal(out, np.asarray(y, dtype=out.dtype))


def test_argmax_reduction_and_ties_go_to_lowest_column():
    scores = np.array([[0.2, 0.5, 0.3], [0.4, 0.4, 0.2], [0.1, 0.45, 0.45], [1 / 3] * 3])
    out, kind = check_hard_labels(scores, "y_pred")
    assert kind == "num"
    assert out.tolist() == [1, 0, 1, 0]
    # integer one-hot / 0-1 arrays too
    out, _ = check_hard_labels(np.eye(3, dtype=int)[[2, 0, 1]], "y_true")
    assert out.tolist() == [2, 0, 1]


@pytest.mark.parametrize(
    "y, exc, match",
    [
        ([], ValueError, "'y_true'.*empty"),
        (np.zeros((0, 3)), ValueError, "'y_true'.*empty"),
        ([0.0, np.nan], ValueError, "'y_true'.*NaN"),
        ([0.0, np.inf], ValueError, "'y_true'.*NaN"),
        ([[0.5, np.nan], [0.2, 0.8]], ValueError, "'y_true'.*NaN"),
        ([0.5, 1.0], ValueError, "'y_true'.*non-integral"),
        (np.array(["a", 1], dtype=object), TypeError, "'y_true'.*mix"),
        (np.array(["a", None], dtype=object), TypeError, "'y_true'"),
        (np.array([1.0, None], dtype=object), TypeError, "'y_true'"),
        (np.zeros((2, 2, 2)), ValueError, "'y_true'.*3 dimensions"),
        (np.zeros((3, 1)), ValueError, "'y_true'.*1 column"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "'y_true'.*2-D"),
        (np.array([b"a", b"b"]), TypeError, "'y_true'.*bytes"),
        ("abc", TypeError, "'y_true'"),
        (3, TypeError, "'y_true'"),
        (np.array([1 + 1j, 2]), TypeError, "'y_true'"),
    ],
)
def test_check_hard_labels_rejects(y, exc, match):
    with pytest.raises(exc, match=match):
        check_hard_labels(y, "y_true")


def test_check_label_pair_errors_name_arguments():
    with pytest.raises(ValueError, match="'y_true' and 'y_pred'.*lengths"):
        check_label_pair([0, 1, 2], [0, 1])
    with pytest.raises(TypeError, match="'y_true'.*'y_pred'.*mix"):
        check_label_pair(["a", "b"], [0, 1])
    # a 2-D score array stands for numeric labels, so it cannot meet str labels
    with pytest.raises(TypeError, match="mix"):
        check_label_pair(["a", "b"], [[0.1, 0.9], [0.8, 0.2]])
    with pytest.raises(ValueError, match="'y_pred'.*empty"):
        check_label_pair([0], [])


def test_encode_labels_default_union_sorted():
    t, p, labels = encode_labels([3, 1, 7], [1, 1, 5])
    assert labels.tolist() == [1, 3, 5, 7]
    assert t.tolist() == [1, 0, 3]
    assert p.tolist() == [0, 0, 2]


def test_encode_labels_given_order_is_kept():
    t, p, labels = encode_labels(["b", "a"], ["c", "b"], labels=["c", "b", "a"])
    assert labels.tolist() == ["c", "b", "a"]
    assert t.tolist() == [1, 2]
    assert p.tolist() == [0, 1]


def test_encode_labels_unknown():
    with pytest.raises(ValueError, match="'y_pred'.*not in 'labels'.*\\[9\\]"):
        encode_labels([0, 1], [1, 9], labels=[0, 1])
    with pytest.raises(ValueError, match="'y_true'.*not in 'labels'"):
        encode_labels([0, 5], [1, 1], labels=[0, 1])
    t, p, _ = encode_labels([0, 5], [1, 9], labels=[1, 0], unknown="ignore")
    assert t.tolist() == [1, -1]
    assert p.tolist() == [0, -1]


def test_encode_labels_codes_roundtrip_random():
    rng = np.random.default_rng(0)
    for _ in range(20):
        pool = np.array(["ant", "bee", "cat", "dog", "eel"])
        y = pool[rng.integers(0, 5, 30)]
        q = pool[rng.integers(0, 5, 30)]
        labels = rng.permutation(pool)
        t, p, lab = encode_labels(y, q, labels=labels)
        np.testing.assert_array_equal(lab[t], y)
        np.testing.assert_array_equal(lab[p], q)


@pytest.mark.parametrize(
    "labels, kind, exc, match",
    [
        ([], "num", ValueError, "'labels'.*empty"),
        ([[0, 1]], "num", ValueError, "'labels'.*1-D"),
        ([0, 1, 1], "num", ValueError, "'labels'.*duplicates"),
        (["a", "b"], "num", TypeError, "'labels'.*str"),
        ([0, 1], "str", TypeError, "'labels'.*numeric"),
        ([0.0, np.nan], "num", ValueError, "'labels'.*NaN"),
        ("ab", "str", TypeError, "'labels'"),
    ],
)
def test_check_labels_param_rejects(labels, kind, exc, match):
    with pytest.raises(exc, match=match):
        check_labels_param(labels, kind)


@pytest.mark.parametrize(
    "w, exc, match",
    [
        ([1.0, 2.0], ValueError, "'sample_weight'.*2 entries.*3 samples"),
        ([[1.0, 1.0, 1.0]], ValueError, "'sample_weight'.*1-D"),
        ([1.0, -1.0, 1.0], ValueError, "'sample_weight'.*non-negative"),
        ([1.0, np.nan, 1.0], ValueError, "'sample_weight'.*NaN"),
        ([0.0, 0.0, 0.0], ValueError, "'sample_weight'.*positive sum"),
        (["a", "b", "c"], TypeError, "'sample_weight'.*numeric"),
        ("abc", TypeError, "'sample_weight'"),
    ],
)
def test_check_sample_weight_rejects(w, exc, match):
    with pytest.raises(exc, match=match):
        check_sample_weight(w, 3)


def test_check_sample_weight_accepts():
    assert check_sample_weight(None, 3) is None
    out = check_sample_weight([1, 0, 2], 3)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 0.0, 2.0]


@pytest.mark.parametrize(
    "y, exc, match",
    [
        ([0.2, 0.7], ValueError, "'y_pred'.*2-D"),
        (np.zeros((0, 2)), ValueError, "'y_pred'.*empty"),
        (np.zeros((2, 0)), ValueError, "'y_pred'.*empty"),
        ([[0.2, 1.1]], ValueError, "'y_pred'.*\\[0, 1\\]"),
        ([[-0.1, 0.5]], ValueError, "'y_pred'.*\\[0, 1\\]"),
        ([[np.nan, 0.5]], ValueError, "'y_pred'.*NaN"),
        ([["a", "b"]], TypeError, "'y_pred'.*numeric"),
        (np.zeros((2, 2, 2)), ValueError, "'y_pred'.*2-D"),
    ],
)
def test_check_multilabel_indicator_rejects(y, exc, match):
    with pytest.raises(exc, match=match):
        check_multilabel_indicator(y, "y_pred")


def test_check_multilabel_indicator_accepts_bool_and_int():
    out = check_multilabel_indicator(np.array([[True, False]]), "y_true")
    assert out.dtype == np.float64 and out.tolist() == [[1.0, 0.0]]
    assert check_multilabel_indicator([[0, 1], [1, 1]], "y_true").shape == (2, 2)


@pytest.mark.parametrize("kind", ["num", "str"])
def test_check_labels_param_duplicates_equal_np_unique(kind):
    # naive reference: np.unique's count of distinct values (the check sorts instead)
    rng = np.random.default_rng(0)
    seen = set()
    for size in (1, 2, 5, 40):
        for high in (3, 60):
            labels = rng.integers(-high, high, size)
            if kind == "str":
                labels = np.array([f"c{v}" for v in labels])
            has_dup = np.unique(labels).size != labels.size
            seen.add(has_dup)
            if has_dup:
                with pytest.raises(ValueError, match="'labels'.*duplicates"):
                    check_labels_param(labels, kind)
            else:
                np.testing.assert_array_equal(check_labels_param(labels, kind), labels)
    assert seen == {False, True}
    # -0.0 and 0.0 are one label, as for np.unique
    with pytest.raises(ValueError, match="duplicates"):
        check_labels_param([0.0, 1.0, -0.0], "num")
