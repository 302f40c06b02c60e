"""Every registered metric as a scikit-learn scorer.

:func:`get_scorer` wraps a registered :class:`~sigtest.metrics.Metric` in a
scorer usable wherever scikit-learn accepts ``scoring=`` (``cross_validate``,
``GridSearchCV``, ``permutation_importance``, ...). Two things go beyond
:func:`sklearn.metrics.make_scorer`:

* **Soft targets are metadata.** The estimator is fit on hard labels ``y``; the
  true judgement distributions ``P`` of a soft metric travel as the per-sample
  metadata ``y_true_soft`` through scikit-learn's metadata routing, which
  slices them per fold like ``sample_weight``. A name such as ``y_true`` or
  ``y_proba`` would not work: routing ignores those names for scorers.
* **Fixed class sets.** A training fold may miss a class, so the fitted
  ``classes_`` is then a subset; ``predict_proba`` columns are re-aligned to
  the full class set (zeros for classes the model never saw) and hard-label
  metrics are given the full ``labels``, so every fold and every system is
  averaged over the same classes.
"""

from __future__ import annotations

import copy
import inspect

import numpy as np

from sigtest.utils._names import did_you_mean, plain
from sigtest.utils._param_validation import validate_params
from sigtest.metrics._common import SOFT_TARGET_PARAM
from sigtest.metrics._registry import Metric, get_metric, get_metric_names

__all__ = ["SOFT_TARGET_PARAM", "get_scorer", "get_scorer_names"]


def get_scorer_names():
    """Sorted names of all scorers (losses appear as ``neg_<name>``).

    Returns
    -------
    names : list of str
        One scorer per registered metric; a metric's scorer name equals its
        registry name except for losses (``greater_is_better=False``), whose
        scorer is ``"neg_" + name`` as in scikit-learn (``neg_log_loss``).

    Examples
    --------
    >>> from sigtest.metrics import get_scorer_names, register_metric, unregister_metric
    >>> _ = register_metric("my_errors", lambda t, p: 0.0, greater_is_better=False)
    >>> "neg_my_errors" in get_scorer_names(), "my_errors" in get_scorer_names()
    (True, False)
    >>> unregister_metric("my_errors")
    """
    return sorted(get_metric(name).scorer_name for name in get_metric_names())


@validate_params(
    {"name": [str, Metric], "classes": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def get_scorer(name, *, classes=None, **metric_params):
    """Return a fresh scikit-learn scorer for a registered metric.

    The scorer is what :func:`sklearn.metrics.make_scorer` builds (same
    constructor, ``_score_func``, ``_sign``, ``_kwargs``, ``_response_method``)
    with ``response_method="predict"`` for hard-label metrics,
    ``"predict_proba"`` for soft and multilabel ones, and
    ``greater_is_better=False`` (a negated value) for losses. Every call
    returns a new, independent object.

    Parameters
    ----------
    name : str or Metric
        A scorer name from :func:`get_scorer_names` (``"soft_f1_micro"``,
        ``"neg_jsd"``) or a :class:`~sigtest.metrics.Metric`. A loss must be
        named with its ``neg_`` prefix, so the sign is never ambiguous.
    classes : array-like of shape (n_classes,), default=None
        Soft multiclass metrics only (``input_type="proba"``): the class
        labels of the columns of ``y_true_soft``, in column order. By default
        the full class set is the sorted union of the fitted
        ``estimator.classes_`` and the labels of the scored fold, which is the
        full set under any partitioning CV as long as every class occurs as a
        hard label; give ``classes`` when a class may occur only in the soft
        targets. Hard-label metrics take ``labels=`` instead.
    **metric_params
        Fixed keyword arguments of the metric, e.g. ``labels=`` (the full label
        set of a hard metric) or ``zero_division=``. They override the
        metric's registered ``kwargs``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y)``; greater is better.

    Raises
    ------
    ValueError
        If ``name`` is unknown (the message lists :func:`get_scorer_names`),
        or a loss is named without ``neg_``, or ``classes`` is given for a
        metric that is not a soft multiclass one.
    TypeError
        If ``name`` is not a str/Metric, or ``metric_params`` holds a keyword
        the metric's ``score_func`` does not accept.

    Notes
    -----
    **Soft targets.** A soft scorer requests the metadata ``y_true_soft``
    (an ``(n_samples, n_classes)`` array of distributions, or
    ``(n_samples, n_labels)`` values in [0, 1] for multilabel metrics). Pass it
    as ``cross_validate(..., params={"y_true_soft": P})`` or
    ``GridSearchCV(...).fit(X, y, y_true_soft=P)``; this requires
    ``sklearn.set_config(enable_metadata_routing=True)`` (without routing,
    scikit-learn hands metadata to ``fit`` only, and a direct call
    ``scorer(est, X, y, y_true_soft=P)`` raises). The request is made at class
    level, so no ``set_score_request`` call is needed, and it survives a later
    ``set_score_request(sample_weight=True)``.

    **No soft targets.** When ``y_true_soft`` is not passed, a soft scorer
    scores against the one-hot encoding of the hard labels ``y`` over the
    full class set (multilabel: ``y`` itself as 0/1 floats); soft metrics
    then reduce to their hard counterparts as in Kurniawan et al. (2025).

    **Class alignment.** ``predict_proba`` columns follow
    ``estimator.classes_``; they are moved to the positions of the full class
    set, with zeros for classes missing from the training fold. For
    multilabel estimators returning one ``(n_samples, 2)`` array per label,
    the column of class 1 is used (zeros if the label was constant 0 in
    training). Hard-label metrics that take ``labels`` (every built-in and
    every metric with statistics) receive ``labels`` = the sorted union of
    ``estimator.classes_`` and the fold's ``y`` unless ``labels=`` is given.

    References
    ----------
    .. [1] Kurniawan, K., Mistica, M., Baldwin, T., & Lau, J. H. (2025).
       "Training and evaluating with human label variation: An empirical
       study." Computational Linguistics.

    Examples
    --------
    >>> import numpy as np, sklearn
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_validate
    >>> from sigtest.metrics import get_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> P = np.random.default_rng(0).dirichlet(np.ones(3), size=len(y))
    >>> scoring = {"acc": get_scorer("accuracy"),
    ...            "soft_f1": get_scorer("soft_f1_micro"),
    ...            "jsd": get_scorer("neg_jsd")}
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     cv = cross_validate(LogisticRegression(max_iter=1000), X, y, cv=3,
    ...                         scoring=scoring, params={"y_true_soft": P})
    >>> cv["test_acc"].round(2).tolist()
    [0.98, 0.96, 0.98]
    >>> bool(np.all(cv["test_jsd"] <= 0))
    True
    """
    from sigtest.metrics import _scorer_classes  # imports scikit-learn

    if isinstance(name, Metric):
        metric = name
    elif isinstance(name, str):
        metric = _lookup(name)
    else:
        raise TypeError(
            "The 'name' parameter of get_scorer must be a scorer name (str) or a "
            f"Metric. Got {type(name).__name__} instead."
        )
    _check_metric_params(metric, metric_params)
    metric_params = copy.deepcopy(metric_params)
    kwargs = {**metric.kwargs, **metric_params}
    sign = 1 if metric.greater_is_better else -1
    if metric.input_type in ("labels", "regression", "labels_proba"):
        # predict(X) against y; hard y_true of a probability scorer: scikit-learn's own
        # response handling (a binary predict_proba gives the positive class's column,
        # as its scorers do)
        if classes is not None:
            raise ValueError(
                f"The 'classes' parameter of get_scorer applies to soft multiclass "
                f"metrics only; {metric.name!r} is a "
                + ("hard-label metric: pass its full label set as labels=... instead."
                   if metric.input_type == "labels" else "regression metric.")
            )
        scorer = _scorer_classes._LabelScorer(
            metric.score_func, sign, kwargs, metric.response_method
        )
        scorer._pass_labels = metric.input_type == "labels" and _accepts_labels(metric)
    else:
        if classes is not None:
            if metric.input_type != "proba":
                raise ValueError(
                    "The 'classes' parameter of get_scorer applies to soft multiclass "
                    f"metrics only; {metric.name!r} has input_type "
                    f"{metric.input_type!r}."
                )
            classes = np.asarray(classes)
            if classes.ndim != 1 or classes.size == 0 or np.unique(classes).size != classes.size:
                raise ValueError(
                    "The 'classes' parameter of get_scorer must be a non-empty 1-D "
                    f"array of distinct labels. Got {plain(classes)!r} instead."
                )
        scorer = _scorer_classes._SoftScorer(
            metric.score_func, sign, kwargs, metric.response_method
        )
        scorer._input_type = metric.input_type
        scorer._classes = None if classes is None else classes.copy()
    scorer._metric_name = metric.name
    return scorer


def _lookup(name):
    """Registry lookup by scorer name with a message listing the scorers."""
    try:
        metric = get_metric(name)
    except ValueError:
        metric = None
    if metric is None or metric.scorer_name != name:
        names = get_scorer_names()
        hint = did_you_mean(name, names)
        if metric is not None:
            hint = f" {name!r} is a loss; its scorer is named {metric.scorer_name!r}."
        raise ValueError(
            f"{plain(name)!r} is not a valid scorer name for the 'name' parameter of "
            f"get_scorer.{hint} Valid names are: {names}."
        )
    return metric


def _signature_params(func):
    try:
        return inspect.signature(func).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return None


def _check_metric_params(metric, metric_params):
    params = _signature_params(metric.score_func)
    if params is None or any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    unknown = sorted(set(metric_params) - set(params))
    if unknown:
        raise TypeError(
            f"get_scorer got keyword(s) {unknown} that the score function of metric "
            f"{metric.name!r} does not accept; it accepts {sorted(params)}."
        )


def _accepts_labels(metric):
    """Whether ``labels`` may be passed: the contract says every metric with
    statistics accepts (and may ignore) any keyword; otherwise the score
    function must name it explicitly."""
    if metric.has_statistics:
        return True
    params = _signature_params(metric.score_func)
    return params is not None and "labels" in params


def __getattr__(name):
    # The scorer classes subclass scikit-learn's ``_Scorer``: they live in
    # ``_scorer_classes`` and are loaded on first use (old pickles name them here).
    if name in ("_LabelScorer", "_SoftScorer"):
        # PEP 562: the old private classes load only when an old pickle names them
        from sigtest.metrics import _scorer_classes

        return getattr(_scorer_classes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

