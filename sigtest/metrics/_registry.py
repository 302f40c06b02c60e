"""The metric registry and the sufficient-statistic contract.

Every metric sigtest knows is a :class:`Metric`. Built-in metrics (and fast
user metrics) are defined by two functions:

``statistics(y_true, y_pred, **params) -> ndarray of shape (n_samples, s)``
    Per-instance sufficient statistics, float64. They must be *additive*: the
    metric of any multiset of instances (a bootstrap resample, a permutation,
    a jackknife leave-one-out set, a weighted sample) is
    ``aggregate(sum of its rows)``. A count column (ones) is included where the
    metric needs the number of instances, so ``aggregate`` needs nothing else.

``aggregate(sums, **params) -> ndarray of shape sums.shape[:-1]``
    Maps column sums to metric values, vectorised over any leading batch axes
    (the significance engine calls it once on a ``(n_resamples, s)`` array).

Both functions receive the same keyword parameters (the metric's fixed
``kwargs`` merged with the call's), and must accept and ignore the ones they
do not use (``**params``). Hard-label metrics receive ``labels``: the full,
fixed label set, so that two systems and every resample are averaged over the
same classes. ``zero_division="warn"`` makes ``aggregate`` fill 0/0 with 0.0
and warn once; the engine passes ``zero_division=0.0`` for resamples so that
they fill silently.

``cellwise=True`` declares that a row's statistics depend only on the pair
(true label, predicted label). The engine then compresses ``N`` items into at
most ``K**3`` cells (true, A, B) and resamples cells instead of items.

``decomposable=True`` declares that the score is a weighted mean of per-item
values: with ``v_i = aggregate(statistics row i)``, the score of items with
weights ``w_i`` is ``sum_i w_i v_i / sum_i w_i`` (accuracy, soft accuracy,
PO-JSD, cross entropy, JSD). The classical tests on per-item differences
(sign, Wilcoxon, paired t) need it; a macro-average or a correlation is not
such a mean.

``ranking(y_true, y_pred, **params) -> RankedScores`` (optional, for a
metric without statistics such as ROC AUC or average precision): the
system's scores sorted once (:class:`sigtest.metrics._ranking.RankedScores`),
from which the engine computes the metric under any vector of item weights
(bootstrap multiplicities, Bayesian-bootstrap weights, a permutation's
merged order) in one pass over the sorted order, without calling
``score_func`` or sorting again. ``score_func`` must equal the ranking's
value with the item weights ``sample_weight``.

A metric registered with only a ``score_func`` is valid too: the engine then
falls back to calling it on resampled index batches (slow path). Such a
plain callable (e.g. ``sklearn.metrics.matthews_corrcoef``) is wrapped in
:class:`PlainScore` and called with only the keyword arguments its signature
accepts: the class set ``labels`` that sigtest fixes internally is not
passed to a function that cannot take it, and any other keyword it cannot
take (``sample_weight``, ``zero_division``, a fixed ``kwargs`` entry) is a
``TypeError`` naming the keyword.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from sigtest.utils._names import did_you_mean, plain

__all__ = [
    "Metric",
    "register_metric",
    "unregister_metric",
    "get_metric",
    "get_metric_names",
    "PlainScore",
    "CheckedScore",
]

_INPUT_TYPES = ("labels", "proba", "multilabel", "regression", "labels_proba", "scores")
_RESPONSE_METHODS = ("predict", "predict_proba", "decision_function")


@dataclass(frozen=True)
class Metric:
    """A registered evaluation metric.

    Parameters
    ----------
    name : str
        Registry key. A loss is registered under its plain name (``"jsd"``);
        its scikit-learn scorer is named ``"neg_" + name``.
    score_func : callable
        ``score_func(y_true, y_pred, *, sample_weight=None, **kwargs) -> float``,
        compatible with :func:`sklearn.metrics.make_scorer`.
    greater_is_better : bool, default=True
        Orientation. ``False`` for losses: "system B is better" then means a
        lower value, and every significance test respects it.
    response_method : {"predict", "predict_proba", "decision_function"}
        What a scorer asks the estimator for.
    input_type : {"labels", "proba", "multilabel", "regression", "labels_proba", "scores"}
        ``"labels"``: 1-D hard labels (2-D scores are reduced by argmax).
        ``"proba"``: ``(n_samples, n_classes)`` distributions, rows sum to 1.
        ``"multilabel"``: ``(n_samples, n_labels)`` values in [0, 1].
        ``"regression"``: 1-D real targets and predictions (``predict``).
        ``"labels_proba"``: hard labels ``y_true`` scored by ``y_pred`` of
        shape ``(n_samples, n_classes)`` or, binary, ``(n_samples,)``
        (scikit-learn's probability scorers; checked by
        ``sigtest.metrics._check_scores.check_labels_proba``).
        ``"scores"``: 1-D per-item scores as the predictions and
        ``y_true=None`` (:mod:`sigtest.metrics._scores`).
    statistics, aggregate : callable or None
        The sufficient-statistic pair described in the module docstring.
    cellwise : bool, default=False
        Row statistics depend only on (true label, predicted label).
    kwargs : mapping
        Fixed keyword parameters (e.g. ``{"average": "macro"}``).
    description : str
        One line for tables and the docs.
    decomposable : bool, default=False
        The score is the weighted mean of per-item values,
        ``sum_i w_i v_i / sum_i w_i`` with ``v_i`` = ``aggregate`` of
        statistics row ``i`` and ``w_i`` the sample weight (1 by default).
        Tests on per-item differences
        (:class:`~sigtest.SignTest`, :class:`~sigtest.WilcoxonSignedRank`,
        :class:`~sigtest.PairedTTest`) require it. Requires ``statistics``.
    ranking : callable or None, default=None
        ``ranking(y_true, y_pred, **params) -> RankedScores`` for a metric
        without statistics whose value is a weighted rank statistic (ROC
        AUC, average precision): the engine's fast resampling path (see the
        module docstring). Not together with ``statistics``.
    """

    name: str
    score_func: Callable[..., float]
    greater_is_better: bool = True
    response_method: str = "predict"
    input_type: str = "labels"
    statistics: Callable[..., np.ndarray] | None = None
    aggregate: Callable[..., np.ndarray] | None = None
    cellwise: bool = False
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    decomposable: bool = False
    ranking: Callable[..., Any] | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Metric 'name' must be a non-empty str. Got {self.name!r}.")
        if not callable(self.score_func):
            raise TypeError(
                f"Metric 'score_func' must be callable. Got {type(self.score_func).__name__}."
            )
        if self.response_method not in _RESPONSE_METHODS:
            raise ValueError(
                f"Metric 'response_method' must be one of {_RESPONSE_METHODS}. "
                f"Got {self.response_method!r}."
            )
        if self.input_type not in _INPUT_TYPES:
            raise ValueError(
                f"Metric 'input_type' must be one of {_INPUT_TYPES}. Got {self.input_type!r}."
            )
        if (self.statistics is None) != (self.aggregate is None):
            raise ValueError(
                "Metric 'statistics' and 'aggregate' must be given together "
                "(both or neither)."
            )
        for attr in ("statistics", "aggregate"):
            value = getattr(self, attr)
            if value is not None and not callable(value):
                raise TypeError(f"Metric {attr!r} must be callable. Got {type(value).__name__}.")
        if self.cellwise and self.statistics is None:
            raise ValueError("Metric 'cellwise=True' requires 'statistics' and 'aggregate'.")
        if not isinstance(self.decomposable, (bool, np.bool_)):
            raise TypeError(
                f"Metric 'decomposable' must be a bool. Got {type(self.decomposable).__name__}."
            )
        if self.decomposable and self.statistics is None:
            raise ValueError(
                "Metric 'decomposable=True' requires 'statistics' and 'aggregate' (the "
                "per-item value of row i is aggregate(statistics row i))."
            )
        if self.ranking is not None and (self.statistics is not None
                                         or not callable(self.ranking)):
            raise ValueError("Metric 'ranking' must be a callable, and only for a metric "
                             "without 'statistics'.")
        if self.statistics is None and not isinstance(self.score_func, PlainScore):
            object.__setattr__(self, "score_func", PlainScore(self.score_func))
        if isinstance(self.score_func, PlainScore):
            bad = [k for k in self.kwargs if not self.score_func.accepts(k)]
            if bad:
                raise TypeError(
                    f"Metric {self.name!r}: its score_func "
                    f"{self.score_func.__name__!r} does not accept the fixed keyword "
                    f"argument(s) {bad}."
                )
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))

    def __reduce__(self):
        # the read-only kwargs view cannot be pickled: rebuild from a plain dict
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        values["kwargs"] = dict(self.kwargs)
        return (_rebuild_metric, (values,))

    @property
    def has_statistics(self) -> bool:
        """Whether the fast sufficient-statistic path is available."""
        return self.statistics is not None

    @property
    def scorer_name(self) -> str:
        """Name of the scikit-learn scorer (``neg_`` prefix for losses)."""
        return self.name if self.greater_is_better else "neg_" + self.name

    def params(self, **params) -> dict:
        """Fixed ``kwargs`` merged with call-time ``params`` (call wins).

        Parameters
        ----------
        **params
            Call-time metric keyword arguments.

        Returns
        -------
        params : dict
            ``{**self.kwargs, **params}``.
        """
        return {**self.kwargs, **params}

    def __call__(self, y_true, y_pred, **params) -> float:
        """Score ``y_pred`` against ``y_true`` with the fixed and given params."""
        return self.score_func(y_true, y_pred, **self.params(**params))


_REGISTRY: dict[str, Metric] = {}

#: The ``aggregate`` functions of the built-in metrics (filled by
#: :mod:`sigtest.metrics._builtin`), recognised by identity.
_BUILTIN_AGGREGATES: list = []


def is_builtin_aggregate(func):
    """Whether ``func`` is the ``aggregate`` of a built-in metric.

    Decided by identity with the functions the built-in metrics registered,
    never by a module name: a user function may have any ``__module__``
    (``None`` for one defined through ``exec`` with fresh globals), and one
    defined in a module named like sigtest's is still a user function.

    Parameters
    ----------
    func : callable or None

    Returns
    -------
    bool
    """
    return any(func is f for f in _BUILTIN_AGGREGATES)


def _mark_builtin():
    """Record the ``aggregate`` of every metric registered so far as built-in."""
    _BUILTIN_AGGREGATES[:] = list({id(m.aggregate): m.aggregate for m in _REGISTRY.values()
                                   if m.aggregate is not None}.values())


def register_metric(
    name,
    score_func=None,
    *,
    greater_is_better=True,
    response_method=None,
    input_type="labels",
    statistics=None,
    aggregate=None,
    cellwise=False,
    decomposable=False,
    description="",
    overwrite=False,
    ranking=None,
    **kwargs,
):
    """Register a metric under ``name``; usable as a decorator.

    Parameters
    ----------
    name : str
        Registry key. For a loss (``greater_is_better=False``) give the plain
        name; the scorer is then ``"neg_" + name``.
    score_func : callable, optional
        ``score_func(y_true, y_pred, **kwargs) -> float``. If omitted while
        ``statistics`` and ``aggregate`` are given, it is derived from them.
        If omitted altogether, ``register_metric`` returns a decorator.
    greater_is_better : bool, default=True
        ``False`` for a loss (lower is better).
    response_method : str, optional
        Defaults to ``"predict"`` for ``input_type="labels"``,
        ``"regression"`` or ``"scores"`` and ``"predict_proba"`` otherwise.
    input_type : {"labels", "proba", "multilabel", "regression", "labels_proba", "scores"}, default="labels"
    statistics, aggregate : callable, optional
        The fast path (see :mod:`sigtest.metrics`).
    cellwise : bool, default=False
        Row statistics depend only on (true label, predicted label); the
        engine then computes them once per occupied cell.
    decomposable : bool, default=False
        The score is a weighted mean of per-item values ``aggregate(row)``
        (see :class:`Metric`).
    description : str, default=""
        One line for tables and the docs.
    overwrite : bool, default=False
        Replace an existing entry instead of raising ``ValueError``.
    ranking : callable, optional
        The sorted form of a rank metric without statistics (see
        :class:`Metric`): the engine's fast resampling path.
    **kwargs
        Fixed keyword parameters passed to ``score_func``/``statistics``/
        ``aggregate``.

    Returns
    -------
    metric : Metric
        (or a decorator returning ``score_func`` unchanged).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics import register_metric, get_metric, unregister_metric
    >>> @register_metric("my_error_rate", greater_is_better=False)
    ... def my_error_rate(y_true, y_pred, sample_weight=None):
    ...     return float(np.average(np.asarray(y_true) != np.asarray(y_pred),
    ...                             weights=sample_weight))
    >>> get_metric("neg_my_error_rate").name
    'my_error_rate'
    >>> unregister_metric("my_error_rate")
    """
    if score_func is None and statistics is None:

        def decorator(func):
            register_metric(
                name,
                func,
                greater_is_better=greater_is_better,
                response_method=response_method,
                input_type=input_type,
                statistics=statistics,
                aggregate=aggregate,
                cellwise=cellwise,
                decomposable=decomposable,
                description=description,
                overwrite=overwrite,
                ranking=ranking,
                **kwargs,
            )
            return func

        return decorator

    if not isinstance(name, str) or not name:
        raise ValueError(f"The 'name' parameter must be a non-empty str. Got {name!r} instead.")
    if name.startswith("neg_"):
        raise ValueError(
            f"The 'name' parameter must not start with 'neg_' (got {name!r}); register a "
            "loss under its plain name with greater_is_better=False."
        )
    if name in _REGISTRY and not overwrite:
        raise ValueError(
            f"A metric named {name!r} is already registered; pass overwrite=True to replace it."
        )
    if response_method is None:
        response_method = ("predict" if input_type in ("labels", "regression", "scores")
                           else "predict_proba")
    if score_func is None:
        score_func = score_from_statistics(statistics, aggregate)
    metric = Metric(
        name=name,
        score_func=score_func,
        greater_is_better=greater_is_better,
        response_method=response_method,
        input_type=input_type,
        statistics=statistics,
        aggregate=aggregate,
        cellwise=cellwise,
        kwargs=kwargs,
        description=description,
        decomposable=decomposable,
        ranking=ranking,
    )
    _REGISTRY[name] = metric
    return metric


def unregister_metric(name):
    """Remove a metric from the registry.

    Parameters
    ----------
    name : str
        The metric's name (or its scorer name ``neg_<name>`` for a loss).

    Raises
    ------
    ValueError
        If no such metric is registered.

    Examples
    --------
    >>> from sklearn.metrics import accuracy_score
    >>> from sigtest.metrics import get_metric_names, register_metric, unregister_metric
    >>> _ = register_metric("my_accuracy", accuracy_score)
    >>> unregister_metric("my_accuracy")
    >>> "my_accuracy" in get_metric_names()
    False
    """
    metric = get_metric(name)
    del _REGISTRY[metric.name]


def get_metric(name):
    """Return the :class:`Metric` registered under ``name``.

    Parameters
    ----------
    name : str or Metric
        A metric name (``"jsd"``), its scorer name (``"neg_jsd"``), or a
        :class:`Metric`, returned unchanged.

    Returns
    -------
    metric : Metric
        The registered metric (a loss found by its scorer name is the plain
        loss, ``greater_is_better=False``).

    Raises
    ------
    ValueError
        If ``name`` is unknown; the message lists :func:`get_metric_names`.

    Examples
    --------
    >>> from sigtest.metrics import get_metric
    >>> get_metric("f1_macro").greater_is_better
    True
    >>> loss = get_metric("neg_jsd")  # a loss by its scorer name
    >>> loss.name, loss.greater_is_better
    ('jsd', False)
    """
    if isinstance(name, Metric):
        return name
    if not isinstance(name, str):
        raise TypeError(
            "The 'metric' parameter must be a registered metric name (str) or a Metric. "
            f"Got {type(name).__name__} instead."
        )
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name.startswith("neg_"):
        loss = _REGISTRY.get(name[4:])
        if loss is not None and not loss.greater_is_better:
            return loss
    names = get_metric_names()
    scorer_names = [f"neg_{n}" for n in names if not _REGISTRY[n].greater_is_better]
    raise ValueError(
        f"{plain(name)!r} is not a known metric.{did_you_mean(name, names + scorer_names)} "
        f"Valid names are: {names} (a loss is also accepted as its scorer name 'neg_<name>')."
    )


def get_metric_names():
    """Sorted list of registered metric names.

    Returns
    -------
    names : list of str
        Losses appear under their plain name (``"jsd"``), not ``"neg_jsd"``.

    Examples
    --------
    >>> from sigtest.metrics import get_metric_names
    >>> get_metric_names()[:3]
    ['accuracy', 'average_precision', 'balanced_accuracy']
    """
    return sorted(_REGISTRY)


def score_from_statistics(statistics, aggregate):
    """Build a ``score_func`` from a statistics/aggregate pair.

    The returned callable computes ``aggregate((w[:, None] * stats).sum(0))``;
    with integer weights this equals the metric on repeated rows. It is a
    module-level class instance, so scorers built on it pickle whenever the
    two functions do.
    """
    return _StatisticsScore(statistics, aggregate)


class _StatisticsScore:
    """Picklable ``score_func`` derived from a statistics/aggregate pair."""

    def __init__(self, statistics, aggregate):
        self.statistics = statistics
        self.aggregate = aggregate
        self.__name__ = getattr(aggregate, "__name__", "score_func")

    def __call__(self, y_true, y_pred, *, sample_weight=None, **params):
        stats = self.statistics(y_true, y_pred, **params)
        sums = weighted_column_sums(stats, sample_weight)
        return float(self.aggregate(sums, **params))

    def __eq__(self, other):
        # equal after a pickle round trip (a metric registered without score_func)
        return (isinstance(other, _StatisticsScore) and other.statistics == self.statistics
                and other.aggregate == self.aggregate)

    def __hash__(self):
        return hash((self.statistics, self.aggregate))

    def __repr__(self):
        return f"score_from_statistics({self.statistics!r}, {self.aggregate!r})"


class PlainScore:
    """A plain ``score_func`` called with only the keywords it accepts.

    Parameters
    ----------
    func : callable
        ``func(y_true, y_pred, **kwargs) -> float``, e.g.
        :func:`sklearn.metrics.matthews_corrcoef`.

    Notes
    -----
    ``labels`` (the class set that :func:`sigtest.compare` and the tests fix
    for hard-label metrics) is dropped when ``func`` cannot take it; any
    other keyword ``func`` cannot take raises ``TypeError`` naming it, so
    that an argument the user gave is never ignored silently. A function
    with ``**kwargs`` (or whose signature cannot be read) gets everything.

    Examples
    --------
    >>> from sklearn.metrics import matthews_corrcoef
    >>> from sigtest.metrics._registry import PlainScore
    >>> mcc = PlainScore(matthews_corrcoef)
    >>> mcc([0, 1, 1, 0], [0, 1, 1, 0], labels=[0, 1])
    1.0
    """

    #: Keywords sigtest passes on its own, dropped when ``func`` cannot take them.
    internal = frozenset({"labels"})

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"The 'func' parameter must be callable. Got {type(func).__name__}.")
        self.func = func
        self.__name__ = getattr(func, "__name__", type(func).__name__)
        self.__wrapped__ = func
        try:
            params = inspect.signature(func).parameters.values()
        except (TypeError, ValueError):  # builtins without a signature
            self._accepted = None
        else:
            if any(p.kind == p.VAR_KEYWORD for p in params):
                self._accepted = None
            else:
                self._accepted = frozenset(
                    p.name for p in params
                    if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                )

    def accepts(self, name):
        """Whether ``func`` takes the keyword argument ``name``."""
        return self._accepted is None or name in self._accepted

    def _keywords(self, kwargs):
        if self._accepted is not None:
            bad = [k for k in kwargs if k not in self._accepted and k not in self.internal]
            if bad:
                raise TypeError(
                    f"The metric function {self.__name__!r} does not accept the keyword "
                    f"argument(s) {bad}; remove them (or register a function that takes "
                    "them)."
                )
            kwargs = {k: v for k, v in kwargs.items() if k in self._accepted}
        return kwargs

    def __call__(self, y_true, y_pred, **kwargs):
        return self.func(y_true, y_pred, **self._keywords(kwargs))

    def __eq__(self, other):
        return type(other) is type(self) and other.func == self.func

    def __hash__(self):
        return hash(self.func)

    def __repr__(self):
        return f"{type(self).__name__}({self.func!r})"


class CheckedScore(PlainScore):
    """A user's score function given as ``metric=``: :class:`PlainScore` that checks its result.

    Parameters
    ----------
    func : callable
        ``func(y_true, y_pred, **kwargs) -> float``.
    binary_column : bool, default=False
        For a scikit-learn scorer that asks for probabilities: a 2-column
        ``y_pred`` (a binary problem) is passed as its second column, the
        probability of the positive class, as scikit-learn's scorer does.

    Notes
    -----
    The function raising, or returning anything but a real scalar, is a
    ``ValueError`` naming the ``metric`` parameter and the function (the
    original exception chained). A keyword the function does not take is
    the ``TypeError`` of :class:`PlainScore`.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest.metrics._registry import CheckedScore
    >>> CheckedScore(lambda y, p: np.asarray(y) == p)([0, 1], [0, 0])
    Traceback (most recent call last):
    ...
    ValueError: The 'metric' function '<lambda>' must return a real scalar; it returned an array of shape (2,).
    """

    def __init__(self, func, binary_column=False):
        super().__init__(func)
        self.binary_column = bool(binary_column)

    def __call__(self, y_true, y_pred, **kwargs):
        kwargs = self._keywords(kwargs)
        if self.binary_column and np.ndim(y_pred) == 2 and np.shape(y_pred)[1] == 2:
            y_pred = np.asarray(y_pred)[:, 1]
        try:
            value = self.func(y_true, y_pred, **kwargs)
        except Exception as exc:
            raise ValueError(
                f"The 'metric' function {self.__name__!r} raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if np.ndim(value) != 0:
            raise ValueError(
                f"The 'metric' function {self.__name__!r} must return a real scalar; it "
                f"returned an array of shape {np.shape(value)}."
            )
        if isinstance(value, np.ndarray):
            value = value[()]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            # float("0.5") and float(True) would score a string or a bool
            raise ValueError(
                f"The 'metric' function {self.__name__!r} must return a real scalar; it "
                f"returned {type(value).__name__} {value!r}."
            )
        return float(value)

    def __eq__(self, other):
        return super().__eq__(other) and other.binary_column == self.binary_column

    def __hash__(self):
        return hash((self.func, self.binary_column))


def weighted_column_sums(stats, sample_weight=None):
    """Column sums of ``stats``, rows weighted by ``sample_weight`` if given."""
    stats = np.asarray(stats, dtype=np.float64)
    if sample_weight is None:
        return stats.sum(axis=0)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != stats.shape[0]:
        raise ValueError(
            "The 'sample_weight' parameter must be 1-D with one weight per sample "
            f"({stats.shape[0]}). Got shape {w.shape} instead."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("The 'sample_weight' parameter must be finite and non-negative.")
    return w @ stats


def _rebuild_metric(values):
    """Unpickle a :class:`Metric` (see ``Metric.__reduce__``)."""
    return Metric(**values)
