"""The scorer classes behind :func:`sigtest.metrics.get_scorer`.

They subclass scikit-learn's private ``_Scorer`` (the class
:func:`sklearn.metrics.make_scorer` instantiates; there is no public base
class), so importing this module imports scikit-learn. It is imported on the
first call of :func:`~sigtest.metrics.get_scorer` only, which keeps
``import sigtest.metrics`` free of scikit-learn. ``_Scorer`` is imported here
and nowhere else, so a change of scikit-learn's internals touches this one
line. We subclass it to read ``estimator.classes_`` while scoring (a plain
score function never sees the estimator) and to request the soft-target
metadata by default.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_regressor
from sklearn.metrics._scorer import _Scorer

from sigtest.metrics._common import SOFT_TARGET_PARAM, union_labels

__all__ = ["_LabelScorer", "_SoftScorer"]


class _MetricScorerMixin:
    """Shared repr: the registered metric's name leads."""

    _metric_name = None

    def _check_overlap(self, kwargs):
        """Warn when metadata repeats a keyword fixed in ``get_scorer``."""
        self._warn_overlap(
            message=(
                "There is an overlap between set kwargs of this scorer instance and "
                "passed metadata. Please pass them either as kwargs to get_scorer or "
                "metadata, but not both."
            ),
            kwargs=kwargs,
        )

    def __repr__(self):
        return f"<sigtest scorer {self._metric_name!r}: {super().__repr__()}>"


class _LabelScorer(_MetricScorerMixin, _Scorer):
    """Scorer of a hard-label metric that passes the full label set."""

    _pass_labels = False

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        self._check_overlap(kwargs)
        if self._response_method == "predict" or is_regressor(estimator):
            # ``predict`` ignores pos_label; passing a metric's default (e.g. 1)
            # would make scikit-learn reject string labels on a 2-class fold.
            pos_label = None
        else:
            pos_label = self._get_pos_label()
        y_pred = method_caller(estimator, self._response_method, X, pos_label=pos_label)
        scoring_kwargs = {**self._kwargs, **kwargs}
        if self._pass_labels and scoring_kwargs.get("labels") is None and y_true is not None:
            fitted = getattr(estimator, "classes_", None)
            if fitted is not None and np.ndim(fitted) == 1:
                scoring_kwargs["labels"] = union_labels(fitted, y_true)
        return self._sign * self._score_func(y_true, y_pred, **scoring_kwargs)


class _SoftScorer(_MetricScorerMixin, _Scorer):
    """Scorer of a soft metric: routes ``y_true_soft`` and aligns columns."""

    # Class-level metadata request (scikit-learn reads every class attribute
    # whose name contains ``__metadata_request__score``): the soft targets are
    # requested without a ``set_score_request`` call, which would need routing
    # to be enabled already when the scorer is built.
    __metadata_request__score = {SOFT_TARGET_PARAM: True}

    _input_type = "proba"
    _classes = None

    def set_score_request(self, **kwargs):
        """Set requested metadata; ``y_true_soft`` stays requested unless given.

        Parameters
        ----------
        **kwargs : dict
            ``param_name=alias`` with alias in ``{True, False, None, str}``, as
            in :meth:`sklearn.metrics.make_scorer` scorers.

        Returns
        -------
        self : object
        """
        kwargs.setdefault(SOFT_TARGET_PARAM, True)
        return super().set_score_request(**kwargs)

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        soft = kwargs.pop(SOFT_TARGET_PARAM, None)
        self._check_overlap(kwargs)
        method = getattr(estimator, self._response_method, None)
        if method is None:
            raise AttributeError(
                f"{type(estimator).__name__} has no {self._response_method!r} method, "
                f"which the soft metric {self._metric_name!r} needs."
            )
        # Called directly, not through scikit-learn's shared prediction cache:
        # that cache keeps only the positive-class column for 2-class models.
        proba = method(X)
        if self._input_type == "proba":
            y_soft, y_proba = self._multiclass_inputs(estimator, y_true, soft, proba)
        else:
            y_soft, y_proba = self._multilabel_inputs(estimator, y_true, soft, proba)
        scoring_kwargs = {**self._kwargs, **kwargs}
        return self._sign * self._score_func(y_soft, y_proba, **scoring_kwargs)

    def _multiclass_inputs(self, estimator, y_true, soft, proba):
        fitted = getattr(estimator, "classes_", None)
        if fitted is None or np.ndim(fitted) != 1:
            raise TypeError(
                f"The soft metric {self._metric_name!r} needs a single-output "
                f"classifier with a 1-D 'classes_'; {type(estimator).__name__} has "
                f"classes_={fitted!r}."
            )
        fitted = np.asarray(fitted)
        proba = np.asarray(proba, dtype=np.float64)
        if proba.ndim != 2 or proba.shape[1] != fitted.size:
            raise ValueError(
                f"{self._response_method} of {type(estimator).__name__} returned shape "
                f"{proba.shape}; expected (n_samples, {fitted.size}) columns matching "
                "classes_."
            )
        if soft is not None:
            soft = np.asarray(soft)
            if soft.ndim != 2:
                raise ValueError(
                    f"The {SOFT_TARGET_PARAM!r} metadata must be a 2-D array of shape "
                    f"(n_samples, n_classes). Got shape {soft.shape} instead."
                )
        classes = self._full_classes(fitted, y_true, soft)
        position = {c: j for j, c in enumerate(classes.tolist())}
        missing = [c for c in fitted.tolist() if c not in position]
        if missing:
            raise ValueError(
                f"The estimator was fit on classes {missing} that are not in the "
                f"'classes' given to get_scorer ({classes.tolist()})."
            )
        aligned = np.zeros((proba.shape[0], classes.size), dtype=np.float64)
        aligned[:, [position[c] for c in fitted.tolist()]] = proba
        if soft is None:
            soft = self._one_hot(y_true, classes, position)
        return soft, aligned

    def _full_classes(self, fitted, y_true, soft):
        if self._classes is not None:
            classes = self._classes
            if soft is not None and soft.shape[1] != classes.size:
                raise ValueError(
                    f"The {SOFT_TARGET_PARAM!r} metadata has {soft.shape[1]} columns "
                    f"but get_scorer was given {classes.size} classes."
                )
            return classes
        classes = fitted if y_true is None else union_labels(fitted, y_true)
        if soft is not None and soft.shape[1] != classes.size:
            raise ValueError(
                f"The {SOFT_TARGET_PARAM!r} metadata has {soft.shape[1]} columns, but "
                f"the classes seen in training and in y are {classes.tolist()}. Pass "
                "the class labels of its columns as get_scorer(..., classes=...)."
            )
        return classes

    @staticmethod
    def _one_hot(y_true, classes, position):
        if y_true is None:
            raise ValueError(
                "A soft scorer needs the hard labels 'y' or the "
                f"{SOFT_TARGET_PARAM!r} metadata; got neither."
            )
        y_true = np.asarray(y_true)
        if y_true.ndim != 1:
            raise ValueError(
                "Without soft targets, a soft multiclass scorer needs 1-D hard labels "
                f"'y'. Got shape {y_true.shape} instead."
            )
        unknown = sorted({c for c in y_true.tolist() if c not in position}, key=str)
        if unknown:
            raise ValueError(
                f"The labels {unknown} in y are not in the 'classes' given to "
                f"get_scorer ({classes.tolist()})."
            )
        one_hot = np.zeros((y_true.size, classes.size), dtype=np.float64)
        one_hot[np.arange(y_true.size), [position[c] for c in y_true.tolist()]] = 1.0
        return one_hot

    def _multilabel_inputs(self, estimator, y_true, soft, proba):
        if isinstance(proba, list):
            # One (n_samples, n_classes_j) array per label (trees, k-NN,
            # MultiOutputClassifier): take the probability of class 1.
            fitted = getattr(estimator, "classes_", [None] * len(proba))
            columns = []
            for p, c in zip(proba, fitted):
                p = np.asarray(p, dtype=np.float64)
                idx = np.flatnonzero(np.asarray(c) == 1) if c is not None else [p.shape[1] - 1]
                columns.append(p[:, idx[0]] if len(idx) else np.zeros(p.shape[0]))
            proba = np.column_stack(columns)
        proba = np.asarray(proba, dtype=np.float64)
        if soft is None:
            if y_true is None:
                raise ValueError(
                    "A soft scorer needs the targets 'y' or the "
                    f"{SOFT_TARGET_PARAM!r} metadata; got neither."
                )
            soft = np.asarray(y_true, dtype=np.float64)
        return soft, proba
