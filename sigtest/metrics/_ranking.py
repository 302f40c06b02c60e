r"""Ranking metrics of hard labels and scores: ROC AUC and average precision.

Both are functions of the items' order by score, so they have no additive
sufficient statistics. Instead every metric here has a :class:`RankedScores`
form, computed once per system by :func:`ranked_scores`: the items sorted by
score (descending) within one or more binary *components* (one for a binary
task; one per class for one-vs-rest; two per pair of classes for
one-vs-one), with their positive flags. From it the value for **any vector
of item weights** :math:`q` (sample weights times bootstrap multiplicities,
Bayesian-bootstrap weights) is one pass over the sorted order, without
sorting again (:func:`ranked_value`; the engine's numba kernels in
:mod:`sigtest._engine.rank_metrics` do the same per resample).

Per binary component with positive weight :math:`P = \sum_{i: y_i = 1} q_i`,
negative weight :math:`N_0 = \sum_{j: y_j = 0} q_j`, and tie groups
:math:`g` of equal scores (in descending order, with positive and negative
weights :math:`p_g, n_g`):

.. math:: \mathrm{AUC} = \frac{1}{P N_0} \sum_g n_g \Big(\sum_{h < g} p_h
          + \tfrac12 p_g\Big), \qquad
          \mathrm{AP} = \frac{1}{P} \sum_g p_g\,
          \frac{\sum_{h \le g} p_h}{\sum_{h \le g} (p_h + n_h)},

the weighted Mann-Whitney statistic (ties count one half; Hanley & McNeil
1982), which equals scikit-learn's trapezoidal ``roc_auc_score``, and
scikit-learn's step-wise ``average_precision_score`` (no interpolation:
:math:`\sum_k (R_k - R_{k-1}) P_k` over the distinct thresholds; a tie
group of zero weight is no threshold, as scikit-learn drops zero-weight
items).

Multiclass (2-D probabilities, rows summing to 1, as scikit-learn requires
for the AUCs; any real scores for average precision):
``roc_auc_ovr`` is the mean over classes :math:`k` of the AUC of class
:math:`k` against the rest scored by column :math:`k` (``_weighted``: the
mean weighted by the classes' weighted prevalence); ``roc_auc_ovo`` is the
mean over pairs :math:`(j, k)` of :math:`(\mathrm{AUC}_{j|k} +
\mathrm{AUC}_{k|j}) / 2` on the items of classes :math:`j` and :math:`k`
(Hand & Till 2001; ``_weighted``: weighted by the pair's share of the
items). scikit-learn refuses ``sample_weight`` for one-vs-one; so does
sigtest (the resampling multiplicities are the weights of repeated items,
which scikit-learn computes on the repeated data). ``average_precision``
on a multiclass task is one-vs-rest, as scikit-learn's
``average_precision_score`` (which binarizes the labels): the mean over the
classes of the class's AP scored by its column (``average="macro"``), weighted
by the classes' positive weight (``"weighted"``), or one AP over every
(item, class) entry (``"micro"``: the classes pooled into one ranking).

Undefined values follow scikit-learn 1.9: an AUC whose ``y_true`` holds one
class is ``nan`` with an ``UndefinedMetricWarning`` (and so is a
multiclass AUC with a class of ``labels`` absent from ``y_true``); average
precision without positives is 0.0 with a warning (scikit-learn: "No
positive class found in y_true"); resamples fill silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from sigtest.metrics._common import warn_undefined
from sigtest.utils._names import plain
from sigtest.metrics._check_proba import check_proba
from sigtest.metrics._check_scores import check_labels_proba
from sigtest.metrics._registry import PlainScore

__all__ = [
    "RankedScores",
    "average_precision_ranking",
    "average_precision_score",
    "average_precision_value_and_ranking",
    "ranked_scores",
    "ranked_value",
    "roc_auc_ranking",
    "roc_auc_score",
    "roc_auc_value_and_ranking",
    "value_and_ranking",
]

_KINDS = ("roc_auc", "average_precision")
#: Unit weighting codes of :class:`RankedScores` (also read by the numba kernels).
WEIGHTING_MEAN, WEIGHTING_POSITIVES, WEIGHTING_ITEMS = 0, 1, 2
_MULTI = {"ovr": WEIGHTING_POSITIVES, "ovo": WEIGHTING_ITEMS}


@dataclass(frozen=True)
class RankedScores:
    """One system's scores sorted once: the input of every weighted evaluation.

    Parameters
    ----------
    kind : {"roc_auc", "average_precision"}
    values : ndarray of shape (L,)
        Scores, sorted descending within each component.
    items : ndarray of shape (L,), int64
        The item (row of ``y_true``) of every entry.
    positive : ndarray of shape (L,), uint8
        1 for an entry of the component's positive class.
    starts : ndarray of shape (C + 1,), int64
        Component ``c`` holds the entries ``starts[c]:starts[c + 1]``.
    unit : ndarray of shape (C,), int64
        The averaging unit of every component (the class for one-vs-rest,
        the pair for one-vs-one; the value of a unit is the mean of its
        components').
    n_units : int
    weighting : int
        0: plain mean over units; 1: weighted by the units' positive weight
        (one-vs-rest ``weighted``); 2: weighted by the units' item weight
        (one-vs-one ``weighted``).
    n_items : int
        ``N``, the number of items.
    """

    kind: str
    values: np.ndarray
    items: np.ndarray
    positive: np.ndarray
    starts: np.ndarray
    unit: np.ndarray
    n_units: int
    weighting: int
    n_items: int

    @property
    def n_components(self):
        return self.unit.shape[0]

    def tie_starts(self):
        """1 where an entry starts a new tie group of its component, else 0 (uint8)."""
        v = self.values
        new = np.ones(v.shape[0], dtype=np.uint8)
        new[1:] = v[1:] != v[:-1]
        first = self.starts[:-1]
        new[first[first < v.shape[0]]] = 1
        return new


def _sorted_component(values, items, positive):
    order = np.argsort(-values, kind="stable")
    return values[order], items[order], positive[order]


def _pos_label_is_one(pos_label, *, none):
    """Whether ``pos_label`` is scikit-learn's default ``1`` (a number equal to 1, not a bool).

    ``True == 1`` in Python, but ``pos_label=True`` names the class ``True``
    (scikit-learn's ``"boolean"`` option), so a bool is never the default.

    Parameters
    ----------
    pos_label : label or None
    none : bool
        The answer for ``None``, which the two callers read differently:

        * :func:`average_precision_ranking` (a multiclass ``y_true``, where
          ``pos_label`` must be 1): ``none=True``, ``None`` is "not given",
          i.e. the default, so it passes (the binary path reads it as 1 too);
        * the ``average_precision_score`` rule of
          :func:`sigtest.metrics.as_metric`: ``none=False``, an explicit
          ``pos_label=None`` is not scikit-learn's default, so it is kept as
          a fixed keyword of the metric (only a default 1 is dropped).

    Returns
    -------
    bool
    """
    if pos_label is None:
        return none
    return pos_label == 1 and not isinstance(pos_label, bool)


def _check_multiclass_ap(average, pos_label, metric):
    """The parameters of a multiclass (one-vs-rest) average precision."""
    if average not in ("macro", "weighted", "micro"):
        raise ValueError(f"Metric {metric!r}: 'average' must be 'macro', 'weighted' or "
                         f"'micro' for a multiclass task. Got {average!r}.")
    if not _pos_label_is_one(pos_label, none=True):
        raise ValueError(
            f"Metric {metric!r}: 'pos_label' is fixed to 1 for a multiclass 'y_true' "
            f"(each class in turn is the positive one, as scikit-learn); got {pos_label!r}.")


def ranked_scores(y_true, y_score, *, kind="roc_auc", multi_class=None, average="macro",
                  labels=None, pos_label=None, metric=None):
    """Sort one system's scores once: the :class:`RankedScores` of a ranking metric.

    The input is checked by the one check of hard labels scored by
    probabilities or scores,
    :func:`sigtest.metrics._check_scores.check_labels_proba` (binary: any
    finite real scores; multiclass: probabilities). That check reads the
    class set once (``labels``, or the classes of ``y_true``); whether the
    task is binary or multiclass is decided on it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Hard labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        Binary: a real score of the positive class (any scale; a decision
        function) or a 2-column ``predict_proba``. Multiclass: probabilities
        (average precision: any real scores, one column per class).
    kind : {"roc_auc", "average_precision"}
    multi_class : {None, "ovr", "ovo"}
        ``None``: binary (a class set of three or more classes is an
        error). Ignored when the class set has two classes (the binary
        metric, as scikit-learn).
    average : {"macro", "weighted", "micro"}
        Averaging over the classes or pairs of a multiclass metric;
        ``"micro"`` (one-vs-rest only) pools every (item, class) entry into
        one binary component, as scikit-learn ravels the binarized labels.
        Average precision checks it here, on a multiclass class set only
        (a binary task ignores it, as scikit-learn).
    labels : array-like, optional
        The class set, sorted (the columns of a 2-D ``y_score``); default:
        the classes of ``y_true``.
    pos_label : label, optional
        Average precision: the positive class of a binary task (default
        ``1``, as scikit-learn); a multiclass one takes only 1 (or ``None``).
        ROC AUC: ignored, the positive class is the second (greater) one.
    metric : str, optional
        Name used in error messages.

    Returns
    -------
    RankedScores
    """
    metric = metric or kind
    if kind not in _KINDS:
        raise ValueError(f"The 'kind' parameter must be one of {_KINDS}. Got {kind!r}.")
    # the one reading of the class set (labels, or y_true's classes)
    codes, s, classes = check_labels_proba(y_true, y_score, labels=labels, metric=metric,
                                           kind="scores", complete_binary=True)
    n = codes.shape[0]
    K = classes.shape[0]
    items = np.arange(n, dtype=np.int64)
    if K == 2:
        multi_class = None  # scikit-learn ignores multi_class (and average) on binary y
    if multi_class is None:
        if K != 2:
            raise ValueError(
                f"The 'y_true' parameter of metric {metric!r} holds {K} classes, but the "
                "metric is binary; use 'roc_auc_ovr' / 'roc_auc_ovo' with 2-D "
                "probabilities for a multiclass task."
            )
        positive = 1
        if kind == "average_precision":
            pos_label = 1 if pos_label is None else pos_label
            if pos_label not in classes.tolist():
                raise ValueError(
                    f"Metric {metric!r}: pos_label={plain(pos_label)!r} is not a valid label; the "
                    f"classes are {classes.tolist()} (pass pos_label=...)."
                )
            positive = classes.tolist().index(pos_label)
        if s.ndim == 2:  # a 1-D score is the score of the positive class (scikit-learn)
            s = s[:, positive]
        v, it, p = _sorted_component(s, items, (codes == positive).astype(np.uint8))
        return RankedScores(kind, v, it, p, np.array([0, n], dtype=np.int64),
                            np.zeros(1, dtype=np.int64), 1, WEIGHTING_MEAN, n)
    # K >= 3 here, so s is (n, K): check_labels_proba refuses a 1-D score of 3+ classes
    if kind == "average_precision":
        _check_multiclass_ap(average, pos_label, metric)
    else:  # scikit-learn's multiclass AUCs need probabilities; its average precision any scores
        s = check_proba(s, "y_pred")
    if average == "micro":  # one component: every (item, class) entry, as y.ravel()
        v, it, p = _sorted_component(s.ravel(), np.repeat(items, K),
                                     (codes[:, None] == np.arange(K)).ravel().astype(np.uint8))
        return RankedScores(kind, v, it, p, np.array([0, n * K], dtype=np.int64),
                            np.zeros(1, dtype=np.int64), 1, WEIGHTING_MEAN, n)
    parts, unit = [], []
    if multi_class == "ovr":
        for k in range(K):
            parts.append(_sorted_component(s[:, k], items, (codes == k).astype(np.uint8)))
            unit.append(k)
        n_units = K
    else:
        for u, (j, k) in enumerate(combinations(range(K), 2)):
            mask = (codes == j) | (codes == k)
            for c in (j, k):
                parts.append(_sorted_component(s[mask, c], items[mask],
                                               (codes[mask] == c).astype(np.uint8)))
                unit.append(u)
        n_units = K * (K - 1) // 2
    starts = np.zeros(len(parts) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([p[0].shape[0] for p in parts])
    weighting = WEIGHTING_MEAN if average == "macro" else _MULTI[multi_class]
    return RankedScores(kind, np.concatenate([p[0] for p in parts]),
                        np.concatenate([p[1] for p in parts]),
                        np.concatenate([p[2] for p in parts]), starts,
                        np.asarray(unit, dtype=np.int64), n_units, weighting, n)


def _group_sums(ranked, q):
    """Per tie group: component, positive weight, negative weight (zero-weight groups kept)."""
    w = q[ranked.items]
    gid = np.cumsum(ranked.tie_starts()) - 1
    G = int(gid[-1]) + 1
    pos = np.bincount(gid, weights=w * ranked.positive, minlength=G)
    neg = np.bincount(gid, weights=w * (1 - ranked.positive), minlength=G)
    comp = np.repeat(np.arange(ranked.n_components), np.diff(ranked.starts))
    gcomp = np.zeros(G, dtype=np.int64)
    gcomp[gid] = comp
    return gcomp, pos, neg


def _component_values(ranked, q):
    """``(value, positive weight, total weight)`` of every component under weights ``q``."""
    gcomp, pos, neg = _group_sums(ranked, q)
    C = ranked.n_components
    P = np.bincount(gcomp, weights=pos, minlength=C)
    N0 = np.bincount(gcomp, weights=neg, minlength=C)
    # cumulative sums restart in every component
    first = np.searchsorted(gcomp, np.arange(C))
    cpos = np.cumsum(pos)
    cpos -= np.repeat(np.concatenate([[0.0], cpos])[first], np.diff(np.r_[first, gcomp.size]))
    with np.errstate(invalid="ignore", divide="ignore"):
        if ranked.kind == "roc_auc":
            num = np.bincount(gcomp, weights=neg * (cpos - 0.5 * pos), minlength=C)
            value = num / (P * N0)
        else:
            tot = pos + neg
            call = np.cumsum(tot)
            call -= np.repeat(np.concatenate([[0.0], call])[first],
                              np.diff(np.r_[first, gcomp.size]))
            prec = np.divide(cpos, call, out=np.zeros_like(cpos), where=tot > 0)
            value = np.bincount(gcomp, weights=pos * prec, minlength=C)
            value = np.divide(value, P, out=np.zeros_like(value), where=P > 0)
    return value, P, P + N0


def ranked_value(ranked, weights=None):
    """The metric of a :class:`RankedScores` under item weights, without sorting.

    Parameters
    ----------
    ranked : RankedScores
    weights : ndarray of shape (n_items,), optional
        Item weights (``sample_weight``, bootstrap counts, Dirichlet
        weights); default 1.

    Returns
    -------
    value : float
        ``nan`` where undefined (no positive or no negative weight in a
        component of a ROC AUC). Silent: the public functions warn.
    """
    q = np.ones(ranked.n_items) if weights is None else np.asarray(weights, dtype=np.float64)
    value, P, total = _component_values(ranked, q)
    U = ranked.n_units
    unit_value = (np.bincount(ranked.unit, weights=value, minlength=U)
                  / np.bincount(ranked.unit, minlength=U))
    if ranked.weighting == WEIGHTING_MEAN:
        return float(unit_value.mean())
    size = P if ranked.weighting == WEIGHTING_POSITIVES else total
    unit_size = np.zeros(U)
    unit_size[ranked.unit] = size  # both components of a pair have the same items
    return float(np.dot(unit_size, unit_value) / unit_size.sum())


def _check_weights(sample_weight, n, metric):
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"Metric {metric!r}: 'sample_weight' must have shape ({n},); got "
                         f"{w.shape}.")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"Metric {metric!r}: 'sample_weight' must be finite and "
                         "non-negative.")
    if not w.sum() > 0:
        raise ValueError(f"Metric {metric!r}: 'sample_weight' must have a positive sum.")
    return w


def roc_auc_score(y_true, y_score, *, sample_weight=None, multi_class=None, average="macro",
                  labels=None):
    """Area under the ROC curve, as :func:`sklearn.metrics.roc_auc_score`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Hard labels.
    y_score : array-like
        Binary (``multi_class=None``): a real score of the greater label (any
        scale) or a 2-column ``predict_proba``; multiclass: probabilities of
        shape (n_samples, n_classes).
    sample_weight : array-like of shape (n_samples,), optional
        Not with ``multi_class="ovo"`` (as scikit-learn).
    multi_class : {None, "ovr", "ovo"}, default=None
    average : {"macro", "weighted"}, default="macro"
    labels : array-like, optional
        Classes of the columns of a multiclass ``y_score``.

    Returns
    -------
    auc : float
        ``nan`` with an ``UndefinedMetricWarning`` when ``y_true`` holds one
        class (or a class of ``labels`` is absent), as scikit-learn 1.9.

    Notes
    -----
    The weighted Mann-Whitney statistic over one sort (module docstring);
    Hanley & McNeil (1982), Hand & Till (2001) for one-vs-one.

    Examples
    --------
    >>> from sigtest.metrics._ranking import roc_auc_score
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    return roc_auc_value_and_ranking(y_true, y_score, sample_weight=sample_weight,
                                     multi_class=multi_class, average=average,
                                     labels=labels)[0]


def roc_auc_value_and_ranking(y_true, y_score, *, sample_weight=None, multi_class=None,
                              average="macro", labels=None):
    """:func:`roc_auc_score` and the ranking it sorted: ``(auc, RankedScores)``.

    The one body of :func:`roc_auc_score` (same checks, warning and value);
    the ranking is :func:`roc_auc_ranking` of the same arguments, which the
    engine reuses instead of sorting again (:func:`value_and_ranking`).
    """
    metric = "roc_auc" if multi_class is None else f"roc_auc_{multi_class}"
    if multi_class == "ovo" and sample_weight is not None:
        raise ValueError(
            f"Metric {metric!r}: 'sample_weight' is not supported for the multiclass "
            "one-vs-one ROC AUC (as scikit-learn); use roc_auc_ovr."
        )
    ranked = roc_auc_ranking(y_true, y_score, multi_class=multi_class, average=average,
                             labels=labels)
    value = ranked_value(ranked, _check_weights(sample_weight, ranked.n_items, metric))
    if np.isnan(value):
        warn_undefined(
            f"{metric}: a class is absent from 'y_true' (only one class in a binary "
            "component), so the ROC AUC is not defined; returning nan (as scikit-learn).",
            hint=False)
    return value, ranked


def average_precision_score(y_true, y_score, *, average="macro", sample_weight=None,
                            pos_label=1, labels=None):
    """Average precision, as :func:`sklearn.metrics.average_precision_score`.

    :math:`\\mathrm{AP} = \\sum_k (R_k - R_{k-1}) P_k` over the distinct
    score thresholds in descending order (step-wise, no interpolation);
    multiclass one-vs-rest (module docstring).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_score : array-like of shape (n_samples,), (n_samples, 2) or (n_samples, n_classes)
        Binary: a real score of ``pos_label`` (or a 2-column
        ``predict_proba``). Multiclass (three or more classes): one column of
        real scores per class, in the sorted class order.
    average : {"macro", "weighted", "micro"}, default="macro"
        Averaging over the classes of a multiclass task (ignored for a
        binary one, as scikit-learn).
    sample_weight : array-like of shape (n_samples,), optional
    pos_label : label, default=1
        The positive class of a binary task; a multiclass task takes none
        (scikit-learn accepts only 1 there).
    labels : array-like, optional
        The class set (sorted), when ``y_true`` may miss a class.

    Returns
    -------
    ap : float
        0.0 with an ``UndefinedMetricWarning`` when ``y_true`` has no
        positive (scikit-learn warns and returns 0.0); a multiclass class
        without positives counts 0.0 silently.

    Examples
    --------
    >>> from sigtest.metrics._ranking import average_precision_score
    >>> round(average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 6)
    0.833333
    >>> proba = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.5, 0.3, 0.2]]
    >>> round(average_precision_score([0, 1, 2, 2], proba), 6)
    0.944444
    """
    return average_precision_value_and_ranking(y_true, y_score, average=average,
                                               sample_weight=sample_weight,
                                               pos_label=pos_label, labels=labels)[0]


def average_precision_value_and_ranking(y_true, y_score, *, average="macro",
                                        sample_weight=None, pos_label=1, labels=None):
    """:func:`average_precision_score` and the ranking it sorted: ``(ap, RankedScores)``.

    The one body of :func:`average_precision_score` (same checks, warning
    and value); the ranking is :func:`average_precision_ranking` of the
    same arguments (:func:`value_and_ranking`).
    """
    ranked = average_precision_ranking(y_true, y_score, average=average, pos_label=pos_label,
                                       labels=labels)
    w = _check_weights(sample_weight, ranked.n_items, "average_precision")
    q = np.ones(ranked.n_items) if w is None else w
    if not np.dot(q[ranked.items], ranked.positive) > 0:
        warn_undefined(
            "average_precision: no positive item in 'y_true'; the average precision is "
            "0.0 (as scikit-learn, where recall is undefined).", hint=False)
    return ranked_value(ranked, q), ranked


def roc_auc_ranking(y_true, y_score, *, multi_class=None, average="macro", labels=None,
                    **_):
    """The ``ranking`` of the ROC AUC metrics: :func:`ranked_scores` with ``kind="roc_auc"``.

    Other keywords (the engine passes every metric parameter) are ignored.
    """
    metric = "roc_auc" if multi_class is None else f"roc_auc_{multi_class}"
    if average not in ("macro", "weighted"):
        raise ValueError(f"Metric {metric!r}: 'average' must be 'macro' or 'weighted'. Got "
                         f"{average!r}.")
    if multi_class not in (None, "ovr", "ovo"):
        raise ValueError(f"The 'multi_class' parameter must be None, 'ovr' or 'ovo'. Got "
                         f"{multi_class!r}.")
    return ranked_scores(y_true, y_score, kind="roc_auc", multi_class=multi_class,
                         average=average, labels=labels, metric=metric)


def average_precision_ranking(y_true, y_score, *, average="macro", pos_label=1, labels=None,
                              **_):
    """The ``ranking`` of ``average_precision``: :func:`ranked_scores` of ``kind="average_precision"``.

    A class set of three or more classes is one-vs-rest with ``average``
    (``"macro"``, ``"weighted"``, ``"micro"``), as scikit-learn's
    ``average_precision_score``; ``pos_label`` must then be 1 (its default)
    or ``None``. :func:`ranked_scores` tells the two apart on the class set
    it reads (once).
    """
    return ranked_scores(y_true, y_score, kind="average_precision", multi_class="ovr",
                         average=average, labels=labels, pos_label=pos_label,
                         metric="average_precision")


#: The score functions whose body also returns the ranking it sorts:
#: score function -> (the metric's ``ranking``, the function returning both).
_WITH_RANKING = {
    roc_auc_score: (roc_auc_ranking, roc_auc_value_and_ranking),
    average_precision_score: (average_precision_ranking, average_precision_value_and_ranking),
}


def value_and_ranking(metric):
    """The score function of ``metric`` that also returns its ranking, or ``None``.

    For a metric whose ``score_func`` is :func:`roc_auc_score` or
    :func:`average_precision_score` (as registered) and whose ``ranking`` is
    the matching :func:`roc_auc_ranking` / :func:`average_precision_ranking`:
    ``f(y_true, y_pred, **kwargs) -> (value, RankedScores)``, the score
    function's own body (:func:`roc_auc_value_and_ranking`,
    :func:`average_precision_value_and_ranking`), so the value is
    ``score_func``'s bit for bit and the ranking is ``metric.ranking(y_true,
    y_pred, **params)``: one sort for both. ``kwargs`` are what
    ``score_func`` takes (``sample_weight`` and the metric's parameters),
    filtered as it filters them.

    Parameters
    ----------
    metric : Metric

    Returns
    -------
    callable or None
        ``None`` for any other metric (a user's score function, whose value
        the engine cannot take from a ranking bit for bit).
    """
    score_func = metric.score_func
    if type(score_func) is not PlainScore:
        return None
    found = _WITH_RANKING.get(score_func.func)
    if found is None or metric.ranking is not found[0]:
        return None
    both = found[1]

    def value_and_ranked(y_true, y_pred, **kwargs):
        return both(y_true, y_pred, **score_func._keywords(kwargs))

    return value_and_ranked
