"""The helpers shared by hard and soft metrics (sigtest/metrics/_common.py) and
warnings that point at the caller whatever the call path (sigtest.utils)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sigtest.exceptions import ProbabilityRoundingWarning
from sigtest.metrics import (
    entropy_similarity_score,
    f1_score,
    get_metric,
    multilabel_f1_score,
    soft_accuracy_score,
    soft_precision_score,
)
from sigtest.metrics import _hard, _soft_accuracy
from sigtest.metrics._common import check_zero_division, divide, fill_doc, nan_mean
from sigtest.utils import find_stack_level, warn_external
from sigtest.utils._param_validation import InvalidParameterError


# --------------------------------------------------------------------------- divide
@pytest.mark.parametrize("zd, fill", [("warn", 0.0), (0.0, 0.0), (1.0, 1.0), (0, 0.0), (1, 1.0)])
def test_divide_fills_exactly_zero_denominators(zd, fill):
    num = np.array([1.0, 0.0, 3.0, 2.0])
    den = np.array([2.0, 0.0, 1e-300, 0.0])
    out, undefined = divide(num, den, zd)
    assert undefined.tolist() == [False, True, False, True]
    assert out.tolist() == [0.5, fill, 3e300, fill]  # a tiny denominator is divided


def test_divide_nan_and_fast_path():
    out, undefined = divide([1.0, 0.0], [0.0, 0.0], np.nan)
    assert np.isnan(out).all() and undefined.all()
    out, undefined = divide(np.array([[1.0, 2.0]]), np.array([[4.0, 8.0]]), "warn")
    assert out.tolist() == [[0.25, 0.25]] and not undefined.any()


@pytest.mark.parametrize("bad", ["nan", "zero", True, 0.5, None, [0.0]])
def test_zero_division_values(bad):
    with pytest.raises(ValueError, match="'zero_division'"):
        check_zero_division(bad)


@pytest.mark.parametrize("which", ["precision", "recall", "f1"])
@pytest.mark.parametrize("average", ["macro", "micro", None])
@pytest.mark.parametrize("zd", [0.0, 1.0, np.nan])
def test_hard_and_soft_ratios_follow_one_rule(which, average, zd):
    # Soft P/R/F1 on sums [min, P, Q] is hard P/R/F1 on sums [TP, pred, true, n]
    # with min = TP, P = true, Q = pred: the same ratios, the same 0/0 rule.
    rng = np.random.default_rng(0)
    tp = rng.integers(0, 3, size=(50, 4)).astype(float)
    pred = tp + rng.integers(0, 3, size=(50, 4))
    true = tp + rng.integers(0, 3, size=(50, 4))
    pred[:10, 0] = tp[:10, 0] = 0.0  # classes never predicted / never true
    true[5:15, 1] = tp[5:15, 1] = 0.0
    pred[20:25] = true[20:25] = tp[20:25] = 0.0  # nothing at all
    n = np.ones((50, 1))
    hard = _hard._prf_aggregate(
        which, np.concatenate([tp, pred, true, n], axis=1), average=average, zero_division=zd
    )
    soft = _soft_accuracy._soft_prf_aggregate(
        np.concatenate([tp, true, pred], axis=1), kind=which, average=average, zero_division=zd
    )
    np.testing.assert_array_equal(hard, soft)


def test_nan_mean_matches_numpy():
    values = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [0.5, 0.25, 0.0]])
    out = nan_mean(values)
    assert out[0] == 2.0 and np.isnan(out[1]) and out[2] == 0.25
    w = np.array([[1.0, 5.0, 3.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    out = nan_mean(values, w)
    assert out[0] == pytest.approx((1 + 9) / 4) and np.isnan(out[1]) and out[2] == 0.25


# --------------------------------------------------------------------------- fill_doc
def test_fill_doc_indents_and_requires_the_placeholder():
    @fill_doc(block="""
        Parameters
        ----------
        x : int
            A number.
    """)
    def f(x):
        """Do it.

        {block}

        Returns
        -------
        y : int
        """

    assert "\n        Parameters\n        ----------\n        x : int\n            A number.\n" in f.__doc__
    with pytest.raises(ValueError, match="placeholder"):
        fill_doc(other="text")(f)


# --------------------------------------------------------------------------- validation
def test_validate_params_message_names_function_and_parameter():
    with pytest.raises(InvalidParameterError, match="The 'average' parameter of f1_score"):
        f1_score([0, 1], [0, 1], average="samples")
    with pytest.raises(InvalidParameterError, match="The 'eps' parameter of cross_entropy_loss"):
        from sigtest.metrics import cross_entropy_loss

        cross_entropy_loss([[1.0, 0.0]], [[0.5, 0.5]], eps=2.0)
    assert issubclass(InvalidParameterError, ValueError)


# --------------------------------------------------------------------------- warnings
def _one_warning(category, func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func(*args, **kwargs)
    caught = [w for w in caught if issubclass(w.category, category)]
    assert len(caught) == 1, [str(w.message) for w in caught]
    return caught[0]


@pytest.mark.parametrize(
    "call",
    [
        # public functions
        lambda: f1_score([0], [0], labels=[1]),
        lambda: multilabel_f1_score([[0]], [[0]]),
        lambda: soft_precision_score([[1.0, 0.0]], [[1.0, 0.0]]),
        lambda: entropy_similarity_score([[1.0, 0.0]], [[1.0, 0.0]]),
        # the same warnings reached through the registry (one or two frames deeper)
        lambda: get_metric("f1_macro")([0], [0], labels=[0, 1]),
        lambda: get_metric("multilabel_f1_macro")([[0, 1]], [[0, 1]]),
        lambda: get_metric("soft_precision_macro")([[1.0, 0.0]], [[1.0, 0.0]]),
        lambda: get_metric("entropy_similarity")([[1.0, 0.0]], [[1.0, 0.0]]),
    ],
)
def test_undefined_metric_warning_points_at_the_caller(call):
    # hard-coded stack levels pointed into sigtest from the registry path
    w = _one_warning(UndefinedMetricWarning, call)
    assert w.filename == __file__


@pytest.mark.parametrize(
    "call",
    [
        lambda P, Q: soft_accuracy_score(P, Q),
        lambda P, Q: get_metric("soft_accuracy")(P, Q),
        lambda P, Q: get_metric("po_jsd")(P, Q),
    ],
)
def test_rounding_warning_points_at_the_caller(call):
    P = np.array([[0.3333, 0.3333, 0.3333], [1.0, 0.0, 0.0]])
    Q = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    w = _one_warning(ProbabilityRoundingWarning, call, P, Q)
    assert w.filename == __file__


def test_warn_external_from_user_code():
    w = _one_warning(RuntimeWarning, warn_external, "careful", RuntimeWarning)
    assert w.filename == __file__ and str(w.message) == "careful"
    assert find_stack_level() == 1  # this test function is outside sigtest
    with pytest.raises(TypeError, match="'category'"):
        warn_external("x", "not a class")
