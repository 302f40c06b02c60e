"""The sufficient-statistic contract and input validation, for every metric.

Parametrised over every metric registered when sigtest is imported, so a new
built-in is checked without touching this file:

* ``aggregate(statistics(...).sum(0)) == score_func(...)`` (to 1e-12);
* integer weights (bootstrap counts) == the metric on repeated rows;
* ``aggregate`` is vectorised over leading batch axes;
* statistics are float64 of shape (n, s);
* cellwise metrics: a row's statistics depend only on (true, pred), and a
  representative row scored alone gives the same statistics;
* bad input raises ValueError/TypeError naming the offending argument.
"""

import inspect
import re
import warnings

import numpy as np
import pytest

import sigtest  # noqa: F401  (fills the registry)
from sigtest.exceptions import UndefinedMetricWarning
from sigtest.metrics._check_proba import ProbabilityRoundingWarning
from sigtest.metrics import get_metric, get_metric_names, get_scorer

# per-item score metrics (y_true=None) have their own contract tests: tests/metrics/test_scores.py
NAMES = [n for n in get_metric_names() if get_metric(n).input_type != "scores"]
ATOL = 1e-12
N_SAMPLES = 60
N_CLASSES = 3  # labels
N_COLUMNS = 4  # proba / multilabel
STRING_CLASSES = np.array(["ant", "bee", "cat"])  # sorts like 0, 1, 2

pytestmark = pytest.mark.filterwarnings("error::sigtest.exceptions.UndefinedMetricWarning")


def _make_inputs(metric, seed, string_labels=False, n=N_SAMPLES):
    """Random valid ``(y_true, y_pred, call_params)`` for the metric's input type."""
    rng = np.random.default_rng(seed)
    if metric.input_type == "labels":
        y_true = rng.integers(0, N_CLASSES, n)
        y_true[:N_CLASSES] = np.arange(N_CLASSES)  # every class occurs in y_true ...
        y_pred = np.where(rng.random(n) < 0.6, y_true, rng.integers(0, N_CLASSES, n))
        y_pred[N_CLASSES : 2 * N_CLASSES] = np.arange(N_CLASSES)  # ... and in y_pred
        labels = np.arange(N_CLASSES)
        if string_labels:
            y_true, y_pred, labels = (STRING_CLASSES[a] for a in (y_true, y_pred, labels))
        call = {"labels": labels}
        # "f1", "precision", "recall", "jaccard"; the likelihood ratios score
        # one class against the rest on multiclass data
        if metric.kwargs.get("average") == "binary" or "likelihood_ratio" in metric.name:
            call["pos_label"] = labels[1]
        return y_true, y_pred, call
    if metric.input_type == "regression":  # positive, for the deviances
        y_true = rng.gamma(2.0, 1.0, n) + 0.1
        return y_true, y_true * rng.uniform(0.5, 1.5, n), {}
    if metric.input_type == "labels_proba":  # hard gold, predict_proba columns
        y_true = rng.integers(0, N_COLUMNS, n)
        y_true[:N_COLUMNS] = np.arange(N_COLUMNS)
        return y_true, rng.dirichlet(np.ones(N_COLUMNS), size=n), {}
    if metric.input_type == "proba":
        return (
            rng.dirichlet(np.ones(N_COLUMNS), size=n),
            rng.dirichlet(np.ones(N_COLUMNS), size=n),
            {},
        )
    y_true, y_pred = rng.uniform(0, 1, (n, N_COLUMNS)), rng.uniform(0, 1, (n, N_COLUMNS))
    # every row has a true and a predicted label (> 0.5), so that the per-sample
    # scores (f1_samples, ...) are defined without a warning
    rows = np.arange(n)
    y_true[rows, rows % N_COLUMNS] = np.maximum(y_true[rows, rows % N_COLUMNS], 0.75)
    y_pred[rows, (rows // 2) % N_COLUMNS] = np.maximum(y_pred[rows, (rows // 2) % N_COLUMNS],
                                                       0.75)
    return y_true, y_pred, {}


def _statistics(metric, y_true, y_pred, call):
    return metric.statistics(y_true, y_pred, **metric.params(**call))


def _aggregate(metric, sums, call):
    return metric.aggregate(sums, **metric.params(**call))


def _accepts(func, name):
    params = inspect.signature(func).parameters
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _need_statistics(metric):
    if not metric.has_statistics:
        pytest.skip(f"{metric.name} has no sufficient statistics (slow path)")


def _as_float(value):
    value = np.asarray(value)
    assert value.shape == (), f"expected a scalar metric value, got shape {value.shape}"
    return float(value)


# ----------------------------------------------------------------------------- contract


_CASES = [(n, False) for n in NAMES] + [
    (n, True) for n in NAMES if get_metric(n).input_type == "labels"
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "name, string_labels", _CASES, ids=[f"{n}-{'str' if s else 'num'}" for n, s in _CASES]
)
def test_aggregate_of_summed_statistics_is_the_score(name, string_labels, seed):
    metric = get_metric(name)
    _need_statistics(metric)
    y_true, y_pred, call = _make_inputs(metric, seed, string_labels)
    stats = _statistics(metric, y_true, y_pred, call)
    assert isinstance(stats, np.ndarray) and stats.dtype == np.float64
    assert stats.ndim == 2 and stats.shape[0] == N_SAMPLES and stats.shape[1] >= 1
    assert np.all(np.isfinite(stats))
    direct = _as_float(metric(y_true, y_pred, **call))
    via_stats = _as_float(_aggregate(metric, stats.sum(axis=0), call))
    assert np.isfinite(direct)
    assert via_stats == pytest.approx(direct, rel=0, abs=ATOL)
    if metric.input_type == "labels":
        # without labels= the class set is the union of y_true and y_pred (all
        # three classes here), so the value is the same
        rest = {k: v for k, v in call.items() if k != "labels"}  # pos_label stays
        no_labels = _as_float(metric(y_true, y_pred, **rest))
        assert no_labels == pytest.approx(direct, rel=0, abs=ATOL)
        if string_labels:  # str labels give the same value as their int codes
            y_t, y_p, c = _make_inputs(metric, seed, False)
            assert _as_float(metric(y_t, y_p, **c)) == pytest.approx(direct, rel=0, abs=ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_integer_weights_equal_repeated_rows(name):
    metric = get_metric(name)
    _need_statistics(metric)
    y_true, y_pred, call = _make_inputs(metric, seed=2)
    rng = np.random.default_rng(3)
    weights = rng.integers(0, 4, N_SAMPLES)  # bootstrap counts, zeros included
    weights[[0, N_SAMPLES - 1]] = [0, 3]
    stats = _statistics(metric, y_true, y_pred, call)
    weighted = _as_float(_aggregate(metric, weights.astype(np.float64) @ stats, call))
    repeated = _as_float(
        metric(np.repeat(y_true, weights, axis=0), np.repeat(y_pred, weights, axis=0), **call)
    )
    assert weighted == pytest.approx(repeated, rel=0, abs=ATOL)
    # the rows dropped by zero weights matter: unweighted differs
    assert abs(_as_float(metric(y_true, y_pred, **call)) - repeated) > 1e-9
    if _accepts(metric.score_func, "sample_weight"):
        direct = _as_float(metric(y_true, y_pred, sample_weight=weights, **call))
        assert direct == pytest.approx(repeated, rel=0, abs=ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_aggregate_is_vectorised_over_leading_axes(name):
    metric = get_metric(name)
    _need_statistics(metric)
    y_true, y_pred, call = _make_inputs(metric, seed=4)
    stats = _statistics(metric, y_true, y_pred, call)
    counts = np.random.default_rng(5).multinomial(
        N_SAMPLES, np.full(N_SAMPLES, 1 / N_SAMPLES), size=6
    ).astype(np.float64)  # six bootstrap resamples
    sums = counts @ stats
    batch = np.asarray(_aggregate(metric, sums, call))
    assert batch.shape == (6,)
    rowwise = np.array([_as_float(_aggregate(metric, s, call)) for s in sums])
    np.testing.assert_allclose(batch, rowwise, rtol=0, atol=ATOL)
    assert np.ptp(rowwise) > 0  # the resamples really differ
    grid = np.asarray(_aggregate(metric, sums.reshape(2, 3, -1), call))
    assert grid.shape == (2, 3)
    np.testing.assert_allclose(grid.ravel(), rowwise, rtol=0, atol=ATOL)


@pytest.mark.parametrize("name", [n for n in NAMES if get_metric(n).cellwise])
def test_cellwise_statistics_depend_only_on_the_pair(name):
    metric = get_metric(name)
    assert metric.input_type == "labels"
    for string_labels in (False, True):
        y_true, y_pred, call = _make_inputs(metric, seed=6, string_labels=string_labels)
        stats = _statistics(metric, y_true, y_pred, call)
        pairs = {}
        for i, cell in enumerate(zip(y_true.tolist(), y_pred.tolist())):
            pairs.setdefault(cell, []).append(i)
        assert len(pairs) > N_CLASSES  # off-diagonal cells occur
        for rows in pairs.values():
            np.testing.assert_array_equal(stats[rows], np.broadcast_to(stats[rows[0]],
                                                                       stats[rows].shape))
            # the engine evaluates one representative row per cell on its own
            alone = _statistics(metric, y_true[rows[:1]], y_pred[rows[:1]], call)
            np.testing.assert_array_equal(alone[0], stats[rows[0]])


# ----------------------------------------------------------------------------- bad input


def _arg_names(metric):
    """Acceptable names for (first, second) argument in error messages."""
    params = list(inspect.signature(metric.score_func).parameters)
    return {params[0], "y_true"}, {params[1], "y_pred", "y_proba"}


def _functions(metric):
    funcs = {"score_func": lambda t, p, **kw: metric(t, p, **kw)}
    if metric.has_statistics:
        funcs["statistics"] = lambda t, p, **kw: _statistics(metric, t, p, kw)
    return funcs


def _expect_error(metric, y_true, y_pred, names, call=None):
    """Every entry point raises ValueError/TypeError naming one of ``names``."""
    pattern = "|".join(re.escape(n) for n in sorted(names))
    for where, func in _functions(metric).items():
        with pytest.raises((ValueError, TypeError)) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                func(y_true, y_pred, **(call or {}))
        assert re.search(pattern, str(info.value)), (
            f"{metric.name}.{where}: message {str(info.value)!r} names none of {sorted(names)}"
        )


def _corrupt(metric, value, position, seed=7):
    """Valid inputs with one entry of argument ``position`` set to ``value``."""
    y_true, y_pred, call = _make_inputs(metric, seed)
    args = [np.array(y_true, dtype=np.float64), np.array(y_pred, dtype=np.float64)]
    args[position][(3, 1) if args[position].ndim == 2 else 3] = value
    return args, call


@pytest.mark.parametrize("name", NAMES)
def test_length_mismatch(name):
    metric = get_metric(name)
    y_true, y_pred, call = _make_inputs(metric, seed=8)
    first, second = _arg_names(metric)
    _expect_error(metric, y_true, y_pred[:-1], first | second, call)
    _expect_error(metric, y_true[:-1], y_pred, first | second, call)


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name):
    metric = get_metric(name)
    y_true, y_pred, call = _make_inputs(metric, seed=9)
    first, second = _arg_names(metric)
    _expect_error(metric, y_true[:0], y_pred[:0], first | second, call)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name", NAMES)
def test_non_finite_values(name, bad, position):
    metric = get_metric(name)
    args, call = _corrupt(metric, bad, position)
    _expect_error(metric, *args, _arg_names(metric)[position], call)


# top_k_accuracy and the binary ROC AUC / average precision rank any decision scores
# (scikit-learn's response_method ("decision_function", "predict_proba")): values
# outside [0, 1] are valid there
@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("name", [n for n in NAMES if get_metric(n).input_type in
                                  ("proba", "multilabel", "labels_proba")
                                  and n not in ("top_k_accuracy", "roc_auc",
                                                "average_precision")])
def test_mass_outside_unit_interval(name, position):
    metric = get_metric(name)
    names = _arg_names(metric)[position]
    if metric.input_type == "proba":
        y_true, y_pred, call = _make_inputs(metric, seed=10)
        for row in ([-0.1, 0.6, 0.5, 0.0], [1.2, -0.2, 0.0, 0.0]):  # rows sum to 1
            args = [y_true.copy(), y_pred.copy()]
            args[position][5] = row
            _expect_error(metric, *args, names, call)
    else:
        for bad in (-0.1, 1.1, 1 + 1e-9):
            args, call = _corrupt(metric, bad, position)
            _expect_error(metric, *args, names, call)


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("name", [n for n in NAMES if get_metric(n).input_type == "proba"])
def test_rows_must_sum_to_one(name, position):
    """Multiclass rows must sum to 1: within 1e-6 as given, within 1e-3 renormalised
    with a ProbabilityRoundingWarning (issue 8), beyond that an error."""
    metric = get_metric(name)
    y_true, y_pred, call = _make_inputs(metric, seed=11)
    args = [y_true.copy(), y_pred.copy()]
    args[position][4] *= 0.9
    _expect_error(metric, *args, _arg_names(metric)[position], call)
    args[position][4] = y_true[4] * (1 + 2e-3)
    _expect_error(metric, *args, _arg_names(metric)[position], call)
    # a row written with four decimals (off by 1e-4) is renormalised, with a warning
    args = [y_true.copy(), y_pred.copy()]
    args[position][4] *= 1 + 1e-4
    with pytest.warns(ProbabilityRoundingWarning):
        value = _as_float(metric(*args, **call))
    args[position][4] /= args[position][4].sum()
    assert value == pytest.approx(_as_float(metric(*args, **call)), abs=1e-12)
    # a rounding-level deviation (1e-9) is accepted
    args = [y_true.copy(), y_pred.copy()]
    args[position][4, 0] += 1e-9 if args[position][4, 0] < 0.5 else -1e-9
    assert np.isfinite(_as_float(metric(*args, **call)))


@pytest.mark.parametrize("position", [0, 1])
@pytest.mark.parametrize("name", NAMES)
def test_wrong_number_of_dimensions(name, position):
    metric = get_metric(name)
    y_true, y_pred, call = _make_inputs(metric, seed=12)
    args = [y_true, y_pred]
    if metric.input_type == "labels":
        args[position] = np.zeros((N_SAMPLES, 2, 2))  # 3-D is never labels
    elif metric.input_type == "regression":  # multi-output is refused
        args[position] = np.column_stack([args[position], args[position]])
    elif metric.input_type == "labels_proba":
        # a distribution as y_true; predicted labels as y_pred (1-D, 4 classes)
        args[position] = (np.eye(N_COLUMNS)[y_true] if position == 0
                          else np.argmax(y_pred, axis=1))
    else:
        args[position] = np.argmax(args[position], axis=1)  # hard labels for a soft metric
    _expect_error(metric, *args, _arg_names(metric)[position], call)


@pytest.mark.parametrize("bad", ["no_such_metric", "neg_accuracy"])
def test_unknown_metric_name(bad):
    if bad == "neg_accuracy" and "accuracy" not in NAMES:
        pytest.skip("accuracy not registered")
    with pytest.raises(ValueError, match="Valid names are") as info:
        get_metric(bad)
    assert str(get_metric_names()) in str(info.value)
    with pytest.raises(ValueError, match="Valid names are"):
        get_scorer(bad)
    with pytest.raises(TypeError, match="'metric'"):
        get_metric(42)
