"""Every pair of a comparison at once, for a hard-label metric with sufficient statistics.

The companion of :mod:`~sigtest._workflows.compare.bulk` (0/1 means) for the
other cellwise hard-label metrics with statistics (``f1_macro``,
``f1_micro``, ``precision_macro``, ``balanced_accuracy``, ``cohen_kappa``,
...), under the same conditions (a two-sided :class:`~sigtest.BCaInterval`
on the comparison's shared bootstrap draws, no weights, clusters or strata,
one run per system, the class set given by ``compare``). Per system, once:

* its score and parameters from :func:`~sigtest._engine.prepare_paired` of
  the system against itself (the scalar path's computation: the column
  sums of integer statistics are exact in any order, so the score is the
  per-pair path's bit for bit); a system whose preparation warns (a class
  it never predicts: an undefined precision) keeps its pairs on the
  per-pair path, where the warning is reported;
* the metric's statistics row ``S[t, p]`` of every (true, predicted) label
  and its leave-one-out value ``g(sums - S[t, p])``.

Per pair, the cell counts, the jackknife acceleration, the influence
concentration and the discordant counts by
:func:`~sigtest._engine.pairs_jackknife.pairs_jackknife` (a numba pass over
the items), then the rows by :func:`~sigtest._workflows.compare.bulk_rows.bca_rows`.
A pair the scalar test would treat specially (few items or discordant items,
too few items discordant about the class that matters, a concentrated
difference, a floored p-value, a degenerate distribution, an undefined
acceleration) goes to the per-pair path: the rows equal the per-pair
path's (scores, ``delta`` and ``n_resamples`` bit for bit, intervals and
p-values to rounding of the acceleration: ``tests/workflows/compare/test_bulk_statistics.py``).
"""

import warnings

import joblib
import numpy as np

from sigtest._engine import prepare_paired
from sigtest._engine.pairs_jackknife import (WATCH_MACRO, WATCH_NONE, encode_labels,
                                              kernel_enabled, pairs_jackknife)
from sigtest._engine.paired import metric_values
from sigtest._engine.small_sample import (BCA_SMALL_SAMPLE_LIMITS, bca_metric_reasons,
                                          metric_kind_reasons)
from sigtest._workflows.compare.bulk_rows import bca_rows, finite_rows, plain

__all__ = ["statistics_metric", "statistics_rows"]

#: Keyword arguments of a metric this path takes (the others: per pair).
_KEYWORDS = {"labels", "pos_label"}


def statistics_metric(metric, kwargs):
    """Whether pairs of ``metric`` with ``kwargs`` can take this module's bulk path.

    A cellwise hard-label metric with sufficient statistics, no ranking, the
    class set given (``labels``, as ``compare`` passes it) and no weights or
    design; numba enabled (the per-pair counts are a numba pass).
    """
    return (metric.has_statistics and metric.cellwise and metric.input_type == "labels"
            and getattr(metric, "ranking", None) is None and "labels" in kwargs
            and set(kwargs) <= _KEYWORDS and kernel_enabled())


def statistics_rows(group, T, n_jobs):
    """The rows of the pairs of a :class:`~sigtest._workflows.compare.plan_tasks.JobGroup`.

    ``T`` (``k x B``): the systems' shared bootstrap scores, rows indexed by
    system. Returns ``(taken, block)`` as
    :func:`~sigtest._workflows.compare.bulk_rows.bca_rows` (``([], None)``
    when no pair can take the bulk path).
    """
    out = [], None
    systems = group.systems()
    if not finite_rows(T, systems):  # non-finite draws: per pair
        return out
    tables = _system_tables(group.view, group.metric, group.kwargs, systems)
    if tables is None:
        return out
    a, b, _ = group.positions({s: c for c, s in enumerate(systems)})
    keep = np.flatnonzero(tables["ok"][a] & tables["ok"][b])
    if not keep.size:
        return out
    I, J = a[keep], b[keep]
    d, watched, acceleration, n_eff = pairs_jackknife(
        tables["y"], tables["codes"], I, J, tables["loo"], tables["differ"],
        tables["class_differ"], tables["present"], tables["watch"],
        n_threads=joblib.effective_n_jobs(n_jobs))
    limit_n, limit_d = BCA_SMALL_SAMPLE_LIMITS
    regular = ((tables["n"] >= limit_n) & (d >= limit_d) & np.isfinite(acceleration)
               & plain(n_eff, d) & ((watched < 0) | (watched >= limit_d)))
    pair = {"d": d, "acceleration": acceleration, "regular": regular,
            "score_a": tables["scores"][I], "score_b": tables["scores"][J]}
    return bca_rows(group, keep, T, pair, n_jobs)


def _system_tables(view, metric, kwargs, systems):
    """What the pairs of ``systems`` need of each system and label (None: per pair).

    A dict: ``y`` and ``codes`` (:func:`encode_labels`), ``n`` items,
    per system ``scores`` and ``ok`` (prepared without a warning), the
    leave-one-out table ``loo`` and the class presence ``present``, per cell
    ``differ`` and ``class_differ``, and ``watch`` (the class count the
    small-sample rule reads).
    """
    y, stacks = view[metric.input_type]
    y = np.asarray(y)
    preds = [np.asarray(stacks[s][0]) for s in systems]
    if any(p.shape != y.shape for p in preds) or y.ndim != 1:
        return None
    encoded = encode_labels(y, preds)
    if encoded is None:
        return None
    union, y_codes, codes = encoded
    prepared = [_prepared(y, p, metric, kwargs) for p in preds]
    first = next((p for p, _ in prepared if p is not None), None)
    if first is None or bca_metric_reasons(first) or metric_kind_reasons(first, "bca"):
        return None
    S = _statistics_table(metric, first.params, union, y.shape[0])
    if S is None:
        return None
    K, s = union.shape[0], S.shape[-1]
    cells = np.zeros((len(systems), K * K))
    for c in range(len(systems)):
        cells[c] = np.bincount(y_codes.astype(np.int64) * K + codes[c], minlength=K * K)
    totals = cells @ S.reshape(K * K, s)  # exact: integer statistics below 2**53
    tables = {"y": y_codes, "codes": codes, "n": y.shape[0],
              "scores": np.array([np.nan if p is None else p.score_a for p, _ in prepared]),
              "ok": np.array([p is not None and ok for p, ok in prepared]),
              "loo": _leave_one_out(metric, first.resample_params, S.reshape(K * K, s),
                                    totals, cells)}
    tables.update(_cell_tables(metric, first.params, S, totals))
    return tables


def _prepared(y, pred, metric, kwargs):
    """``(PairedData of the system against itself, whether it prepared without a warning)``.

    ``(None, False)`` when it raises: the per-pair path raises the same error.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            paired = prepare_paired(y, pred, pred, metric, **kwargs)
        except (ValueError, TypeError):
            return None, False
    return paired, not caught and paired.compressed


def _statistics_table(metric, params, union, n):
    """``S[t, p]``: the statistics row of true label ``union[t]`` predicted ``union[p]``.

    None unless every entry is an integer (then the column sums of any
    ``n`` rows are exact) and the computation raised and warned nothing.
    """
    K = union.shape[0]
    t, p = np.divmod(np.arange(K * K), K)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            S = np.asarray(metric.statistics(union[t], union[p], **params), dtype=np.float64)
        except (ValueError, TypeError):
            return None
    if caught or S.ndim != 2 or S.shape[0] != K * K or not np.isfinite(S).all():
        return None
    if not np.array_equal(S, np.rint(S)) or n * np.abs(S).max(initial=0.0) >= 2.0**53:
        return None
    return S.reshape(K, K, -1)


def _leave_one_out(metric, resample_params, S, totals, cells):
    """``loo[s, t K + p]``: the metric of system ``s`` without one item of cell ``(t, p)``.

    The scalar jackknife's ``values(sums - row)``
    (:func:`~sigtest._engine.resampling.jackknife_values`), computed for the
    cells the system occupies (nan elsewhere: never read).
    """
    loo = np.full(cells.shape, np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in range(cells.shape[0]):
            occupied = np.flatnonzero(cells[c])
            loo[c, occupied] = metric_values(metric, resample_params,
                                             totals[c] - S[occupied])
    return loo


def _cell_tables(metric, params, S, totals):
    """``differ``, ``class_differ``, ``present`` and ``watch`` of :func:`pairs_jackknife`.

    ``differ[t, a, b]``: the rows ``S[t, a]`` and ``S[t, b]`` differ (a
    discordant cell); with per-class columns (``class_of_columns``, as
    :func:`~sigtest._engine.small_sample.class_discordant_counts` reads
    them) the same per class, and the classes of each system's nonzero
    column totals; ``watch`` the class
    :func:`~sigtest._engine.small_sample.class_small_sample_reasons` checks.
    """
    K, s = S.shape[0], S.shape[-1]
    columns = S[:, :, None, :] != S[:, None, :, :]  # (K, K, K, s)
    out = {"differ": columns.any(axis=-1), "watch": WATCH_NONE}
    class_of = getattr(metric.statistics, "class_of_columns", None)
    if class_of is None:
        out["class_differ"] = np.zeros((K, K, K, 0), dtype=bool)
        out["present"] = np.zeros((totals.shape[0], 0), dtype=bool)
        return out
    column_class = np.asarray(class_of(s), dtype=np.int64)
    n_classes = int(column_class.max()) + 1
    out["class_differ"] = np.stack([columns[..., column_class == k].any(axis=-1)
                                    for k in range(n_classes)], axis=-1)
    out["present"] = np.stack([(totals[:, column_class == k] != 0).any(axis=1)
                               for k in range(n_classes)], axis=1)
    labels = params.get("labels")
    if params.get("pos_label") is not None and labels is not None:
        idx = np.flatnonzero(np.asarray(labels) == params["pos_label"])
        out["watch"] = int(idx[0]) if idx.size == 1 else WATCH_NONE
    elif params.get("average") == "macro":
        out["watch"] = WATCH_MACRO
    return out
