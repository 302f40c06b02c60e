"""Any accepted ``metric=`` value as a :class:`~sigtest.metrics.Metric`: :func:`as_metric`.

A registered name, a :class:`Metric`, a scikit-learn scorer or a plain
callable. A scorer or a plain callable of a scikit-learn metric that
sigtest computes from sufficient statistics becomes that fast metric with
the scorer's keywords (:data:`SKLEARN_FAST`): ``make_scorer(fbeta_score,
beta=2)`` is F2 on the cellwise statistics of precision/recall/F1, named
``fbeta_score(beta=2)``; ``sklearn.metrics.get_scorer("f1_macro")`` is the
registered ``"f1_macro"``. Anything else takes the slow path (the function
called on every resample).

**What stays slow, and why.** A score that is not a function of additive
per-item statistics (or of one sort per system): ``average=None`` (an
array, not a score), ``average_precision_score(average="samples")`` (a
ranking within every row), ``median_absolute_error`` and
``d2_absolute_error_score`` (medians), ``max_error`` (a maximum), the clustering scores (mutual
information, Rand: the contingency table of the labels is additive but
they compare partitions, not predictions with targets, and are not mapped),
and any call with keywords sigtest does not take the same way (``labels=``,
``sample_weight=`` fixed in the scorer, ``max_fpr=``, ``multioutput=``,
``normalize=False``).
"""

from __future__ import annotations

import math
import sys
from dataclasses import fields
from numbers import Real

from sigtest.metrics._hard import _fbeta_aggregate, _fbeta_score
from sigtest.metrics._ranking import _pos_label_is_one
from sigtest.metrics._registry import _REGISTRY, CheckedScore, Metric, get_metric

__all__ = ["SKLEARN_FAST", "as_metric", "sklearn_metric"]


def as_metric(metric):
    """Turn any accepted ``metric=`` value into a :class:`Metric`.

    The one validation path of every entry point (the tests' ``test``,
    :func:`sigtest.score`, :func:`sigtest.compare`,
    :func:`sigtest.compare_datasets`, :func:`sigtest.cross_val_compare`).

    Parameters
    ----------
    metric : str, Metric, scikit-learn scorer or callable
        * a registered name (or a loss's ``"neg_<name>"``) or a
          :class:`Metric`: as :func:`get_metric`;
        * a scikit-learn scorer (:func:`sklearn.metrics.make_scorer`,
          :func:`sklearn.metrics.get_scorer`, or :func:`sigtest.get_scorer`):
          its score function and fixed keywords, ``greater_is_better`` from
          its sign (``_sign``), hard labels when its ``response_method`` is
          ``"predict"`` and hard labels scored by probabilities
          (``input_type="labels_proba"``; of a binary problem the function
          receives the column of the second class, as scikit-learn's scorer
          does) when it asks for ``"predict_proba"``. A scorer of sigtest's
          own registry is that metric (fast path kept), and so is a scorer
          of a scikit-learn metric that sigtest computes from statistics
          (:data:`SKLEARN_FAST`, with the keywords it takes: ``f1_score``,
          ``fbeta_score(beta=...)``, ``precision_score``, ``recall_score``
          and ``jaccard_score`` at any ``average`` but ``None``,
          ``accuracy_score``, ``balanced_accuracy_score``,
          ``matthews_corrcoef``, ``cohen_kappa_score``, ``roc_auc_score``,
          ``average_precision_score``,
          ``log_loss``, ``brier_score_loss``, ``top_k_accuracy_score``, the
          regression errors, ...): the fast path with those keywords;
        * a scikit-learn metric function of that list that scores hard
          labels or regression predictions (``fbeta_score``, ...): the same
          fast metric, ``greater_is_better=True``;
        * any other callable ``f(y_true, y_pred, **kw) -> float`` (the
          user's own): hard labels, ``greater_is_better=True`` (register it
          with :func:`register_metric` for a loss).

    Returns
    -------
    metric : Metric
        A scorer of a registered configuration is that metric
        (``make_scorer(f1_score, average="macro")`` is ``"f1_macro"``).
        Another scorer or callable gives an *unregistered* metric named
        after the function and its keywords (``fbeta_score(beta=2)``); one
        that sigtest cannot map has no sufficient statistics: every
        resample calls the function (the slow path; see the docs' "Any score
        function" for its cost, and :func:`register_metric` with
        ``statistics``/``aggregate`` for the fast one). Keyword arguments
        pass to the function only if its signature accepts them.

    Raises
    ------
    TypeError
        ``metric`` of another type.
    ValueError
        Unknown name; a scorer that needs ``decision_function`` only. At
        call time, the function raising or returning a non-scalar is a
        ``ValueError`` naming ``metric``.

    Examples
    --------
    >>> from sklearn.metrics import fbeta_score, get_scorer, make_scorer, matthews_corrcoef
    >>> from sigtest.metrics import as_metric
    >>> m = as_metric(matthews_corrcoef)  # scikit-learn's MCC: the registered fast metric
    >>> m.name, m.greater_is_better, m.has_statistics
    ('matthews_corrcoef', True, True)
    >>> m([0, 1, 1, 0], [0, 1, 0, 0])
    0.5773502691896258
    >>> f2 = as_metric(make_scorer(fbeta_score, beta=2))
    >>> f2.name, f2.has_statistics, round(f2([0, 1, 1, 0], [0, 1, 0, 0]), 4)
    ('fbeta_score(beta=2)', True, 0.5556)
    >>> def hits(y_true, y_pred):  # a user's function: the slow path
    ...     return sum(t == p for t, p in zip(y_true, y_pred)) / len(y_true)
    >>> own = as_metric(hits)
    >>> own.name, own.has_statistics
    ('hits', False)
    >>> loss = as_metric(get_scorer("neg_log_loss"))
    >>> loss.name, loss.greater_is_better, loss.input_type, loss.has_statistics
    ('log_loss', False, 'labels_proba', True)
    """
    if isinstance(metric, (str, Metric)):
        return get_metric(metric)
    if _is_scorer(metric):
        return _scorer_metric(metric)
    if callable(metric) and not isinstance(metric, type):
        fast = sklearn_metric(metric, {}, ("predict",), greater_is_better=True)
        if fast is not None:
            return fast
        return Metric(name=_func_name(metric), score_func=CheckedScore(metric))
    raise TypeError(
        "The 'metric' parameter must be a registered metric name (str), a Metric, a "
        "scikit-learn scorer or a callable f(y_true, y_pred, **kw) -> float. "
        f"Got {type(metric).__name__} instead."
    )


def _is_scorer(obj):
    return all(hasattr(obj, a) for a in ("_score_func", "_sign", "_kwargs", "_response_method"))


def _func_name(func):
    name = getattr(func, "__name__", None)
    if not isinstance(name, str) or not name:
        name = type(func).__name__
    return name


def _display_name(func, kwargs):
    """``f`` or ``f(k=v, ...)``: the name a table shows for a function with keywords."""
    name = _func_name(func)
    if not kwargs:
        return name
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def _scorer_metric(scorer):
    kwargs = dict(scorer._kwargs or {})
    registered = getattr(scorer, "_metric_name", None)
    if isinstance(registered, str) and registered in _REGISTRY:
        base = _REGISTRY[registered]
        extra = {k: v for k, v in kwargs.items() if base.kwargs.get(k, _MISSING) is not v}
        if not extra:
            return base
        return _with(base, kwargs={**base.kwargs, **extra})
    methods = scorer._response_method
    methods = (methods,) if isinstance(methods, str) else tuple(methods)
    greater = bool(scorer._sign > 0)
    fast = sklearn_metric(scorer._score_func, kwargs, methods, greater_is_better=greater)
    if fast is not None:
        return fast
    if "predict" in methods:
        response, input_type, func = "predict", "labels", CheckedScore(scorer._score_func)
    elif "predict_proba" in methods:
        # scikit-learn's probability scorers score hard labels y
        response, input_type = "predict_proba", "labels_proba"
        func = CheckedScore(scorer._score_func, binary_column=True)
    else:
        raise ValueError(
            f"The 'metric' parameter: the scorer of {_func_name(scorer._score_func)!r} asks "
            f"for {methods}; sigtest compares predicted labels ('predict') or probabilities "
            "('predict_proba')."
        )
    return Metric(
        name=_display_name(scorer._score_func, kwargs), score_func=func,
        greater_is_better=greater, response_method=response,
        input_type=input_type, kwargs=kwargs,
    )


_MISSING = object()


def _with(base, **changes):
    """A copy of the metric ``base`` with some fields changed."""
    return Metric(**{**{f.name: getattr(base, f.name) for f in fields(base) if f.init},
                     **changes})


# ---------------------------------------------------------------- scikit-learn's metrics
_PRF = {"precision_score": "precision", "recall_score": "recall", "f1_score": "f1",
        "jaccard_score": "jaccard", "fbeta_score": "fbeta"}
_AVERAGES = ("binary", "macro", "micro", "weighted", "samples")


def _prf(func_name, kw):
    """``(registered name, fixed kwargs)`` of a P/R/F/Jaccard/F-beta call, or ``None``."""
    prefix = _PRF[func_name]
    allowed = {"average", "pos_label", "zero_division"} | ({"beta"} if prefix == "fbeta" else set())
    if not set(kw) <= allowed:
        return None  # labels=, sample_weight=: as the function would take them, slowly
    average = kw.get("average", "binary")  # scikit-learn's default
    if average not in _AVERAGES:
        return None  # None (an array) or invalid: the function says so
    extra = {}
    if prefix == "fbeta":
        beta = kw.get("beta", _MISSING)
        if (beta is _MISSING or isinstance(beta, bool) or not isinstance(beta, Real)
                or not 0 <= beta < math.inf):
            return None
        extra["beta"] = beta
    if "zero_division" in kw:
        extra["zero_division"] = kw["zero_division"]
    if average == "samples":
        if prefix == "fbeta" or "zero_division" in kw:
            return None
        return f"{prefix}_samples", {}
    if average == "binary":
        # pos_label=1 is scikit-learn's default: sigtest's rule gives 1 on {0, 1} and
        # {-1, 1} labels and asks for pos_label otherwise
        if kw.get("pos_label") is not None:
            extra["pos_label"] = kw["pos_label"]
        return prefix, extra
    return f"{prefix}_{average}", extra  # scikit-learn ignores pos_label here


def _roc_auc(kw):
    if not set(kw) <= {"multi_class", "average"}:
        return None  # max_fpr=, labels=
    multi, average = kw.get("multi_class", "raise"), kw.get("average", "macro")
    if multi == "raise":
        return "roc_auc", {}  # binary (average does not apply)
    if multi not in ("ovr", "ovo") or average not in ("macro", "weighted"):
        return None
    return f"roc_auc_{multi}" + ("_weighted" if average == "weighted" else ""), {}


def _average_precision(kw):
    """The rank path of ``average_precision_score``: binary, or one-vs-rest macro/weighted/micro."""
    if not set(kw) <= {"average", "pos_label"}:
        return None  # sample_weight= fixed in the scorer
    average = kw.get("average", "macro")
    if not isinstance(average, str) or average not in ("macro", "weighted", "micro"):
        return None  # None (an array) or "samples" (per-row rankings): the function's own path
    extra = {} if average == "macro" else {"average": average}
    if "pos_label" in kw and not _pos_label_is_one(kw["pos_label"], none=False):
        extra["pos_label"] = kw["pos_label"]  # an explicit None included
    return "average_precision", extra


def _fixed(target, allowed=frozenset(), defaults=None):
    """A rule mapping a call whose keywords are in ``allowed`` to ``target``."""
    def rule(kw):
        kw = {k: v for k, v in kw.items() if (defaults or {}).get(k, _MISSING) is not v}
        if not set(kw) <= allowed:
            return None
        return target, dict(kw)
    return rule


#: scikit-learn metric functions that sigtest computes on sufficient
#: statistics (or sorted once): function name -> rule turning the call's
#: keywords into ``(registered metric, fixed keywords)`` or ``None`` (slow).
SKLEARN_FAST = {
    **{name: (lambda kw, _n=name: _prf(_n, kw)) for name in _PRF},
    "accuracy_score": _fixed("accuracy", defaults={"normalize": True}),
    "balanced_accuracy_score": _fixed("balanced_accuracy", frozenset({"adjusted"})),
    "matthews_corrcoef": _fixed("matthews_corrcoef"),
    "cohen_kappa_score": _fixed("cohen_kappa", frozenset({"weights"})),
    "positive_likelihood_ratio": _fixed("positive_likelihood_ratio"),
    "negative_likelihood_ratio": _fixed("negative_likelihood_ratio"),
    "roc_auc_score": _roc_auc,
    "average_precision_score": _average_precision,
    "log_loss": _fixed("log_loss", frozenset({"labels"})),
    "brier_score_loss": _fixed("brier_score", frozenset({"labels", "scale_by_half",
                                                        "pos_label"})),
    "d2_log_loss_score": _fixed("d2_log_loss_score", frozenset({"labels"})),
    "d2_brier_score": _fixed("d2_brier_score", frozenset({"labels", "pos_label"})),
    "top_k_accuracy_score": _fixed("top_k_accuracy", frozenset({"labels", "k"})),
    "r2_score": _fixed("r2", frozenset({"force_finite"})),
    "explained_variance_score": _fixed("explained_variance", frozenset({"force_finite"})),
    **{name: _fixed(name) for name in (
        "mean_absolute_error", "mean_squared_error", "root_mean_squared_error",
        "mean_squared_log_error", "root_mean_squared_log_error",
        "mean_absolute_percentage_error", "mean_poisson_deviance", "mean_gamma_deviance")},
}

#: The modules the functions of :data:`SKLEARN_FAST` are defined in (the
#: likelihood ratios' scorer functions live in scikit-learn's private ``_scorer``).
_SKLEARN_MODULES = ("sklearn.metrics",)


def _is_sklearn_function(func, name):
    """Whether ``func`` is scikit-learn's own function ``name`` (never a wrapper)."""
    module = getattr(func, "__module__", None)
    if not isinstance(module, str) or not module.startswith(_SKLEARN_MODULES):
        return False
    owner = sys.modules.get(module)
    return owner is not None and getattr(owner, name, None) is func


def sklearn_metric(func, kwargs, methods, *, greater_is_better):
    """The fast metric computing scikit-learn's ``func(**kwargs)``, or ``None``.

    Parameters
    ----------
    func : callable
        A scikit-learn metric function (the score function of a scorer).
    kwargs : dict
        Its fixed keywords.
    methods : tuple of str
        The response methods the scorer asks for (a plain callable:
        ``("predict",)``): a metric is mapped only when it reads the same
        response (hard labels from ``predict``, scores from
        ``predict_proba``/``decision_function``).
    greater_is_better : bool
        The orientation the caller gives (a scorer's sign).

    Returns
    -------
    Metric or None
        The registered metric when the call is its configuration (same
        keywords, same orientation); else a copy with the keywords, named
        ``f(k=v, ...)``; ``None`` when sigtest does not compute it the same
        way (the slow path then calls ``func``).
    """
    name = getattr(func, "__name__", None)
    rule = SKLEARN_FAST.get(name) if isinstance(name, str) else None
    if rule is None or not _is_sklearn_function(func, name):
        return None
    resolved = rule(dict(kwargs))
    if resolved is None:
        return None
    target, extra = resolved
    fbeta = "beta" in extra
    base = get_metric(target.replace("fbeta", "f1", 1))  # F-beta: F1's statistics
    wanted = "predict" if base.response_method == "predict" else "predict_proba"
    if wanted not in methods and not (wanted == "predict_proba"
                                      and "decision_function" in methods):
        return None
    if not fbeta and not extra and greater_is_better == base.greater_is_better:
        return base
    changes = {"name": _display_name(func, kwargs), "greater_is_better": greater_is_better,
               "kwargs": {**base.kwargs, **extra}}
    if fbeta:
        changes.update(score_func=_fbeta_score, aggregate=_fbeta_aggregate, decomposable=False,
                       description="F-beta (1 + b^2) TP / (b^2 true + pred), "
                       f"{base.kwargs.get('average')}, in [0, 1]")
    return _with(base, **changes)
