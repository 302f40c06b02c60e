"""Input checks of the paired input path: metric keywords, arrays, lengths, hard/soft.

Used by :mod:`sigtest._engine.prepare` (and by the tests and workflows
through :func:`check_metric_params`): every check raises a ``ValueError`` or
``TypeError`` naming the caller's argument.
"""

from __future__ import annotations

import inspect

import numpy as np

from sigtest.metrics._check_regression import check_regression
from sigtest.metrics._common import check_zero_division
from sigtest.metrics._scores import check_scores, check_y_true
from sigtest._engine.checks import check_array_like as _as_array

__all__ = ["DOCUMENTED_METRIC_PARAMS", "RESERVED_KEYWORDS", "check_metric_params",
           "check_targets", "metric_keywords"]

_COMPRESS_OPTIONS = ("auto", True, False)


def _check_compress(compress, options):
    """``compress`` must be one of ``options`` (``True``/``False`` as bools, not 1/0)."""
    if compress not in options or isinstance(compress, (int, float)) and not isinstance(
        compress, bool
    ):
        raise ValueError(
            f"The 'compress' parameter must be one of {options}. Got {compress!r} instead."
        )


#: Metric keywords documented for the built-in metrics (accepted for any metric).
DOCUMENTED_METRIC_PARAMS = frozenset(
    {"zero_division", "average", "labels", "pos_label", "multilabel", "eps", "base"}
)
_DATA_ARGUMENTS = frozenset({"y_true", "y_pred", "y_proba", "y_score", "sums", "sample_weight"})
#: Keywords of the input path itself that no metric keyword may take: the
#: workflows pass them to :func:`~sigtest._engine.prepare.prepare_paired`
#: (``cell_cache``), so a metric's keyword of that name would be taken from it.
RESERVED_KEYWORDS = frozenset({"cell_cache"})


def _named_keywords(func):
    """Keyword names ``func`` declares, or ``None`` if its signature cannot be read."""
    func = getattr(func, "func", func)  # PlainScore wraps the user's function
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    return {p.name for p in params
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)} - _DATA_ARGUMENTS


def _takes_var_keywords(func):
    func = getattr(func, "func", func)
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind == p.VAR_KEYWORD for p in params)


def metric_keywords(metric):
    """Keyword arguments ``metric`` accepts, or ``None`` (anything: ``**kwargs``).

    The union of the keywords named by its ``statistics``, ``aggregate`` and
    ``score_func``, its fixed ``kwargs`` and :data:`DOCUMENTED_METRIC_PARAMS`.
    A plain ``score_func`` (no statistics) that takes ``**kwargs`` accepts
    anything; the ``**params`` of ``statistics``/``aggregate`` do not count
    (the contract requires them to ignore what they do not use). The
    :data:`RESERVED_KEYWORDS` are never among them.
    """
    score_func = metric.score_func
    if not metric.has_statistics and _takes_var_keywords(score_func):
        return None
    names = set(DOCUMENTED_METRIC_PARAMS) | set(metric.kwargs)
    for func in (metric.statistics, metric.aggregate, score_func):
        if func is None:
            continue
        named = _named_keywords(func)
        if named is None:
            return None
        names |= named
    return names - RESERVED_KEYWORDS


def check_metric_params(metric, metric_params, *, caller):
    """Raise ``TypeError`` for keyword arguments that ``metric`` does not accept.

    ``test(..., groups=g)`` or ``strata=`` (or a typo such as
    ``zero_divison=``) would otherwise be swallowed: neither the test nor the
    metric uses them.

    Parameters
    ----------
    metric : Metric
    metric_params : dict
        The keyword arguments left after the test's own ones.
    caller : str
        Name shown in the message (e.g. ``"PairedPermutation.test"``).

    Raises
    ------
    TypeError
        Naming every unknown keyword and the accepted ones, or a keyword
        reserved for the input path (:data:`RESERVED_KEYWORDS`), whatever the
        metric accepts.
    ValueError
        An invalid ``zero_division`` (see
        :func:`sigtest.metrics._common.check_zero_division`), also where the
        metric does not use it.
    """
    if "zero_division" in metric_params:
        # checked even for a metric with no ratio to fill (accuracy), which
        # would otherwise accept any value silently
        check_zero_division(metric_params["zero_division"])
    reserved = sorted(k for k in metric_params if k in RESERVED_KEYWORDS)
    if reserved:
        raise TypeError(
            f"{caller}() got keyword argument(s) {reserved} reserved for the input path: "
            "they are never passed to a metric."
        )
    accepted = metric_keywords(metric)
    if accepted is None:
        return
    unknown = sorted(k for k in metric_params if k not in accepted)
    if unknown:
        raise TypeError(
            f"{caller}() got unexpected keyword argument(s) {unknown}: neither the test nor "
            f"the metric {metric.name!r} accepts them (the metric accepts "
            f"{sorted(k for k in accepted if not k.startswith('_'))})."
        )


def check_targets(metric, y_true, predictions, names):
    """``y_true`` and the predictions as arrays, checked against the metric's input type.

    Per-item scores (``input_type="scores"``): ``y_true`` must be ``None``
    (:func:`~sigtest.metrics._scores.check_y_true`), the predictions are
    checked as scores (:func:`~sigtest.metrics._scores.check_scores`: 1-D,
    finite, equal lengths) and ``y_true`` becomes a constant placeholder
    (zeros), which the score metrics ignore and which puts every item with
    the same pair of scores into one cell. Any other metric refuses
    ``y_true=None`` and gets its arrays as given.

    Parameters
    ----------
    metric : Metric
    y_true : array-like or None
    predictions : sequence of array-like
    names : sequence of str
        The caller's names of the predictions.

    Returns
    -------
    y_true : ndarray
    predictions : list of ndarray
    """
    if check_y_true(metric, y_true) is None:
        scores = check_scores(predictions, names)
        n = scores[0].shape[0]
        if y_true is not None and y_true.shape[0] != n:  # the per-item form of None
            raise ValueError(
                f"The '{names[0]}' parameter has {n} items but {y_true.shape[0]} were expected "
                "(the items of the other systems); every system must score the same items."
            )
        return np.zeros(n), scores
    return _as_array(y_true, "y_true"), [_as_array(p, name)
                                         for p, name in zip(predictions, names)]


def _check_lengths(arrays, names, sample_weight):
    n = arrays[0].shape[0]
    if n == 0:
        raise ValueError(f"The '{names[0]}' parameter is empty; at least one sample is required.")
    for arr, name in zip(arrays[1:], names[1:]):
        if arr.shape[0] != n:
            raise ValueError(
                f"The '{name}' parameter has {arr.shape[0]} samples but 'y_true' has {n}; "
                "all inputs must have the same number of samples."
            )
    if sample_weight is not None:
        raw = np.asarray(sample_weight.to_numpy() if hasattr(sample_weight, "to_numpy")
                         else sample_weight)
        if raw.dtype.kind not in "biuf":
            raise ValueError(
                "The 'sample_weight' parameter must hold numbers. Got an array of dtype "
                f"{raw.dtype} instead."
            )
        w = raw.astype(np.float64)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(
                f"The 'sample_weight' parameter must be 1-D with {n} entries (one per "
                f"sample). Got shape {w.shape} instead."
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("The 'sample_weight' parameter must be finite and non-negative.")
        if not w.sum() > 0:  # as the metrics say: an all-zero weighting defines no score
            raise ValueError("The 'sample_weight' parameter must have a positive sum.")
        return n, w
    return n, None


def _check_hard_soft(metric, y_true, a, b):
    """Reject hard/soft mixtures; return the arrays (column vectors raveled)."""
    if metric.input_type == "regression":  # 1-D floats: the metric's one check
        y_true, a = check_regression(y_true, a, metric.name, pred_name="y_pred_a")
        return y_true, a, check_regression(y_true, b, metric.name, pred_name="y_pred_b")[1]
    if a.ndim != b.ndim:
        hard, soft = ("y_pred_a", "y_pred_b") if a.ndim < b.ndim else ("y_pred_b", "y_pred_a")
        raise ValueError(
            f"Mixed hard and soft predictions: '{hard}' is {min(a.ndim, b.ndim)}-D and "
            f"'{soft}' is {max(a.ndim, b.ndim)}-D. Both systems must give the same kind of "
            f"output for metric {metric.name!r}."
        )
    if metric.input_type == "scores":  # checked by check_targets
        return y_true, a, b
    if metric.input_type == "labels":
        out = []
        for arr, name in ((y_true, "y_true"), (a, "y_pred_a"), (b, "y_pred_b")):
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr.ravel()
            if arr.ndim != 1:
                raise ValueError(
                    f"Metric {metric.name!r} takes 1-D hard labels, but '{name}' has shape "
                    f"{arr.shape}. Pass predicted labels (e.g. the argmax of scores), or use "
                    "a soft-label metric for probability outputs."
                )
            out.append(arr)
        kinds = {arr.dtype.kind for arr in out} - {"O"}
        if kinds & {"U", "S"} and kinds - {"U", "S"}:
            raise ValueError(
                "Mixed label types: 'y_true', 'y_pred_a' and 'y_pred_b' must all be strings "
                f"or all be numbers (got dtypes {[str(x.dtype) for x in out]})."
            )
        return tuple(out)
    if metric.input_type == "labels_proba":
        # hard y_true, 1-D (binary) or 2-D scores: the metric's statistics run
        # the one check (metrics._check_scores.check_labels_proba)
        if y_true.ndim == 2 and y_true.shape[1] == 1:
            y_true = y_true.ravel()
        for arr, name in ((a, "y_pred_a"), (b, "y_pred_b")):
            # named here: the metric's check sees one system and calls it 'y_pred'
            if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
                raise ValueError(f"The '{name}' parameter of metric {metric.name!r} must not "
                                 "contain NaN or infinity.")
        return y_true, a, b
    for arr, name in ((a, "y_pred_a"), (b, "y_pred_b")):
        if arr.ndim != 2:
            raise ValueError(
                f"Metric {metric.name!r} takes soft predictions of shape (n_samples, "
                f"n_classes), but '{name}' has shape {arr.shape} (hard labels?)."
            )
    return y_true, a, b


def _check_runs(runs, name, n):
    if isinstance(runs, np.ndarray):
        runs = list(runs)
    runs = [_as_array(r, name) for r in runs]
    if not runs:
        raise ValueError(f"The '{name}' parameter must hold at least one run.")
    for k, r in enumerate(runs):
        if r.shape[0] != n:
            raise ValueError(
                f"Run {k} of '{name}' has {r.shape[0]} samples but 'y_true' has {n}."
            )
    return runs
