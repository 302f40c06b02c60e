r"""scikit-learn's probability scorers on per-item sufficient statistics.

Hard labels ``y_true`` scored by probabilities ``y_pred`` (input type
``"labels_proba"``, checked by
:func:`sigtest.metrics._check_scores.check_labels_proba`); with ``y_{ik}``
the one-hot true class, ``q_{ik}`` the predicted probability (a 1-D binary
``p`` is ``[1 - p, p]``), weights ``w_i``, ``W = \sum_i w_i`` and
``\epsilon`` the float64 machine epsilon:

* **log loss** (``log_loss``, scorer ``neg_log_loss``):
  ``\ell_i = -\log \mathrm{clip}(q_{i,y_i}, \epsilon, 1 - \epsilon)``, the
  score ``\sum_i w_i \ell_i / W`` (:func:`sklearn.metrics.log_loss`);
* **Brier score** (``brier_score``, scorer ``neg_brier_score``):
  ``b_i = s \sum_k (y_{ik} - q_{ik})^2`` with ``s = 1/2`` for two classes and
  ``1`` otherwise (``scale_by_half="auto"`` of
  :func:`sklearn.metrics.brier_score_loss`, scikit-learn >= 1.7), the score
  ``\sum_i w_i b_i / W``;
* **D² scores** (``d2_log_loss_score``, ``d2_brier_score``):
  ``1 - \sum_i w_i \ell_i / \sum_i w_i \ell^0_i`` where the null model
  predicts the weighted class frequencies ``\pi_k = W_k / W`` of ``y_true``
  (``W_k = \sum_i w_i y_{ik}``): the null log loss is
  ``-\sum_k W_k \log \mathrm{clip}(\pi_k, \epsilon, 1 - \epsilon)`` and the
  null Brier sum ``W (1 - \sum_k \pi_k^2)``
  (:func:`sklearn.metrics.d2_log_loss_score`,
  :func:`sklearn.metrics.d2_brier_score`; Cameron & Windmeijer 1997);
* **top-k accuracy** (``top_k_accuracy``): the weighted fraction of items
  whose true class is among the ``k`` highest scores, ties going to the
  higher column index; binary with ``k = 1``: ``p > 0.5`` (``p > 0`` for
  scores outside ``[0, 1]``); ``k >= n_classes``: 1 with an
  ``UndefinedMetricWarning`` (:func:`sklearn.metrics.top_k_accuracy_score`).

Statistics: ``[loss_i, 1]`` (log loss, Brier) and ``[hit_i, 1]`` (top-k),
means of per-item values (``decomposable``); the D² scores keep
``[loss_i, y_{i1}, ..., y_{iK}]``, so every resample recomputes its null
model from its own class frequencies, as scikit-learn would on the resampled
data.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from sigtest.utils._names import plain
from sigtest.metrics._check_scores import binary_columns, check_labels_proba
from sigtest.metrics._common import check_zero_division, warn_undefined
from sigtest.metrics._registry import score_from_statistics

__all__ = []  # registered in _builtin; nothing public

_EPS = np.finfo(np.float64).eps


def _one_hot(codes, k):
    out = np.zeros((codes.shape[0], k))
    out[np.arange(codes.shape[0]), codes] = 1.0
    return out


#: Keywords documented for other built-in metrics (accepted by the engine for any
#: metric) that these metrics do not use: given, they are an error, never ignored.
_FOREIGN = ("eps", "base", "multilabel", "average", "pos_label")


def _reject_foreign(params, metric):
    given = [k for k in _FOREIGN if params.get(k) is not None]
    if given:
        hint = (" (scikit-learn removed log_loss's eps in 1.5: probabilities are clipped at "
                "the float64 epsilon)" if "eps" in given else "")
        raise TypeError(
            f"Metric {metric!r} does not take the keyword argument(s) {given}{hint}."
        )


def _item_log_loss(y_true, y_pred, labels, metric):
    codes, q, classes = check_labels_proba(y_true, y_pred, labels=labels, metric=metric)
    q = binary_columns(q)
    p = np.clip(q[np.arange(codes.shape[0]), codes], _EPS, 1 - _EPS)
    return -np.log(p), codes, classes.shape[0]


def _item_brier(y_true, y_pred, labels, pos_label, metric):
    codes, q, classes = check_labels_proba(y_true, y_pred, labels=labels, metric=metric,
                                           complete_binary=True)
    k = classes.shape[0]
    if pos_label is not None:  # scikit-learn's: the class of a 1-D probability
        if q.ndim != 1:
            raise ValueError(
                f"The 'pos_label' parameter of metric {metric!r} applies to a 1-D y_pred (the "
                "probability of that class); a 2-D y_pred has a column per class."
            )
        if pos_label not in classes.tolist():
            raise ValueError(
                f"The 'pos_label' parameter of metric {metric!r} must be one of the classes "
                f"{classes.tolist()}. Got {plain(pos_label)!r}."
            )
        if pos_label == classes[0]:
            q = 1.0 - q
    sq = ((_one_hot(codes, k) - binary_columns(q)) ** 2).sum(axis=1)
    return sq, codes, k


def _check_scale_by_half(scale_by_half):
    if isinstance(scale_by_half, (bool, np.bool_)) or (
            isinstance(scale_by_half, str) and scale_by_half == "auto"):
        return scale_by_half
    raise ValueError(
        "The 'scale_by_half' parameter of metric 'brier_score' must be a bool or 'auto'. "
        f"Got {scale_by_half!r} instead."
    )


def _log_loss_statistics(y_true, y_pred, *, labels=None, **params):
    """``[-log clip(q_{i, y_i}), 1]`` per item."""
    _reject_foreign(params, "log_loss")
    loss, _, _ = _item_log_loss(y_true, y_pred, labels, "log_loss")
    return np.column_stack([loss, np.ones_like(loss)])


def _brier_statistics(y_true, y_pred, *, labels=None, pos_label=None, scale_by_half="auto",
                      **params):
    """``[s * sum_k (y_ik - q_ik)^2, 1]`` per item (``s = 1/2`` for two classes, auto)."""
    scale_by_half = _check_scale_by_half(scale_by_half)
    _reject_foreign(params, "brier_score")
    sq, _, k = _item_brier(y_true, y_pred, labels, pos_label, "brier_score")
    if scale_by_half == "auto":
        scale_by_half = k < 3
    if scale_by_half:
        sq = sq * 0.5
    return np.column_stack([sq, np.ones_like(sq)])


def _mean_aggregate(sums, **params):
    """``sums[..., 0] / sums[..., 1]``: the weighted mean of the per-item values."""
    sums = np.asarray(sums, dtype=np.float64)
    return sums[..., 0] / sums[..., 1]


def _d2_log_loss_statistics(y_true, y_pred, *, labels=None, **params):
    """``[-log clip(q_{i, y_i}), one-hot y_i]`` per item."""
    _reject_foreign(params, "d2_log_loss_score")
    loss, codes, k = _item_log_loss(y_true, y_pred, labels, "d2_log_loss_score")
    return np.column_stack([loss, _one_hot(codes, k)])


def _d2_brier_statistics(y_true, y_pred, *, labels=None, pos_label=None, **params):
    """``[sum_k (y_ik - q_ik)^2, one-hot y_i]`` per item (scaling cancels in D²)."""
    _reject_foreign(params, "d2_brier_score")
    sq, codes, k = _item_brier(y_true, y_pred, labels, pos_label, "d2_brier_score")
    return np.column_stack([sq, _one_hot(codes, k)])


def _d2(loss, null, present, zero_division, name):
    """``1 - loss / null``; NaN (warned) where fewer than two classes are present."""
    check_zero_division(zero_division)
    undefined = present < 2
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 1.0 - loss / np.where(undefined, 1.0, null)
    if isinstance(zero_division, str) and np.any(undefined):
        warn_undefined(
            f"{name} is undefined (nan) when y_true holds fewer than two classes (with "
            "positive weight): the null model, the class frequencies, is then perfect.",
            hint=False)
    return np.where(undefined, np.nan, value)


def _d2_log_loss_aggregate(sums, *, zero_division="warn", **params):
    """D² of the log loss from ``[sum w loss, W_1..W_K]``, the null from ``W_k / W``."""
    sums = np.asarray(sums, dtype=np.float64)
    counts = sums[..., 1:]
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        prior = np.clip(counts / total, _EPS, 1 - _EPS)
    null = -(np.where(counts > 0, counts * np.log(prior), 0.0)).sum(axis=-1)
    return _d2(sums[..., 0], null, (counts > 0).sum(axis=-1), zero_division,
               "d2_log_loss_score")


def _d2_brier_aggregate(sums, *, zero_division="warn", **params):
    """D² of the Brier score from ``[sum w sq, W_1..W_K]``: null ``W (1 - sum_k pi_k^2)``."""
    sums = np.asarray(sums, dtype=np.float64)
    counts = sums[..., 1:]
    total = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        null = total - (counts * counts).sum(axis=-1) / total
    return _d2(sums[..., 0], null, (counts > 0).sum(axis=-1), zero_division, "d2_brier_score")


def _check_k(k, n_classes):
    """``k`` an int >= 1; ``k >= n_classes`` makes every item a hit (warned, as scikit-learn)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, Integral):
        raise TypeError(
            f"The 'k' parameter of metric 'top_k_accuracy' must be an int. Got {k!r} instead."
        )
    if k < 1:
        raise ValueError(
            f"The 'k' parameter of metric 'top_k_accuracy' must be at least 1. Got k={k!r}."
        )
    if k >= n_classes:
        warn_undefined(
            f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) will result in a "
            "perfect score and is therefore meaningless.", hint=False)
    return int(k)


def _top_k_statistics(y_true, y_pred, *, k=2, labels=None, **params):
    """``[1[true class among the k highest scores], 1]`` per item (scikit-learn's ties)."""
    _reject_foreign(params, "top_k_accuracy")
    codes, scores, classes = check_labels_proba(y_true, y_pred, labels=labels,
                                                metric="top_k_accuracy", kind="scores")
    k = _check_k(k, classes.shape[0])
    if k >= classes.shape[0]:
        hits = np.ones(codes.shape[0])
    elif classes.shape[0] == 2:  # binary, k == 1: scikit-learn thresholds the positive score
        s = scores[:, 1] if scores.ndim == 2 else scores
        threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0
        hits = (s > threshold).astype(np.intp) == codes
    else:
        order = np.argsort(scores, axis=1, kind="mergesort")[:, ::-1][:, :k]
        hits = (order == codes[:, None]).any(axis=1)
    hits = hits.astype(np.float64)
    return np.column_stack([hits, np.ones_like(hits)])


class _D2Score:
    """``score_func`` of a D² metric: NaN with a warning below two samples (scikit-learn)."""

    def __init__(self, statistics, aggregate, name):
        self.score = score_from_statistics(statistics, aggregate)
        self.__name__ = name

    def __call__(self, y_true, y_pred, *, sample_weight=None, **params):
        if np.shape(y_pred)[:1] == (1,):
            warn_undefined("D^2 score is not well-defined with less than two samples.",
                           hint=False)
            return float("nan")
        return self.score(y_true, y_pred, sample_weight=sample_weight, **params)

    def __eq__(self, other):
        return isinstance(other, _D2Score) and other.score == self.score

    def __hash__(self):
        return hash(self.score)


d2_log_loss_score = _D2Score(_d2_log_loss_statistics, _d2_log_loss_aggregate,
                             "d2_log_loss_score")
d2_brier_score = _D2Score(_d2_brier_statistics, _d2_brier_aggregate, "d2_brier_score")
