"""Validation of soft (distribution / multilabel) arrays."""

import numpy as np
import pytest
import scipy.sparse as sp

from sigtest.metrics import (
    cross_entropy_loss,
    entropy_correlation_score,
    po_jsd_score,
    soft_accuracy_score,
    soft_f1_score,
)
from sigtest.metrics._check_proba import ROW_SUM_ATOL, check_proba, check_proba_pair

P = np.array([[0.2, 0.8], [0.5, 0.5], [1.0, 0.0]])


def test_returns_contiguous_float64_copy_of_valid_input():
    out = check_proba(P.tolist(), "y_true")
    assert out.dtype == np.float64 and out.flags.c_contiguous
    np.testing.assert_array_equal(out, P)
    # integers (one-hot) and booleans are accepted
    np.testing.assert_array_equal(check_proba([[0, 1], [1, 0]]), [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(check_proba(np.eye(2, dtype=bool)), np.eye(2))
    # Fortran order and float32 are normalised
    out = check_proba(np.asfortranarray(P.astype(np.float32)))
    assert out.dtype == np.float64 and out.flags.c_contiguous
    # sparse input is densified
    np.testing.assert_array_equal(check_proba(sp.csr_matrix(P)), P)


def test_row_sum_tolerance_is_absolute_1e6():
    assert ROW_SUM_ATOL == 1e-6
    ok = np.array([[0.5, 0.5 - 0.9e-6]])
    check_proba(ok)
    bad = np.array([[0.5, 0.5 - 1.1e-6]])
    with pytest.raises(ValueError, match=r"'y_proba'.*sum to 1.*1e-06.*Row 0"):
        check_proba(bad)
    with pytest.raises(ValueError, match="Row 1"):
        check_proba([[0.5, 0.5], [0.3, 0.3]], "y_true")
    # multilabel rows need not sum to 1
    np.testing.assert_array_equal(check_proba([[0.3, 0.3]], multilabel=True), [[0.3, 0.3]])


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        ([[np.nan, 1.0]], ValueError, "NaN or infinity"),
        ([[np.inf, 0.0]], ValueError, "NaN or infinity"),
        ([[-0.1, 1.1]], ValueError, "negative mass"),
        ([[-1e-300, 1.0]], ValueError, "negative mass"),
        ([[1.5, 0.2]], ValueError, r"\[0, 1\]"),
        (np.empty((0, 3)), ValueError, "empty"),
        (np.empty((3, 0)), ValueError, "no columns"),
        ([0.2, 0.8], ValueError, "2-D.*1-D"),
        (np.full((2, 2, 2), 0.5), ValueError, "2-D"),
        (0.5, TypeError, "scalar"),
        ("abc", TypeError, "str"),
        ([["a", "b"]], TypeError, "numeric"),
        ([[0.5 + 0j, 0.5]], TypeError, "numeric"),
        ([[0.5, None]], TypeError, "numeric"),
    ],
)
@pytest.mark.parametrize("multilabel", [False, True])
def test_bad_input_names_argument(bad, exc, match, multilabel):
    with pytest.raises(exc, match=match) as info:
        check_proba(bad, "y_true", multilabel=multilabel)
    assert "'y_true'" in str(info.value)


def test_multilabel_rejects_values_above_one():
    with pytest.raises(ValueError, match=r"'y_proba'.*\[0, 1\]"):
        check_proba([[0.2, 1.0000001]], multilabel=True)


def test_pair_shape_mismatch():
    with pytest.raises(ValueError, match=r"'y_true' and 'y_proba'.*3 vs 2 samples"):
        check_proba_pair(P, P[:2])
    with pytest.raises(ValueError, match=r"'y_true' and 'y_pred'.*2 vs 3 classes"):
        check_proba_pair(P, np.full((3, 3), 1 / 3), pred_name="y_pred")


@pytest.mark.parametrize(
    "func", [soft_accuracy_score, soft_f1_score, po_jsd_score, entropy_correlation_score, cross_entropy_loss]
)
def test_public_functions_validate(func):
    Q = P[::-1].copy()
    with pytest.raises(ValueError, match="'y_proba'"):
        func(P, Q[:, 0])  # 1-D where 2-D is required
    with pytest.raises(ValueError, match="'y_true'"):
        func(np.array([0, 1, 1]), Q)  # hard labels are not distributions
    with pytest.raises(ValueError, match="'y_true' and 'y_proba'"):
        func(P, Q[:2])
    with pytest.raises(ValueError, match="'y_proba'.*sum to 1"):
        func(P, Q * 0.9)
    with pytest.raises(ValueError, match="'sample_weight'"):
        func(P, Q, sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="'sample_weight'"):
        func(P, Q, sample_weight=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="'sample_weight'"):
        func(P, Q, sample_weight=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="'sample_weight'"):
        func(P, Q, sample_weight=[1.0, np.nan, 1.0])


def test_registered_statistics_name_y_pred():
    from sigtest.metrics import get_metric

    with pytest.raises(ValueError, match="'y_pred'"):
        get_metric("po_jsd").statistics(P, P[:, 0])
    with pytest.raises(ValueError, match="'y_true'"):
        get_metric("multilabel_po_jsd").statistics(P + 0.5, P)


def test_invalid_parameters():
    with pytest.raises(ValueError, match="average"):
        soft_f1_score(P, P, average="weighted")
    with pytest.raises(ValueError, match="zero_division"):
        soft_f1_score(P, P, zero_division=0.5)
    with pytest.raises(ValueError, match="multilabel"):
        po_jsd_score(P, P, multilabel="yes")
    with pytest.raises(ValueError, match="eps"):
        cross_entropy_loss(P, P, eps=1.0)
    with pytest.raises(ValueError, match="at least 2 classes"):
        entropy_correlation_score(np.ones((3, 1)), np.ones((3, 1)))
