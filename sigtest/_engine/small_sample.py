"""Small samples: discordant items, the sign-test floor of a p-value, the warning.

Only the discordant items (A and B differ) carry information about which
system is better; with :math:`d` of them no test valid conditionally on the
discordant set can give a p-value below the exact sign test with all
:math:`d` items one way. The bootstrap tests floor their p-values there and
warn (:class:`~sigtest.SmallSampleWarning`) below measured limits.
"""

from __future__ import annotations

import math

import numpy as np

from sigtest.exceptions import SmallSampleWarning
from sigtest.utils import warn_external

__all__ = [
    "BCA_SMALL_SAMPLE_LIMITS",
    "BK_SMALL_SAMPLE_LIMITS",
    "BCA_SOFT_MIN_N",
    "FEW_CLUSTERS",
    "BCA_MIN_CLUSTERS",
    "bca_cluster_reasons",
    "SMALLEST_PVALUE",
    "RANK_MIN_CLASS_ITEMS",
    "REGRESSION_MIN_N",
    "bca_metric_reasons",
    "metric_kind_reasons",
    "class_discordant_counts",
    "class_small_sample_reasons",
    "discordant_count",
    "discreteness_floor",
    "log10_discreteness_floor",
    "point_mass_log10_pvalue",
    "point_mass_pvalue",
    "small_sample_reasons",
    "warn_small_sample",
]


#: The smallest positive double (a subnormal, about 4.9e-324): the p-value
#: reported when the true value underflows (a p-value is never 0; also
#: :data:`sigtest._engine.pvalues.SMALLEST_PVALUE`).
SMALLEST_PVALUE = math.ulp(0.0)


def discordant_count(paired):
    """Number ``d`` of discordant items: items whose A and B per-item statistics differ.

    Parameters
    ----------
    paired : PairedData

    Returns
    -------
    d : int
        Clustered data (``groups=``): the number of clusters in which A and
        B differ (rows are clusters, so the rules below count clusters).
        Compressed hard labels: the summed counts of the cells whose A and B
        statistics rows differ. Generic path: the rows of
        ``D = stats_b - stats_a`` with a nonzero entry (a zero sample weight
        makes a row concordant). Slow path (no statistics): the items whose
        predictions differ (any entry of a soft row), among those of nonzero
        weight.

    Notes
    -----
    Only discordant items move under a paired permutation, so any test that
    is valid conditionally on the discordant set has at most ``2**d``
    equally likely outcomes and cannot give a p-value below ``2**-d``
    (one-sided) or ``2**(1 - d)`` (two-sided): the exact sign test with all
    ``d`` items going one way. The bootstrap tests floor their p-values at
    that bound.

    Examples
    --------
    >>> from sigtest.metrics import get_metric
    >>> from sigtest._engine import prepare_paired
    >>> paired = prepare_paired([0, 0, 0], [1, 1, 0], [0, 0, 0], get_metric("accuracy"))
    >>> discordant_count(paired)
    2
    """
    if paired.stats_a is not None:
        rows = paired.discordant_rows()
        if paired.counts is not None:
            return int(np.rint(paired.counts[rows].sum()))
        return int(np.count_nonzero(rows))
    if paired.data is None:
        raise ValueError("The slow path needs the raw data; this PairedData holds only "
                         "statistics.")
    _, a, b, w = paired.data
    a, b = np.asarray(a), np.asarray(b)
    differ = a != b
    if differ.ndim > 1:
        differ = differ.reshape(differ.shape[0], -1).any(axis=1)
    if w is not None:
        differ &= np.asarray(w) != 0
    if paired.item_groups is not None:  # clustered: discordant clusters
        return int(np.unique(paired.item_groups[differ]).shape[0])
    return int(np.count_nonzero(differ))


#: Largest rows x classes table of marks in :func:`class_discordant_counts`
#: (4 MB of booleans); larger problems sort the (row, class) codes instead.
_MARK_TABLE_LIMIT = 2**22


def class_discordant_counts(paired):
    """Per class, the number of units whose statistics of that class differ between A and B.

    For a metric whose statistics have per-class columns (precision, recall,
    F1: ``TP_k``, ``pred_k``, ``true_k``; multilabel F1: ``TP_k``, ``FP_k``,
    ``FN_k``; declared by a ``class_of_columns`` attribute of its
    ``statistics`` function), an item is discordant about class ``k`` when
    exactly one system predicts ``k`` (``pred_k`` differs; ``true_k`` is
    shared), i.e. exactly one is right about the item's membership of ``k``.
    Only these items move the class-``k`` score under a paired permutation,
    so for the F1 of a 2 % class most of the discordant items of
    ``discordant_count`` (disagreements between other classes) carry no
    information about it.

    Parameters
    ----------
    paired : PairedData

    Returns
    -------
    counts : ndarray of shape (K,), int64, or None
        Discordant units (items, cells weighted by their counts, or
        clusters with ``groups=``) per class in the order of the columns
        (``labels``); ``None`` when the metric has no per-class columns or no
        statistics.
    present : ndarray of shape (K,), bool, or None
        Classes with a nonzero column total for A or B (true or predicted
        at least once); absent classes are constant and carry no risk.
    """
    stats = paired.metric.statistics
    class_of = getattr(stats, "class_of_columns", None)
    if class_of is None or paired.stats_a is None:
        return None, None
    n_cols = paired.stats_a.shape[1]
    column_class = np.asarray(class_of(n_cols), dtype=np.int64)
    n_classes = int(column_class.max()) + 1
    rows, cols = paired.discordant_entries()
    klass = column_class[cols]
    keep = klass >= 0
    # one (row, class) pair per discordant row and class, weighted by the row's
    # count, in (row, class) order: marks in a rows x classes table where it is
    # small (cells), else the sorted unique codes (the same pairs, same order)
    n_rows = paired.stats_a.shape[0]
    if n_rows * n_classes <= _MARK_TABLE_LIMIT:
        seen = np.zeros((n_rows, n_classes), dtype=bool)
        seen[rows[keep], klass[keep]] = True
        row, k = np.nonzero(seen)
    else:
        row, k = np.divmod(np.unique(rows[keep] * n_classes + klass[keep]), n_classes)
    weight = (np.rint(paired.counts[row]) if paired.counts is not None
              else np.ones(row.shape[0]))
    counts = np.rint(np.bincount(k, weights=weight, minlength=n_classes)).astype(np.int64)
    sums_a, sums_b = paired.totals()
    total = np.bincount(column_class[column_class >= 0],
                        weights=(np.abs(sums_a) + np.abs(sums_b))[column_class >= 0],
                        minlength=n_classes)
    return counts, total > 0


def class_small_sample_reasons(paired, limits):
    """Why the rarest class has too few discordant units (empty list: it has enough).

    Applies to a one-class metric (``pos_label``: that class) and to a
    macro average (the present class with the fewest discordant units), for
    a metric with per-class statistics (:func:`class_discordant_counts`);
    the minimum is the discordant-unit limit of ``limits``.
    """
    counts, present = class_discordant_counts(paired)
    if counts is None:
        return []
    params = paired.params
    labels = params.get("labels")
    if params.get("pos_label") is not None and labels is not None:
        idx = np.flatnonzero(np.asarray(labels) == params["pos_label"])
        if idx.size != 1:
            return []
        k = int(idx[0])
    elif params.get("average") == "macro" and (present & (counts > 0)).any():
        # a class no item is discordant about has the same score for A and B:
        # it carries no risk (nor any of the difference)
        candidates = np.flatnonzero(present & (counts > 0))
        k = int(candidates[np.argmin(counts[candidates])])
    else:
        return []
    min_d = limits[1]
    if counts[k] >= min_d:
        return []
    unit = "clusters" if paired.clustered else "items"
    name = repr(labels[k].item() if hasattr(labels[k], "item") else labels[k]) \
        if labels is not None else f"#{k}"
    return [f"d = {int(counts[k])} {unit} discordant about class {name} (exactly one system "
            f"predicts it; the class whose score matters) < {min_d}"]


# Below these limits the bootstrap tests warn (SmallSampleWarning): (minimum N,
# minimum number of discordant items). Measured by
# benchmarks/bench_small_samples.py (tables in docs/which_test.md): above them
# the size at alpha = .05 stayed <= ~.06 and the BCa coverage >= ~.94.
BK_SMALL_SAMPLE_LIMITS = (20, 8)
BCA_SMALL_SAMPLE_LIMITS = (30, 20)

#: BCa on the entropy/divergence soft metrics needs more items than
#: ``BCA_SMALL_SAMPLE_LIMITS``: their per-item values are skewed (log terms)
#: and every soft item is discordant, so the discordant rule never warns.
#: Minimum N per metric: the smallest N at which the size stayed <= ~.06 and
#: the coverage >= ~.94 (benchmarks/bench_small_samples.py, table 7: equal
#: systems on 3-class soft labels, two-sided alpha = .05; at N = 30 the size
#: was .078-.122). Decomposability does not predict it: po_jsd, jsd and
#: cross_entropy are decomposable, and soft accuracy, soft P/R/F1 (micro and
#: macro) held their size at N = 30. Clustered data: N counts clusters.
#: The probability scorers (hard labels, log or squared terms) measured the
#: same way with y drawn from P (400-1000 data sets): log loss .090/.066/.054
#: at N = 30/100/200, D² log loss .065/.065/.050, Brier .095/.058/.058, D²
#: Brier .080/.055/.053 (tests/metrics/test_proba_scorers.py, slow).
BCA_SOFT_MIN_N = {
    "brier_score": 100,
    "d2_brier_score": 100,
    "d2_log_loss_score": 200,
    "log_loss": 200,
    "cross_entropy": 200,
    "entropy_correlation": 200,
    "entropy_similarity": 200,
    "jsd": 100,
    "multilabel_entropy_correlation": 100,
    "multilabel_po_jsd": 100,
    "po_jsd": 400,
}


def bca_metric_reasons(paired):
    """Why BCa is unreliable for this soft metric at this N (empty list: it is not).

    Parameters
    ----------
    paired : PairedData

    Returns
    -------
    list of str
        One reason when ``paired.metric.name`` is in :data:`BCA_SOFT_MIN_N`
        and ``paired.n_units`` is below its minimum, else empty.
    """
    min_n = BCA_SOFT_MIN_N.get(paired.metric.name)
    if min_n is None or paired.n_units >= min_n:
        return []
    what, unit = ("G", "clusters") if paired.clustered else ("N", "items")
    return [f"{what} = {paired.n_units} {unit} < {min_n} for {paired.metric.name!r}, whose "
            "skewed per-item values make BCa reject a true null too often"]


#: BCa over clusters (``groups=``) needs more clusters than
#: ``BCA_SMALL_SAMPLE_LIMITS`` gives items: on per-item scores of 10 samples
#: per question (binary, question difficulty shared, system x question
#: effects of SD 1 on the logit scale), null, 2,000 data sets a cell, the 95 %
#: interval covered 0 in .9345 / .927 / .9325 / .9315 of data sets at 20 / 30
#: / 40 / 50 clusters and .9455 / .949 / .9445 at 60 / 80 / 100 (band
#: [.9405, .9595]); the permutation p-value held at every G (.027-.06 over
#: 300 data sets). Measured by tests/engine/test_few_clusters.py (slow).
BCA_MIN_CLUSTERS = 60


def bca_cluster_reasons(paired):
    """Why BCa over these clusters may under-cover (empty list: it should not).

    One reason when the data are clustered with at least the generic minimum
    (``BCA_SMALL_SAMPLE_LIMITS[0]``, reported by :func:`small_sample_reasons`)
    but fewer than :data:`BCA_MIN_CLUSTERS` clusters.
    """
    g = paired.n_units
    if not paired.clustered or g < BCA_SMALL_SAMPLE_LIMITS[0] or g >= BCA_MIN_CLUSTERS:
        return []
    return [f"G = {g} clusters < {BCA_MIN_CLUSTERS}, below which the BCa interval over "
            "clusters under-covers"]


#: The bootstrap tests on the rank metrics need enough items of the rarer
#: class: the AUC and the average precision are averages over the positives
#: (and the negatives), so with few of them the bootstrap distribution of a
#: difference is too narrow, whatever N. Minimum number of items of the
#: rarest class (binary: min(positives, negatives); multiclass: the smallest
#: class, the rarer side of its one-vs-rest or one-vs-one problems), per test
#: and metric: the smallest count from which the two-sided size at .05 stayed
#: <= ~.06 and BCa's coverage >= ~.94 (benchmarks/bench_small_samples_ranking.py,
#: table 1: two equally good binormal scorers, noise correlation .5, B = 999,
#: 1,000 data sets a cell, 600 for average precision). ROC AUC, N = 200 with
#: 10 / 20 / 30 / 50 / 100 positives: BCa .091 / .083 / .074 / .056 / .047,
#: BK .057 / .053 / .063 / .050 / .040; N = 1,000 with 10 / 30: BCa .129 /
#: .057, BK .088 / .048 (50 / 100: BCa .066 / .062). Average precision
#: (600 data sets): BCa exceeded the level up to 100 of the rarer class,
#: .070-.117 (N = 200 with 10 / 30 / 50 / 100 positives: .117 / .077 / .073 /
#: .085; N = 100 with 30 / 50: .097 / .097; N = 400 with 50: .070), and held
#: at 200 (N = 400, 400 data sets: .062, coverage .938); BK .023 / .063 /
#: .053 / .058, N = 100: .072 / .055, N = 400: .062 / .055. ``"roc_auc"``
#: serves every ROC AUC (multiclass: per binary problem, not measured
#: separately) and any other metric with a ``ranking``.
RANK_MIN_CLASS_ITEMS = {
    "bca": {"roc_auc": 50, "average_precision": 200},
    "bk": {"roc_auc": 20, "average_precision": 50},
}

#: The bootstrap tests on the regression metrics need more items than the
#: general limits (``*_SMALL_SAMPLE_LIMITS``): every regression item is
#: discordant, so the discordant rule never warns, and the per-item errors
#: (squared ones most) are skewed. Minimum N (clusters with ``groups=``) per
#: test and metric: the smallest N from which the two-sided size at .05
#: stayed <= ~.06 and BCa's coverage >= ~.94
#: (benchmarks/bench_small_samples_ranking.py, table 2: exchangeable
#: predictions with a shared and an own Gaussian error, B = 999, two runs of
#: 1,000 data sets near the limits). BCa at N = 50 / 100 / 150 / 200: RMSE
#: .081 / .063 / .073 / .060, MSE .086 / .066 / .068 / .059, R² .071 / .064 /
#: .056 / .057, MAE .071 / .056 / .062 / .056 (pooled where two runs). BK on
#: R² was conservative at every N (.002-.044) and has no limit here.
REGRESSION_MIN_N = {
    "bca": {"root_mean_squared_error": 200, "mean_squared_error": 200, "r2": 150,
            "mean_absolute_error": 100},
    "bk": {"root_mean_squared_error": 100, "mean_squared_error": 100,
           "mean_absolute_error": 100},
}

_TEST_LABEL = {"bca": "BCa's interval and p-value", "bk": "the bootstrap p-value"}


def _rarest_class(paired):
    """Items of the rarest class of ``y_true`` (nonzero weight), or None without labels."""
    if paired.data is None:
        return None
    y, _, _, w = paired.data
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        return None
    if w is not None:
        y = y[np.asarray(w) != 0]
    _, counts = np.unique(y, return_counts=True)
    if counts.size < 2:
        return None  # one class: the metric is undefined, warned elsewhere
    return int(counts.min())


def metric_kind_reasons(paired, test):
    """Why a bootstrap test is unreliable for this rank or regression metric here.

    Parameters
    ----------
    paired : PairedData
    test : {"bca", "bk"}
        :class:`~sigtest.BCaInterval` or
        :class:`~sigtest.BergKirkpatrickBootstrap` (and its presets).

    Returns
    -------
    list of str
        One reason naming the metric, the count below its limit
        (:data:`RANK_MIN_CLASS_ITEMS` for a metric with a ``ranking``,
        :data:`REGRESSION_MIN_N` by name) and the quantity at risk; empty
        when the data reach the limit or the metric has none.
    """
    name = paired.metric.name
    at_risk = _TEST_LABEL[test]
    if getattr(paired.metric, "ranking", None) is not None:
        limits = RANK_MIN_CLASS_ITEMS[test]
        min_items = limits.get(name, limits["roc_auc"])
        rarest = _rarest_class(paired)
        if rarest is None or rarest >= min_items:
            return []
        return [f"the rarer class has {rarest} items < {min_items} for {name!r}: with few "
                f"positives or negatives {at_risk} of a rank-metric difference reject a "
                "true null too often"]
    min_n = REGRESSION_MIN_N[test].get(name)
    if min_n is None or paired.n_units >= min_n:
        return []
    what, unit = ("G", "clusters") if paired.clustered else ("N", "items")
    return [f"{what} = {paired.n_units} {unit} < {min_n} for {name!r}, whose skewed "
            f"per-item errors make {at_risk} reject a true null too often"]


def discreteness_floor(n_discordant, alternative):
    r"""Smallest p-value a test conditional on the discordant items can give.

    With :math:`d` discordant items a paired permutation has at most
    :math:`2^d` equally likely outcomes; the most extreme one (all :math:`d`
    items favour the same system) has probability :math:`2^{-d}`, so

    .. math:: p \ge 2^{-d} \ (\text{one-sided}), \qquad
              p \ge \min(1, 2^{1-d}) \ (\text{two-sided}),

    the exact sign test (McNemar) with all items going one way. ``d = 0``
    gives 1. The power of two is exact down to :math:`2^{-1074}`; below it
    (:math:`d > 1075` two-sided, :math:`d > 1074` one-sided) the value is
    :data:`~sigtest._engine.pvalues.SMALLEST_PVALUE`, the smallest positive
    double (a p-value is never 0), and :func:`log10_discreteness_floor`
    gives its exact size.

    Parameters
    ----------
    n_discordant : int
        Number of discordant items (see ``discordant_count``).
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float

    Examples
    --------
    >>> discreteness_floor(10, "two-sided"), discreteness_floor(10, "greater")
    (0.001953125, 0.0009765625)
    >>> discreteness_floor(1200, "two-sided")  # 2**-1199 underflows
    5e-324
    """
    d = int(n_discordant)
    if d <= 0:
        return 1.0
    exponent = 1 - d if alternative == "two-sided" else -d
    return float(min(1.0, max(SMALLEST_PVALUE, math.ldexp(1.0, exponent))))


def log10_discreteness_floor(n_discordant, alternative):
    r""":math:`\log_{10}` of :func:`discreteness_floor`, exact at any :math:`d`.

    .. math:: \log_{10} p = (1 - d) \log_{10} 2 \ (\text{two-sided}), \qquad
              -d \log_{10} 2 \ (\text{one-sided}),

    (0 for :math:`d = 0`, and for :math:`d = 1` two-sided): finite where
    the floor itself underflows to the smallest positive double.

    Examples
    --------
    >>> round(log10_discreteness_floor(1200, "two-sided"), 4)  # McNemar's log10 p
    -360.935
    """
    d = int(n_discordant)
    if d <= 0:
        return 0.0
    exponent = 1 - d if alternative == "two-sided" else -d
    return min(0.0, exponent * math.log10(2.0))


def point_mass_pvalue(point, n_discordant, side="two-sided", null_value=0.0, atol=0.0):
    r"""p-value when every bootstrap resample gives the observed difference.

    A bootstrap distribution that is the single point :math:`t` (every
    resample equal to the observed difference) says that every item
    favours the same system by the same amount. If :math:`t` lies beyond
    the null value :math:`\theta_0` on the tested side (by more than
    ``atol``), this is the most extreme outcome a test conditional on the
    :math:`d` discordant units can see, and the p-value is the exact sign
    test's with all :math:`d` going one way,

    .. math:: p = 2^{1-d} \ (\text{two-sided}), \qquad p = 2^{-d}
              \ (\text{one-sided}),

    (:func:`discreteness_floor`): the exact permutation p-value of such data
    (every sign pattern is equally likely and only the observed one and, two
    sided, its mirror image are as extreme). The Monte Carlo floor
    :math:`1/(B+1)` does not apply: the resamples are all equal, so more of
    them would change nothing. Otherwise (the point is on the null's side:
    :math:`t = 0` for identical systems, or B worse for ``"greater"``)
    ``p = 1``.

    Parameters
    ----------
    point : float
        The difference every resample gave, on the scale of ``side`` (the
        oriented :math:`t` for Berg-Kirkpatrick's test, the raw
        :math:`\delta` for an inverted interval).
    n_discordant : int
        Number :math:`d` of discordant units (see :func:`discordant_count`).
    side : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative: :math:`\theta \ne`, :math:`>` or :math:`<` ``null_value``.
    null_value : float, default=0.0
    atol : float, default=0.0
        Differences within ``atol`` of ``null_value`` count as equal to it
        (the rounding of the scores, see
        :func:`~sigtest._engine.pvalues.tie_tolerance`).

    Returns
    -------
    float
        ``nan`` if ``point`` is not finite.

    Examples
    --------
    >>> point_mass_pvalue(1.0, 30)  # 30 of 30 items favour B: 2**-29
    1.862645149230957e-09
    >>> point_mass_pvalue(0.0, 0), point_mass_pvalue(-1.0, 30, "greater")
    (1.0, 1.0)
    """
    beyond = _beyond_null(point, side, null_value, atol)
    if beyond is None:
        return math.nan
    return discreteness_floor(n_discordant, side) if beyond else 1.0


def point_mass_log10_pvalue(point, n_discordant, side="two-sided", null_value=0.0, atol=0.0):
    r""":math:`\log_{10}` of :func:`point_mass_pvalue`, exact at any :math:`d`.

    :math:`(1 - d)\log_{10} 2` two-sided, :math:`-d \log_{10} 2` one-sided
    when the point lies beyond the null value (:func:`log10_discreteness_floor`),
    else 0; ``nan`` if ``point`` is not finite. It stays finite where
    :math:`2^{1-d}` underflows (:math:`d > 1075`), for the result's
    ``log10_pvalue``. Parameters as :func:`point_mass_pvalue`.

    Examples
    --------
    >>> round(point_mass_log10_pvalue(1.0, 1200), 4)  # 2**-1199
    -360.935
    """
    beyond = _beyond_null(point, side, null_value, atol)
    if beyond is None:
        return math.nan
    return log10_discreteness_floor(n_discordant, side) if beyond else 0.0


def _beyond_null(point, side, null_value, atol):
    """Whether ``point`` lies beyond ``null_value`` on ``side`` (``None``: not finite)."""
    point = float(point)
    if not math.isfinite(point):
        return None
    gap = point - float(null_value)
    return {"two-sided": abs(gap) > atol, "greater": gap > atol, "less": gap < -atol}[side]


#: Fewer clusters than this (``groups=``) make cluster-level tests unreliable:
#: the cluster bootstrap and the asymptotic tests need many clusters (Cameron,
#: Gelbach & Miller 2008 find over-rejection below ~20-50), the permutation
#: over clusters stays exact but coarse (``p >= 2**(1 - G)``).
FEW_CLUSTERS = 20


def small_sample_reasons(n_samples, n_discordant, limits, unit="items"):
    """Why the data are too few for a bootstrap test (empty list: they are not).

    ``limits`` is ``(minimum N, minimum number of discordant units)``;
    ``unit`` names the resampling unit in the messages (``"clusters"`` for
    clustered data, where ``n_samples`` and ``n_discordant`` count clusters).
    """
    min_n, min_d = limits
    reasons = []
    if n_samples < min_n:
        what = "N" if unit == "items" else "G"
        reasons.append(f"{what} = {n_samples} {unit} < {min_n}")
    if n_discordant < min_d:
        reasons.append(f"d = {n_discordant} discordant {unit} (where A and B differ) "
                       f"< {min_d}")
    return reasons


def warn_small_sample(test_name, reasons, *, floored=False):
    """Emit :class:`~sigtest.SmallSampleWarning` naming the exact permutation test.

    The warning is attributed to the first frame outside sigtest
    (:func:`sigtest.utils.warn_external`), whatever the call path. The
    warning instance carries ``test_name``, ``reasons`` (the list) and
    ``floored``, so that a caller running the test for one quantity only
    (:func:`sigtest.compare`: an interval test beside a permutation p-value)
    can say which quantity is at risk and which remedy applies.
    """
    what = "; ".join(reasons) if reasons else "few discordant items"
    tail = (" The p-value was raised to the exact sign-test bound (all discordant items "
            "going one way)." if floored else "")
    warning = SmallSampleWarning(
        f"{test_name}: the data are too few for a bootstrap test ({what}); its size can "
        f"exceed the nominal level and its interval under-cover.{tail} Use the exact "
        "permutation test, sigtest.PairedPermutation(), which is valid at any N.")
    warning.test_name, warning.reasons, warning.floored = test_name, list(reasons), floored
    warn_external(warning, SmallSampleWarning)
