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


# ---------------------------------------------- issue 20: accepted silently before
_RNG = np.random.default_rng(20)
_Y = _RNG.integers(0, 2, 60)
_SYSTEMS = {name: np.where(_RNG.random(60) < p, _Y, 1 - _Y)
            for name, p in zip("abcdefg", [0.6, 0.7, 0.8, 0.65, 0.75, 0.7, 0.72])}
_TWO = {k: _SYSTEMS[k] for k in "ab"}


@pytest.mark.parametrize("pairs", ["all", "baseline"])
def test_compare_refuses_an_invalid_alternative_of_its_test(pairs):
    # before (pairs="all"): replaced by "two-sided" silently
    kw = {"baseline": "a"} if pairs == "baseline" else {}
    with pytest.raises(ValueError, match="'alternative' parameter of PairedPermutation.*bogus"):
        sigtest.compare(_Y, _TWO, metrics="accuracy", pairs=pairs, **kw,
                        test=PairedPermutation(alternative="bogus", n_resamples=99))


def test_compare_refuses_an_invalid_random_state_of_its_test():
    # before: overridden by compare's own seed, silently
    with pytest.raises(ValueError, match="'random_state' parameter of PairedPermutation"):
        sigtest.compare(_Y, _TWO, metrics="accuracy",
                        test=PairedPermutation(random_state="bad", n_resamples=99))


@pytest.mark.parametrize("seed", [True, False, np.True_])
def test_a_bool_random_state_of_a_test_is_refused(seed):
    # before: True was read as the seed 1 by compare (which then replaced it)
    with pytest.raises(ValueError, match="'random_state' parameter of PairedPermutation.*bool"):
        sigtest.compare(_Y, _TWO, metrics="accuracy",
                        test=PairedPermutation(random_state=seed, n_resamples=99))
    with pytest.raises(ValueError, match="'random_state' parameter of PairedPermutation.*bool"):
        PairedPermutation(random_state=seed, n_resamples=99).test(_Y, *_TWO.values())


def test_compare_simultaneous_refuses_an_invalid_confidence_level():
    # before: replaced by the simultaneous level 1 - alpha / m, silently
    with pytest.raises(ValueError, match="'confidence_level' parameter of BCaInterval"):
        sigtest.compare(_Y, _TWO, metrics="accuracy", ci="simultaneous",
                        test=(PairedPermutation(n_resamples=99),
                              BCaInterval(confidence_level=0, n_resamples=99)))


@pytest.mark.parametrize("n_systems", [2, 7])
@pytest.mark.parametrize("n_resamples", [None, -5])
def test_compare_bad_interval_n_resamples_names_it(n_systems, n_resamples):
    # before, with 6+ systems (the shared bootstrap): TypeError "int() argument must
    # be ... not 'NoneType'" or "negative dimensions are not allowed"
    systems = dict(list(_SYSTEMS.items())[:n_systems])
    with pytest.raises(ValueError, match="'n_resamples' parameter of BCaInterval"):
        sigtest.compare(_Y, systems, metrics="accuracy",
                        test=(PairedPermutation(n_resamples=99),
                              BCaInterval(n_resamples=n_resamples)))


@pytest.mark.parametrize("seed", ["a", 1.5, True, -1, 2**32])
def test_five_by_two_checks_its_random_state_when_built(seed):
    # before: accepted, failing only at the first split (without naming it)
    from sigtest.cv import five_by_two

    with pytest.raises((TypeError, ValueError), match="'random_state' parameter of five_by_two"):
        five_by_two(seed)


@pytest.mark.parametrize("seed", [None, 0, 2**32 - 1, np.random.RandomState(0)])
def test_five_by_two_takes_the_seeds_scikit_learn_takes(seed):
    from sigtest.cv import five_by_two

    assert five_by_two(seed).get_n_splits() == 10


@pytest.mark.parametrize("call", ["test", "score", "nested"])
def test_unused_zero_division_is_still_checked(call):
    # accuracy has no ratio to fill: zero_division="bogus" was accepted silently
    with pytest.raises(ValueError, match="'zero_division' parameter must be"):
        if call == "test":
            PairedPermutation(n_resamples=99).test(Y, A, B, metric="accuracy",
                                                   zero_division="bogus")
        elif call == "score":
            sigtest.score(Y, A, metric="accuracy", zero_division="bogus")
        else:
            sigtest.HierarchicalBootstrap(n_resamples=99).test(
                Y, [A] * 3, [B] * 3, metric="accuracy", zero_division="bogus")


def test_hierarchical_bootstrap_refuses_an_unknown_keyword():
    with pytest.raises(TypeError, match=r"HierarchicalBootstrap.test\(\).*\['foo'\]"):
        sigtest.HierarchicalBootstrap(n_resamples=99).test(Y, [A] * 3, [B] * 3, foo=1)


@pytest.mark.parametrize("y_true", [[[0, 1], [1]], [0, [1, 0], 1]])
def test_ragged_y_true_in_compare_names_it(y_true):
    # before: numpy's "setting an array element with a sequence", no argument named
    with pytest.raises(ValueError, match="'y_true' parameter could not be converted"):
        sigtest.compare(y_true, {"a": [0, 1], "b": [1, 1]}, metrics="accuracy")


@pytest.mark.parametrize("which", ["y_pred_a", "y_pred_b"])
def test_hierarchical_bootstrap_names_its_own_arguments(which):
    # before: "Run 0 of 'runs_b' has 1 samples" (neither the name nor the length)
    y = np.array(Y * 10)
    good, short = [np.array(A * 10)] * 3, [np.array(B * 5)] * 3
    runs = {"y_pred_a": good, "y_pred_b": good, which: short}
    with pytest.raises(ValueError, match=f"Run 0 of '{which}' has 20 samples but 'y_true' has 40"):
        sigtest.HierarchicalBootstrap(n_resamples=99).test(y, runs["y_pred_a"],
                                                           runs["y_pred_b"])
    with pytest.raises(ValueError, match=f"Run 0 of '{which}' has 20 samples"):
        one = {"y_pred_a": good, "y_pred_b": good, which: [np.array(B * 5)]}
        sigtest.HierarchicalBootstrap(n_resamples=99).test(y, one["y_pred_a"],
                                                           one["y_pred_b"])


def test_hierarchical_bootstrap_scalar_y_true_names_it():
    # before: TypeError "object of type 'int' has no len()"
    with pytest.raises(ValueError, match="'y_true' parameter must be array-like"):
        sigtest.HierarchicalBootstrap(n_resamples=99).test(3, [A] * 3, [B] * 3)


@pytest.mark.parametrize("which", ["predictions", "y_true"])
def test_ragged_input_to_experiment_feed_names_it(tmp_path, which):
    # before: numpy's "setting an array element with a sequence", no argument named
    exp = sigtest.Experiment(tmp_path / "exp")
    kw = {"predictions": [0, 1], "y_true": [0, 1], which: [[0, 1], [1]]}
    with pytest.raises(ValueError, match=f"'{which}' parameter could not be converted"):
        exp.feed("a", kw["predictions"], y_true=kw["y_true"])


def test_compare_refuses_a_test_that_cannot_run_on_a_metric_before_running():
    # the sign test needs a per-item decomposable metric: refused by the plan,
    # naming the test and the metric, before any test runs
    with pytest.raises(ValueError, match="Test 'sign' cannot run on metric 'f1_macro'"):
        sigtest.compare(_Y, _TWO, metrics=["accuracy", "f1_macro"], test="sign")
