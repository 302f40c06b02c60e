"""Registration of every built-in metric under its registry name.

Imported by :mod:`sigtest.metrics` so that the registry is filled on import.
Each built-in registers its public ``*_score`` function as ``score_func``
together with its sufficient statistics and vectorised aggregate.

``decomposable=True`` marks the metrics whose score is the weighted mean of
per-item values ``aggregate(statistics row)`` (checked for every metric by
``tests/metrics/test_decomposable.py``): accuracy; the micro-averaged
precision, recall and F1 of single-label data and the support-weighted
recall, which all equal accuracy; soft accuracy and the micro-averaged soft
precision, recall and F1 of distributions (rows sum to 1, so they equal soft
accuracy); PO-JSD, multilabel PO-JSD (the K labels of a row count equally),
cross entropy and JSD. Macro- and support-weighted averages of per-class
ratios (other than recall), the one-class scores, the multilabel F1s and
the entropy correlation and similarity are ratios or correlations of totals
over all items, not means of per-item values.
"""

__all__ = []  # registers the built-in metrics; exports nothing

from sigtest.metrics._hard import (
    _accuracy_aggregate,
    _accuracy_statistics,
    _f1_aggregate,
    _f1_statistics,
    _precision_aggregate,
    _precision_statistics,
    _recall_aggregate,
    _recall_statistics,
    accuracy_score,
    f1_score,
    precision_score,
    recall_score,
)
from sigtest.metrics._hard_multilabel import (
    _multilabel_f1_aggregate,
    _multilabel_f1_statistics,
    multilabel_f1_score,
)
from sigtest.metrics._ranking import (
    average_precision_ranking,
    average_precision_score,
    roc_auc_ranking,
    roc_auc_score,
)
from sigtest.metrics._registry import _mark_builtin, register_metric

# --- hard-label metrics --------------------------------------------------------------

register_metric(
    "accuracy",
    accuracy_score,
    response_method="predict",
    input_type="labels",
    statistics=_accuracy_statistics,
    aggregate=_accuracy_aggregate,
    cellwise=True,
    decomposable=True,
    description="Accuracy: fraction of correct labels, in [0, 1]",
)

_PRF = {
    "precision": (precision_score, _precision_statistics, _precision_aggregate, "Precision"),
    "recall": (recall_score, _recall_statistics, _recall_aggregate, "Recall"),
    "f1": (f1_score, _f1_statistics, _f1_aggregate, "F1"),
}

for _prefix, (_func, _stats, _agg, _title) in _PRF.items():
    for _average in ("macro", "micro", "weighted"):
        register_metric(
            f"{_prefix}_{_average}",
            _func,
            response_method="predict",
            input_type="labels",
            statistics=_stats,
            aggregate=_agg,
            cellwise=True,
            # one label per item: micro P = R = F1 = accuracy, and support-weighted
            # recall sum_k (n_k / N) tp_k / n_k = accuracy
            decomposable=_average == "micro" or (_prefix, _average) == ("recall", "weighted"),
            description=f"{_title}, {_average}-averaged over the classes of 'labels', in [0, 1]",
            average=_average,
        )

# one-class scores (scikit-learn's scorer names "f1", "precision", "recall"):
# average="binary" scores the class given as ``pos_label``: 1 by default on the labels
# {0, 1} or {-1, 1} (scikit-learn's default), required otherwise (sigtest never picks a
# class by position; ``_hard.default_pos_label``)
for _prefix, (_func, _stats, _agg, _title) in _PRF.items():
    register_metric(
        _prefix,
        _func,
        response_method="predict",
        input_type="labels",
        statistics=_stats,
        aggregate=_agg,
        cellwise=True,
        description=f"{_title} of the class 'pos_label' (1 on 0/1 labels), in [0, 1]",
        average="binary",
    )

for _average in ("micro", "macro"):
    register_metric(
        f"multilabel_f1_{_average}",
        multilabel_f1_score,
        response_method="predict",
        input_type="multilabel",
        statistics=_multilabel_f1_statistics,
        aggregate=_multilabel_f1_aggregate,
        cellwise=False,
        description=f"Multilabel F1 of J = 1[x > 0.5], {_average}-averaged, in [0, 1]",
        average=_average,
    )

del _prefix, _func, _stats, _agg, _title, _average

# --- soft-label metrics (registered by _soft section) ---

from sigtest.metrics._soft import (  # noqa: E402
    _cross_entropy_statistics,
    _jsd_statistics,
    _mean_aggregate,
    _po_jsd_aggregate,
    cross_entropy_loss,
    jensen_shannon_divergence,
    po_jsd_score,
)
from sigtest.metrics._soft_accuracy import (  # noqa: E402
    _soft_accuracy_aggregate,
    _soft_accuracy_statistics,
    _soft_f1_aggregate,
    _soft_precision_aggregate,
    _soft_prf_statistics,
    _soft_recall_aggregate,
    soft_accuracy_score,
    soft_f1_score,
    soft_precision_score,
    soft_recall_score,
)
from sigtest.metrics._soft_entropy import (  # noqa: E402
    _entropy_correlation_aggregate,
    _entropy_correlation_statistics,
    _entropy_similarity_aggregate,
    _entropy_similarity_statistics,
    entropy_correlation_score,
    entropy_similarity_score,
)


def _register_soft(name, func, stats, agg, description, *, multilabel=False, **kwargs):
    if multilabel:
        kwargs["multilabel"] = True
    register_metric(
        name,
        func,
        response_method="predict_proba",
        input_type="multilabel" if multilabel else "proba",
        statistics=stats,
        aggregate=agg,
        description=description,
        **kwargs,
    )


_register_soft(
    "soft_accuracy",
    soft_accuracy_score,
    _soft_accuracy_statistics,
    _soft_accuracy_aggregate,
    "Soft accuracy: mean of sum_k min(P, Q), in [0, 1] (Kurniawan et al. 2025)",
    decomposable=True,
)

_SOFT_PRF = {
    "soft_precision": (soft_precision_score, _soft_precision_aggregate, "Soft precision"),
    "soft_recall": (soft_recall_score, _soft_recall_aggregate, "Soft recall"),
    "soft_f1": (soft_f1_score, _soft_f1_aggregate, "Soft F1"),
}
for _prefix, (_func, _agg, _title) in _SOFT_PRF.items():
    for _average in ("micro", "macro"):
        _register_soft(
            f"{_prefix}_{_average}",
            _func,
            _soft_prf_statistics,
            _agg,
            f"{_title} (fuzzy-set, min t-norm), {_average}-averaged, in [0, 1]",
            # rows of P and Q sum to 1: micro soft P = R = F1 = soft accuracy
            decomposable=_average == "micro",
            average=_average,
        )
for _average in ("micro", "macro"):
    _register_soft(
        f"multilabel_soft_f1_{_average}",
        soft_f1_score,
        _soft_prf_statistics,
        _soft_f1_aggregate,
        f"Multilabel soft F1, {_average}-averaged, in [0, 1]",
        multilabel=True,
        average=_average,
    )

_register_soft(
    "po_jsd",
    po_jsd_score,
    _jsd_statistics,
    _po_jsd_aggregate,
    "PO-JSD: 1 - mean Jensen-Shannon divergence (base 2), in [0, 1]",
    decomposable=True,
)
_register_soft(
    "multilabel_po_jsd",
    po_jsd_score,
    _jsd_statistics,
    _po_jsd_aggregate,
    "Multilabel PO-JSD: 1 - mean binary JSD over instances and labels, in [0, 1]",
    multilabel=True,
    decomposable=True,
)
_register_soft(
    "entropy_correlation",
    entropy_correlation_score,
    _entropy_correlation_statistics,
    _entropy_correlation_aggregate,
    "Pearson r of normalised entropies H(p_i)/log K, in [-1, 1]",
)
_register_soft(
    "multilabel_entropy_correlation",
    entropy_correlation_score,
    _entropy_correlation_statistics,
    _entropy_correlation_aggregate,
    "Mean over labels of Pearson r of binary entropies (bits), in [-1, 1]",
    multilabel=True,
)
_register_soft(
    "entropy_similarity",
    entropy_similarity_score,
    _entropy_similarity_statistics,
    _entropy_similarity_aggregate,
    "Entropy similarity: cosine of normalised-entropy vectors, in [0, 1]",
)
_register_soft(
    "cross_entropy",
    cross_entropy_loss,
    _cross_entropy_statistics,
    _mean_aggregate,
    "Cross entropy -mean sum_k P ln max(Q, eps) in nats, eps = float64 eps; a loss",
    greater_is_better=False,
    decomposable=True,
)
_register_soft(
    "jsd",
    jensen_shannon_divergence,
    _jsd_statistics,
    _mean_aggregate,
    "Mean Jensen-Shannon divergence (base 2), in [0, 1]; a loss (= 1 - po_jsd)",
    greater_is_better=False,
    decomposable=True,
)

del _prefix, _func, _agg, _title, _average

# --- confusion-matrix metrics (scikit-learn's scorer names) ---

from sigtest.metrics._confusion import (  # noqa: E402
    _balanced_accuracy_aggregate,
    _confusion_statistics,
    _f1_samples_aggregate,
    _f1_samples_statistics,
    _jaccard_aggregate,
    _jaccard_samples_aggregate,
    _jaccard_samples_statistics,
    _kappa_aggregate,
    _kappa_statistics,
    _lr_statistics,
    _mcc_aggregate,
    _negative_lr_aggregate,
    _positive_lr_aggregate,
    _precision_samples_aggregate,
    _precision_samples_statistics,
    _recall_samples_aggregate,
    _recall_samples_statistics,
    jaccard_score,
)


def _register_cells(name, stats, agg, description, score_func=None, **kwargs):
    register_metric(name, score_func, response_method="predict", input_type="labels",
                    statistics=stats, aggregate=agg, cellwise=True,
                    description=description, **kwargs)


_register_cells(
    "balanced_accuracy",
    _confusion_statistics,
    _balanced_accuracy_aggregate,
    "Balanced accuracy: mean recall over the classes of y_true, in [0, 1] (adjusted=)",
)
_register_cells(
    "matthews_corrcoef",
    _confusion_statistics,
    _mcc_aggregate,
    "Matthews correlation coefficient (multiclass R_K), in [-1, 1]; 0 if undefined",
)
_register_cells(
    "cohen_kappa",
    _kappa_statistics,
    _kappa_aggregate,
    "Cohen's kappa of gold vs prediction, in [-1, 1] (weights=None|'linear'|'quadratic')",
)
# Jaccard shares the statistics of P/R/F1 (TP_k, pred_k, true_k, 1)
_register_cells(
    "jaccard",
    _f1_statistics,
    _jaccard_aggregate,
    "Jaccard index of the class 'pos_label' (1 on 0/1 labels), in [0, 1]",
    score_func=jaccard_score,
    average="binary",
)
for _average in ("macro", "micro", "weighted"):
    _register_cells(
        f"jaccard_{_average}",
        _f1_statistics,
        _jaccard_aggregate,
        f"Jaccard index, {_average}-averaged over the classes of 'labels', in [0, 1]",
        score_func=jaccard_score,
        average=_average,
    )
_register_cells(
    "positive_likelihood_ratio",
    _lr_statistics,
    _positive_lr_aggregate,
    "LR+ = recall / (1 - specificity), binary (or pos_label vs rest), in [1, inf)",
)
_register_cells(
    "negative_likelihood_ratio",
    _lr_statistics,
    _negative_lr_aggregate,
    "LR- = (1 - recall) / specificity, binary (or pos_label vs rest); a loss",
    greater_is_better=False,
)

_SAMPLES = {
    "precision": (_precision_samples_statistics, _precision_samples_aggregate, "Precision"),
    "recall": (_recall_samples_statistics, _recall_samples_aggregate, "Recall"),
    "f1": (_f1_samples_statistics, _f1_samples_aggregate, "F1"),
    "jaccard": (_jaccard_samples_statistics, _jaccard_samples_aggregate, "Jaccard"),
}
for _prefix, (_stats, _agg, _title) in _SAMPLES.items():
    register_metric(
        f"{_prefix}_samples",
        response_method="predict",
        input_type="multilabel",
        statistics=_stats,
        aggregate=_agg,
        decomposable=True,  # the mean of per-item values
        description=f"Multilabel {_title} of each sample's label set (x > 0.5), averaged "
        "over samples, in [0, 1]",
    )

del _prefix, _stats, _agg, _title, _average

# --- regression (scikit-learn's regression scorer names; sigtest.metrics._regression) ---

from sigtest.metrics._regression import (  # noqa: E402
    RegressionStatistics,
    _explained_variance_aggregate,
    _mean_loss_aggregate,
    _r2_aggregate,
    _root_mean_loss_aggregate,
    d2_absolute_error_score,
    max_error,
    median_absolute_error,
)

_REGRESSION = [  # name, statistics kind, domain, aggregate, greater_is_better, description
    ("r2", "r2", None, _r2_aggregate, True,
     "R^2 = 1 - sum w e^2 / sum w (y - mean y)^2 (force_finite=)"),
    ("explained_variance", "explained_variance", None, _explained_variance_aggregate, True,
     "Explained variance 1 - Var(e) / Var(y) (force_finite=)"),
    ("mean_absolute_error", "absolute", None, _mean_loss_aggregate, False,
     "Mean absolute error; a loss"),
    ("mean_squared_error", "squared", None, _mean_loss_aggregate, False,
     "Mean squared error; a loss"),
    ("root_mean_squared_error", "squared", None, _root_mean_loss_aggregate, False,
     "Root mean squared error (root of the resampled mean); a loss"),
    ("mean_squared_log_error", "squared_log", "log", _mean_loss_aggregate, False,
     "Mean squared error of log1p (values > -1); a loss"),
    ("root_mean_squared_log_error", "squared_log", "log", _root_mean_loss_aggregate, False,
     "Root mean squared error of log1p (values > -1); a loss"),
    ("mean_absolute_percentage_error", "absolute_percentage", None, _mean_loss_aggregate,
     False, "Mean |e| / max(|y|, eps), eps = float64 eps; a loss"),
    ("mean_poisson_deviance", "poisson", "poisson", _mean_loss_aggregate, False,
     "Mean Poisson deviance (y >= 0, y_pred > 0); a loss"),
    ("mean_gamma_deviance", "gamma", "gamma", _mean_loss_aggregate, False,
     "Mean Gamma deviance (y > 0, y_pred > 0); a loss"),
]
for _name, _kind, _domain, _agg, _gib, _text in _REGRESSION:
    register_metric(
        _name,
        response_method="predict",
        input_type="regression",
        statistics=RegressionStatistics(_name, _kind, _domain),
        aggregate=_agg,
        greater_is_better=_gib,
        # a mean of per-item losses; a root of a mean or a ratio of variances is not
        decomposable=_agg is _mean_loss_aggregate,
        description=_text,
    )
# slow path: order statistics, and D^2 whose denominator needs each resample's median
register_metric("median_absolute_error", median_absolute_error, greater_is_better=False,
                response_method="predict", input_type="regression",
                description="Median absolute error (slow path); a loss")
register_metric("max_error", max_error, greater_is_better=False, response_method="predict",
                input_type="regression",
                description="Maximum absolute error (slow path, no sample_weight); a loss")
register_metric("d2_absolute_error_score", d2_absolute_error_score, response_method="predict",
                input_type="regression",
                description="D^2 = 1 - sum w |e| / sum w |y - median y| (slow path)")

del _name, _kind, _domain, _agg, _gib, _text

# --- probability scorers: hard y_true scored by probabilities (input "labels_proba") ---

from sigtest.metrics._proba_scorers import (  # noqa: E402
    _brier_statistics,
    _d2_brier_aggregate,
    _d2_brier_statistics,
    _d2_log_loss_aggregate,
    _d2_log_loss_statistics,
    _log_loss_statistics,
    _mean_aggregate as _item_mean_aggregate,
    _top_k_statistics,
    d2_brier_score,
    d2_log_loss_score,
)

for _name, _func, _stats, _agg, _gib, _dec, _text in (
    ("log_loss", None, _log_loss_statistics, _item_mean_aggregate, False, True,
     "Log loss -mean log q(true class), q clipped to [eps, 1 - eps]; a loss"),
    ("brier_score", None, _brier_statistics, _item_mean_aggregate, False, True,
     "Brier score mean sum_k (y_k - q_k)^2, halved for two classes; a loss"),
    ("d2_log_loss_score", d2_log_loss_score, _d2_log_loss_statistics, _d2_log_loss_aggregate,
     True, False, "D^2 of the log loss vs the class-frequency null model, <= 1"),
    ("d2_brier_score", d2_brier_score, _d2_brier_statistics, _d2_brier_aggregate, True,
     False, "D^2 of the Brier score (Brier skill score) vs the class frequencies, <= 1"),
    ("top_k_accuracy", None, _top_k_statistics, _item_mean_aggregate, True, True,
     "Top-k accuracy: true class among the k highest scores (k=2), in [0, 1]"),
):
    register_metric(_name, _func, greater_is_better=_gib, response_method="predict_proba",
                    input_type="labels_proba", statistics=_stats, aggregate=_agg,
                    decomposable=_dec, description=_text)

del _name, _func, _stats, _agg, _gib, _dec, _text
# --- ranking metrics of hard labels and scores (no statistics; sorted once) -----------
for _name, _kw in {"roc_auc": {}, "roc_auc_ovr": {"multi_class": "ovr"},
                   "roc_auc_ovo": {"multi_class": "ovo"},
                   "roc_auc_ovr_weighted": {"multi_class": "ovr", "average": "weighted"},
                   "roc_auc_ovo_weighted": {"multi_class": "ovo", "average": "weighted"}}.items():
    register_metric(_name, roc_auc_score, response_method="predict_proba",
                    input_type="labels_proba", ranking=roc_auc_ranking,
                    description="ROC AUC (weighted Mann-Whitney, ties 1/2)"
                    + (f", multiclass {_kw['multi_class']} {_kw.get('average', 'macro')}"
                       if _kw else ", binary; any real score") + ", in [0, 1]", **_kw)
register_metric("average_precision", average_precision_score,
                response_method="predict_proba", input_type="labels_proba",
                ranking=average_precision_ranking,
                description="Average precision sum_k (R_k - R_k-1) P_k, binary, in [0, 1]")
del _name, _kw


# --- per-item scores (y_true=None) ---

from sigtest.metrics._scores import _mean_statistics, mean_score  # noqa: E402

register_metric(
    "mean",
    mean_score,
    response_method="predict",
    input_type="scores",
    statistics=_mean_statistics,
    aggregate=_mean_aggregate,
    cellwise=True,  # a row's statistics depend on its score only
    decomposable=True,
    description="Mean of per-item scores (y_true=None; 0/1, judge scores, sentence BLEU)",
)

_mark_builtin()  # the engine recognises these aggregates by identity
