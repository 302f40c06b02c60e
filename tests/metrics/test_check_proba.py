"""Validation of soft (distribution / multilabel) arrays."""

import warnings

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
from sigtest.metrics._check_proba import (
    ROW_SUM_ATOL,
    ROW_SUM_RENORM_ATOL,
    ProbabilityRoundingWarning,
    check_proba,
    check_proba_pair,
    normalize_rows,
)

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


def test_row_sums_within_1e6_are_used_as_given():
    assert ROW_SUM_ATOL == 1e-6
    ok = np.array([[0.5, 0.5 - 0.9e-6]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = check_proba(ok)
    np.testing.assert_array_equal(out, ok)  # not renormalised: bit-exact
    # multilabel rows need not sum to 1
    np.testing.assert_array_equal(check_proba([[0.3, 0.3]], multilabel=True), [[0.3, 0.3]])


def test_rows_rounded_when_written_are_renormalised_with_a_warning():
    """Issue 8: rows printed with a few decimals (sum 0.999999) were rejected."""
    # 4 decimals over 3 classes: sums .9999 and 1.0001 are rounding, not errors
    rows = np.array([[0.3333, 0.3333, 0.3333], [0.2, 0.3, 0.5], [0.5001, 0.25, 0.25],
                     [0.333333, 0.333333, 0.333333]])
    with pytest.warns(ProbabilityRoundingWarning,
                      match=r"'y_true'.*3 row\(s\).*largest deviation 0\.0001\b"):
        out = check_proba(rows, "y_true")
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(out[1], rows[1])  # an exact row is untouched
    np.testing.assert_allclose(out[0], [1 / 3] * 3, rtol=1e-15)
    np.testing.assert_allclose(out[2], rows[2] / 1.0001, rtol=1e-15)
    # the worst case of the documented rule: 20 classes printed with 4 decimals
    worst = np.full((1, 20), 0.04995)  # each rounded down by 0.00005: sum .999
    with pytest.warns(ProbabilityRoundingWarning):
        check_proba(worst)
    assert ROW_SUM_RENORM_ATOL == 1e-3


def test_rows_off_by_more_than_rounding_are_an_error_with_a_plain_sum():
    bad = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.47], [0.3, 0.3]])
    with pytest.raises(ValueError) as info:
        check_proba(bad, "y_proba")
    msg = str(info.value)
    assert "'y_proba'" in msg and "row 3 (index 2) sums to 0.97" in msg
    assert "np.float64" not in msg and "2 rows are off" in msg
    with pytest.raises(ValueError, match=r"row 1 \(index 0\) sums to 1.0011"):
        check_proba([[0.5011, 0.5]])


def test_normalize_rows_names_lines_for_files():
    arr = np.array([[0.5, 0.5], [0.6, 0.6]])
    with pytest.raises(ValueError, match=r"^The file 'p.csv' must .*line 3 sums to 1.2\."):
        normalize_rows(arr, "The file 'p.csv'", row_name=lambda i: f"line {i + 2}")
    ok = np.array([[0.5, 0.5]])
    assert normalize_rows(ok, "x") is ok  # no copy when nothing changes


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
    # a rounded prediction is renormalised: same score as the exact one
    with pytest.warns(ProbabilityRoundingWarning, match="'y_proba'"):
        rounded = func(P, np.round(np.array([[0.1234, 0.8765], [0.5, 0.5], [0.0, 1.0]]), 4))
    exact = func(P, np.array([[0.1234, 0.8765], [0.5, 0.5], [0.0, 1.0]]) / [[0.9999], [1], [1]])
    assert rounded == pytest.approx(exact, rel=1e-12)
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


def test_significance_tests_renormalise_rounded_rows_like_the_metrics():
    """Arrays given to a test go through the same rule (one helper, not twins)."""
    from sigtest import PairedPermutation

    rng = np.random.default_rng(0)
    gold = rng.dirichlet(np.ones(3), 60)
    a, b = rng.dirichlet(np.ones(3), 60), rng.dirichlet(np.ones(3), 60)
    test = PairedPermutation(n_resamples=199, random_state=0)
    exact = test.test(gold, a, b, metric="soft_accuracy")
    a4 = np.round(a, 4)  # as written to a file with 4 decimals
    assert np.abs(a4.sum(axis=1) - 1).max() > ROW_SUM_ATOL  # some rows need the fix
    with pytest.warns(ProbabilityRoundingWarning):
        rounded = test.test(gold, a4, b, metric="soft_accuracy")
    assert rounded.score_a == pytest.approx(exact.score_a, abs=1e-4)
    assert rounded.pvalue == pytest.approx(exact.pvalue, abs=0.02)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_rows_rounded_to_three_decimals_are_accepted_for_any_k(k):
    """Issue 20: ``predict_proba(X).round(3)`` was refused ("sums to 0.999"). A naive
    twin of the rule: each of K entries printed with 3 decimals is off by at most
    0.0005, so every such row is rounding and is divided by its sum."""
    rng = np.random.default_rng(k)
    exact = rng.dirichlet(np.full(k, 0.7), 2000)
    rounded = exact.round(3)
    dev = np.abs(rounded.sum(axis=1) - 1.0)
    assert dev.max() > 1e-3 or k == 2  # the old fixed tolerance refused these rows
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = check_proba(rounded)
    assert any(issubclass(w.category, ProbabilityRoundingWarning) for w in rec) == bool(
        np.any(dev > ROW_SUM_ATOL))
    np.testing.assert_allclose(out, rounded / rounded.sum(axis=1, keepdims=True),
                               rtol=1e-15, atol=0)


def test_three_decimal_edge_rows_and_what_stays_refused():
    # the floating-point edge of the report: 0.499 + 0.5 is 0.9990000000000001 below 1
    with pytest.warns(ProbabilityRoundingWarning):
        out = check_proba([[0.499, 0.5]])
    np.testing.assert_allclose(out.sum(), 1.0, rtol=0, atol=1e-15)
    # 3 decimals over 5 classes: a deficit up to 5 x .0005 = .0025 is rounding
    with pytest.warns(ProbabilityRoundingWarning):
        check_proba([[0.2, 0.2, 0.2, 0.2, 0.198]])
    # beyond the rounding of 3 decimals over 5 classes: refused, sum printed in full
    with pytest.raises(ValueError, match=r"row 1 \(index 0\) sums to 0\.997"):
        check_proba([[0.2, 0.2, 0.2, 0.2, 0.197]])
    # an excess needs nonzero entries rounded up: two nonzero entries of 3 decimals
    # add .001 at most (5 x .0005 would allow .0025), so 1.002 is refused
    with pytest.raises(ValueError, match=r"sums to 1\.002"):
        check_proba([[0.0, 0.0, 0.0, 0.501, 0.501]])
    # 4 decimals: 0.9989 is beyond both 2 x .00005 and the floor .001; every digit shown
    with pytest.raises(ValueError) as info:
        check_proba([[0.4989, 0.5]])
    assert repr(0.4989 + 0.5) in str(info.value)
    # a row with no mass cannot be renormalised, whatever the number of classes
    with pytest.raises(ValueError, match="sums to 0.0"):
        check_proba(np.zeros((1, 40)))
