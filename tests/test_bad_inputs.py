"""Bad inputs are clean errors naming the argument (issue 15, section 3)."""

import matplotlib
import numpy as np
import pytest

import sigtest
from sigtest import BayesianBootstrap, BCaInterval, BergKirkpatrickBootstrap, PairedPermutation

matplotlib.use("Agg")

Y, A, B = [0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1]


@pytest.mark.parametrize("test", [PairedPermutation, BergKirkpatrickBootstrap, BCaInterval])
def test_bool_n_jobs_is_refused(test):
    with pytest.raises(ValueError, match="'n_jobs'.*bool"):
        test(n_jobs=True).test(Y, A, B)


@pytest.mark.parametrize("test", [BergKirkpatrickBootstrap, BCaInterval, PairedPermutation,
                                  BayesianBootstrap])
@pytest.mark.parametrize("n_resamples", [10**10, 2**62])
def test_huge_n_resamples_names_the_argument(test, n_resamples):
    # before: MemoryError (10**10) or numpy's "Maximum allowed dimension exceeded"
    kwargs = {"exact": False} if test is PairedPermutation else {}
    with pytest.raises(ValueError, match="'n_resamples' parameter is too large"):
        test(n_resamples=n_resamples, random_state=0, **kwargs).test(Y * 10, A * 10, B * 10)


def test_huge_n_resamples_in_score():
    with pytest.raises(ValueError, match="'n_resamples' parameter is too large"):
        sigtest.score(Y * 10, A * 10, n_resamples=10**10, random_state=0)


def test_plot_comparison_of_one_test_result_is_a_type_error():
    import sigtest.plotting

    res = PairedPermutation(random_state=0).test(Y, A, B)
    with pytest.raises(TypeError, match="'result' parameter of plot_comparison"):
        sigtest.plotting.plot_comparison(res)


def test_ragged_soft_predictions_in_compare_name_the_system():
    P = np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1], [0.3, 0.7]])
    ragged = [[0.5, 0.5], [0.2], [0.9, 0.1], [0.3, 0.7]]
    with pytest.raises(ValueError, match="system 'a'.*different lengths"):
        sigtest.compare(P, {"a": ragged, "b": P}, metrics="soft_accuracy")


@pytest.mark.parametrize("n_jobs", [True, False, 0])
def test_compare_refuses_bool_or_zero_n_jobs(n_jobs):
    y = np.array([0, 1] * 20)
    with pytest.raises(ValueError, match="'n_jobs'"):
        sigtest.compare(y, {"a": y, "b": 1 - y}, metrics="accuracy", n_jobs=n_jobs)


@pytest.mark.parametrize("which", ["y_pred_a", "y_pred_b"])
@pytest.mark.parametrize("metric", ["soft_accuracy", "jsd", "entropy_correlation"])
def test_nan_in_soft_predictions_names_the_argument(which, metric):
    # before: "The 'y_pred' parameter must not contain NaN", an argument test() does not have
    P = np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.1], [0.3, 0.7]] * 3)
    preds = {"y_pred_a": P.copy(), "y_pred_b": P.copy()}
    preds[which][1, 0] = np.nan
    with pytest.raises(ValueError, match=f"'{which}' parameter must not contain NaN"):
        PairedPermutation(random_state=0).test(P, preds["y_pred_a"], preds["y_pred_b"],
                                               metric=metric)


@pytest.mark.parametrize("which", ["y_true", "y_pred_a", "y_pred_b"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_in_float_hard_labels_names_the_argument(which, bad):
    # before: "The 'labels' parameter must not contain NaN", an argument not given
    arrays = {"y_true": np.array([0.0, 1, 1, 0] * 3), "y_pred_a": np.array([0.0, 1, 0, 0] * 3),
              "y_pred_b": np.array([0.0, 1, 1, 1] * 3)}
    arrays[which][2] = bad
    with pytest.raises(ValueError, match=f"'{which}' parameter must not contain NaN"):
        sigtest.SignTest().test(arrays["y_true"], arrays["y_pred_a"], arrays["y_pred_b"])


def test_nan_in_hard_labels_in_compare_names_the_system():
    # before: "System 's1', checked as 'y_pred_a' ...: The 'labels' parameter must not
    # contain NaN" (the clean system and an argument not given were blamed)
    y = np.array([0.0, 1, 1, 0] * 3)
    bad = y.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="System 's2'.*NaN"):
        sigtest.compare(y, {"s1": y, "s2": bad}, metrics="accuracy", test="sign")
    with pytest.raises(ValueError, match="'y_true' parameter must not contain NaN"):
        sigtest.compare(bad, {"s1": y, "s2": y}, metrics="accuracy", test="sign")
