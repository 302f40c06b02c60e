r"""Leaderboard inference for :meth:`ComparisonResult.ranks`: ranks, P(best), the best set.

The systems of a comparison are resampled *together*: one bootstrap draw of
the test items (or of whole clusters with ``groups=``, within strata with
``strata=``) per resample gives every system's score on the same resample
(:mod:`sigtest._engine.shared`), and the joint distribution of the scores
gives the rank intervals, the probability of being best and the model
confidence set (:mod:`sigtest._engine.ranking`).

The data are those of the comparison, prepared as for
:meth:`ComparisonResult.scores` (:func:`sigtest._workflows.compare.plan.plan_scores`:
same class set, ``pos_label``, sample weights, runs averaged per item).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd

from sigtest._constants import N_RESAMPLES
from sigtest._workflows.compare.plan import plan_scores
from sigtest._workflows.compare import maxt as maxt_module
from sigtest._workflows.compare.maxt import check_bootstrap, multiplier_pays
from sigtest._workflows.compare.shared import canonical_order, multiplier_scores, shared_seed
from sigtest._workflows.compare.tables import observed_scores
from sigtest._engine.design import check_design
from sigtest._engine.paired import resample_params_of
from sigtest._engine.ranking import (
    best_probability,
    model_confidence_set,
    observed_ranks,
    rank_intervals,
)
from sigtest._engine.ranking_pairs import column_major
from sigtest._engine.rng import check_seed
from sigtest._engine.rank_shared import rank_shared_scores, uses_shared_ranking
from sigtest._engine.shared import shared_draw_blocks
from sigtest._engine.shared_job import resampled_scores, system_data
from sigtest.exceptions import DegenerateDistributionWarning
from sigtest.utils import warn_external

__all__ = ["RANK_COLUMNS", "rank_table"]

RANK_COLUMNS = ["system", "metric", "rank", "rank_low", "rank_high", "p_best", "in_best_set"]

#: Spawn-key tag of the default seed of ranks() (ASCII "rank"): a child of the
#: comparison's score seed that no other child of it uses.
_RANK_TAG = 0x72616E6B


def _check_args(metric, metrics, confidence_level, n_resamples, bootstrap):
    if metric is None:
        chosen = list(metrics)
    else:
        chosen = [metric] if isinstance(metric, str) else metric
        if not isinstance(chosen, (list, tuple)) or not all(isinstance(m, str) for m in chosen):
            raise TypeError(
                f"The 'metric' parameter must be None, a metric name or a list of names. "
                f"Got {metric!r} instead."
            )
        unknown = [m for m in chosen if m not in metrics]
        if unknown:
            raise ValueError(
                f"The 'metric' parameter names unknown metrics {unknown}; this result has "
                f"{list(metrics)}."
            )
    if (not isinstance(confidence_level, Real) or isinstance(confidence_level, bool)
            or not 0 < confidence_level < 1):
        raise ValueError(
            "The 'confidence_level' parameter must be a float in (0, 1). "
            f"Got {confidence_level!r} instead."
        )
    if (not isinstance(n_resamples, Integral) or isinstance(n_resamples, bool)
            or n_resamples < 2):
        raise ValueError(
            f"The 'n_resamples' parameter must be an int >= 2. Got {n_resamples!r} instead."
        )
    check_bootstrap(bootstrap)
    return chosen


def _unit_items(design, n):
    """Item indices of every unit (slow path): one item per unit, or a cluster's items."""
    if design.item_groups is None:
        return None
    order = np.argsort(design.item_groups, kind="stable")
    bounds = np.searchsorted(design.item_groups[order], np.arange(design.n_groups + 1))
    return [order[bounds[g]:bounds[g + 1]] for g in range(design.n_groups)]


def _slow_scores(data, draws, unit_items):
    """Resampled scores of metrics without statistics: ``score_func`` per resample and system."""
    B = draws.shape[0]
    out = np.empty((B, len(data)))
    for b in range(B):
        idx = draws[b] if unit_items is None else np.concatenate([unit_items[u]
                                                                  for u in draws[b]])
        for j, paired in enumerate(data):
            y, a, _, w = paired.data
            kw = {} if w is None else {"sample_weight": w[idx]}
            params = resample_params_of(paired.params, fill_unset=False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[b, j] = paired.metric.score_func(y[idx], a[idx], **kw, **params)
    return out


def _draws(bootstrap, data, design, n_items, B, metric):
    """``"resample"`` or ``"multiplier"``: the source of one metric's shared draws.

    ``"auto"``: the Gaussian multiplier draws when the resampling pass would
    cost more than ``MULTIPLIER_MIN_COST`` unit visits (``B x units x k``,
    :func:`~sigtest._workflows.compare.maxt.multiplier_pays`), as in
    :func:`sigtest.compare`, and the metric has statistics.
    """
    stats = all(p.has_statistics for p in data)
    if bootstrap == "multiplier" and not stats:
        raise ValueError(
            f"bootstrap='multiplier' needs a metric with sufficient statistics; "
            f"{metric.name!r} has none. Use bootstrap='resample' (or 'auto')."
        )
    if bootstrap != "auto":
        return bootstrap
    n_units = n_items if design.item_groups is None else design.n_groups
    return "multiplier" if stats and multiplier_pays(B, n_units, len(data)) else "resample"


def _resampled_scores(data, design, n_items, B, seed):
    """``(B, k)`` raw resampled scores of the systems on shared resamples.

    Statistics: their rows added per draw; rank metrics: each system sorted
    once, a resample its units' counts (:func:`rank_shared_scores`); any
    other metric: ``score_func`` on every resample's items.
    """
    if all(p.has_statistics for p in data):
        return resampled_scores([data], design, B, seed)[0]
    n_units = n_items if design.item_groups is None else design.n_groups
    strata = design.item_strata if design.item_groups is None else design.group_strata
    if uses_shared_ranking(data):
        return rank_shared_scores(data, B, seed, unit_of_item=design.item_groups,
                                  n_units=n_units, unit_strata=strata)
    unit_items = _unit_items(design, n_items)
    out = np.empty((B, len(data)))
    for start, draws in shared_draw_blocks(n_units, B, seed, strata):
        out[start:start + draws.shape[0]] = _slow_scores(data, draws, unit_items)
    return out


def _multiplier_or_resampled(drawn, data, design, n_items, B, seed):
    """The multiplier draws, or the resampled scores when they were declined (``None``:
    influence values too concentrated for the Gaussian approximation)."""
    return _resampled_scores(data, design, n_items, B, seed) if drawn is None else drawn


def _metric_rows(names, metric_name, greater_is_better, raw, B, level, name_rank, draw,
                 n_threads=1):
    k = len(names)
    sign = 1.0 if greater_is_better else -1.0
    theta = sign * np.asarray(raw, dtype=np.float64)
    rows = {"system": list(names), "metric": [metric_name] * k}
    nan_rows = {**rows, "rank": [pd.NA] * k, "rank_low": [pd.NA] * k,
                "rank_high": [pd.NA] * k, "p_best": [np.nan] * k, "in_best_set": [False] * k}
    if not np.all(np.isfinite(theta)):
        bad = [n for n, t in zip(names, theta) if not np.isfinite(t)]
        warn_external(
            f"ranks(): the {metric_name!r} score of {bad} is undefined (NaN) on the data; "
            "the ranks of this metric are NaN.", DegenerateDistributionWarning)
        return nan_rows
    T = sign * draw()
    finite = np.all(np.isfinite(T), axis=1)
    if not finite.all():
        warn_external(
            f"ranks(): {int((~finite).sum())} of {B} resamples give an undefined "
            f"{metric_name!r} score for some system and were dropped.",
            DegenerateDistributionWarning)
        T = T[finite]
    if T.shape[0] < 2:
        warn_external(f"ranks(): fewer than 2 usable resamples for {metric_name!r}; the "
                      "ranks of this metric are NaN.", DegenerateDistributionWarning)
        return nan_rows
    low, high, in_set = _intervals_and_set(theta, T, level, name_rank, n_threads)
    rows.update(rank=observed_ranks(theta), rank_low=low, rank_high=high,
                p_best=best_probability(T), in_best_set=in_set)
    return rows


def _intervals_and_set(theta, T, level, name_rank, n_threads):
    """Rank intervals and the best set, computed on the systems sorted by name.

    The last bits of NumPy's sums depend on the order of the systems (and on
    the layout of ``T``, kept here); sorted by name first, the rank
    intervals and the best set do not depend on the order in which the
    systems were given.
    """
    by_name = np.argsort(name_rank, kind="stable")
    cols = T[:, by_name]
    cols = np.asfortranarray(cols) if column_major(T) else np.ascontiguousarray(cols)
    low, high, _ = rank_intervals(theta[by_name], cols, level, n_threads=n_threads)
    in_set, _ = model_confidence_set(theta[by_name], cols, level,
                                     tie_order=np.asarray(name_rank)[by_name])
    out_low, out_high = np.empty_like(low), np.empty_like(high)
    out_set = np.empty_like(in_set)
    out_low[by_name], out_high[by_name], out_set[by_name] = low, high, in_set
    return out_low, out_high, out_set


def _n_threads(options):
    """Threads of the rank kernels: the comparison's ``n_jobs`` (joblib's rule; None: one)."""
    n_jobs = getattr(options, "n_jobs", None)
    if n_jobs is None:
        return 1
    import joblib

    return max(1, int(joblib.effective_n_jobs(n_jobs)))


def _reusable(kept, metric, B, random_state, bootstrap):
    """The comparison's kept draws of ``metric`` when ``ranks()`` may read them, else None.

    They are read for the default seed (``random_state=None``), when they
    hold at least ``B`` draws (the first ``B`` are used: the draws are
    independent, so a prefix is a bootstrap sample of size ``B``) and when
    ``bootstrap`` is ``"auto"`` or names their source.
    """
    found = (kept or {}).get(metric)
    if found is None or random_state is not None or found.n_resamples < B:
        return None
    if bootstrap not in ("auto", found.source):
        return None
    return found


def _planned(data, options):
    """``plan_scores`` of the comparison's data (what the resampled ranks score)."""
    return plan_scores(data.runs, data.classes, targets=data.targets, options=options,
                       settings=data.score_settings)


def _metric_draw(names, metric_obj, mi, planned, bootstrap, B, seed):
    """``(raw scores, draw)`` of one metric whose draws are made here."""
    _, _, _, tasks = planned
    by_system = {task[1]: task for task in tasks}  # one run: one task per system
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # given by compare already
        data = []
        for s in range(len(names)):
            view, _, jobs, _, _ = by_system[s]
            _, m_obj, kwargs = jobs[mi]
            data.append(system_data(view, s, m_obj, kwargs))
    # the ids as the tests got them (tiled with the runs for runs="pool")
    n_items = data[0].n_samples
    design = check_design(kwargs.get("groups"), kwargs.get("strata"), n_items)
    raw = np.array([p.score_a for p in data])
    if _draws(bootstrap, data, design, n_items, B, metric_obj) == "multiplier":
        def draw():
            drawn = multiplier_scores(by_system[0][0], [(metric_obj, kwargs)], design, B, seed,
                                      canonical_order(names))[0]
            return _multiplier_or_resampled(drawn, data, design, n_items, B, seed)
    else:
        def draw():
            return _resampled_scores(data, design, n_items, B, seed)
    return raw, draw


def rank_table(data, options, *, systems, metrics, n_runs, metric=None, confidence_level=0.95,
               n_resamples=N_RESAMPLES, random_state=None, bootstrap="auto", frame=None,
               greater_is_better=None):
    """The table of :meth:`ComparisonResult.ranks` (see its docstring).

    ``data`` and ``options`` are the result's
    :class:`~sigtest._workflows.compare.options.ComparisonData` and
    :class:`~sigtest.CompareOptions`. ``frame`` (the comparison's pair rows)
    and ``greater_is_better`` (``{metric: bool}``): the observed scores and
    orientation of a metric whose draws are the comparison's kept ones
    (``data.kept_scores``, :func:`_reusable`); without them every metric is
    drawn here.
    """
    chosen = _check_args(metric, metrics, confidence_level, n_resamples, bootstrap)
    if n_runs > 1:
        raise ValueError(
            f"ranks() needs one comparison of the systems; this result holds {n_runs} runs "
            "or CV repeats tested separately. Compare with runs='average' (or one run)."
        )
    seed = (shared_seed(data.score_settings["seed"], _RANK_TAG) if random_state is None
            else check_seed(random_state))
    names = list(systems)
    name_rank = np.argsort(np.argsort(np.asarray(names, dtype=object), kind="stable"),
                           kind="stable")
    B = int(n_resamples)
    planned = None
    frames = []
    for mi, metric_name in enumerate(metrics):
        if metric_name not in chosen:
            continue
        kept = _reusable(data.kept_scores, metric_name, B, random_state, bootstrap)
        if kept is not None and frame is not None and greater_is_better is not None:
            raw = observed_scores(frame[frame["metric"] == metric_name], names)
            greater = greater_is_better[metric_name]

            def draw(kept=kept):
                return kept.scores[:, :B].T
        else:
            if planned is None:
                planned = _planned(data, options)
                names = list(planned[0])
            metric_obj = planned[1][mi]
            greater = metric_obj.greater_is_better
            raw, draw = _metric_draw(names, metric_obj, mi, planned, bootstrap, B, seed)
        frames.append(pd.DataFrame(_metric_rows(
            names, metric_name, greater, raw, B, float(confidence_level), name_rank, draw,
            _n_threads(options))))
    out = pd.concat(frames, ignore_index=True)
    order = {m: i for i, m in enumerate(chosen)}
    out = out.iloc[np.argsort(out["metric"].map(order).to_numpy(), kind="stable")]
    out = out.reset_index(drop=True)
    for col in ("rank", "rank_low", "rank_high"):
        out[col] = out[col].astype("Int64")
    out["p_best"] = out["p_best"].astype(np.float64)
    out["in_best_set"] = out["in_best_set"].astype(bool)
    return out[RANK_COLUMNS]


def _seed_key(random_state):
    """A hashable key of a seed that gives the same draws on every call, else None.

    ``None`` (the comparison's derived seed) and ints; a Generator or
    RandomState advances when used, so a table drawn from one is not kept.
    """
    if random_state is None:
        return ("derived",)
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return ("int", int(random_state))
    return None


def cached_rank_table(cache, data, options, *, metric=None, confidence_level=0.95,
                      n_resamples=N_RESAMPLES,
                      random_state=None, bootstrap="auto", **kwargs):
    """:func:`rank_table`, each metric's rows computed once per result and then kept.

    ``cache`` (a dict the result owns) maps ``(metric, confidence_level,
    n_resamples, seed, bootstrap)`` to that metric's rows; a metric's rows
    do not depend on which other metrics are asked for (each metric's draws
    use the same seed), so ``ranks()``, ``ranks("f1_macro")`` and
    ``leaderboard()`` share them. Tables drawn from a Generator are not
    kept (it advances). Returns a new DataFrame on every call.
    """
    metrics = kwargs["metrics"]
    chosen = _check_args(metric, metrics, confidence_level, n_resamples, bootstrap)
    seed_key = _seed_key(random_state)
    if seed_key is None or cache is None:
        return rank_table(data, options, metric=metric, confidence_level=confidence_level,
                          n_resamples=n_resamples, random_state=random_state,
                          bootstrap=bootstrap, **kwargs)
    # "auto" resolves through the cost threshold of the multiplier draws
    source = (bootstrap, maxt_module.MULTIPLIER_MIN_COST if bootstrap == "auto" else None)
    keys = {m: ("ranks", m, float(confidence_level), int(n_resamples), seed_key, source)
            for m in chosen}
    missing = [m for m in chosen if keys[m] not in cache]
    if missing:
        table = rank_table(data, options, metric=missing, confidence_level=confidence_level,
                           n_resamples=n_resamples, random_state=random_state,
                           bootstrap=bootstrap, **kwargs)
        for m, part in table.groupby("metric", sort=False):
            cache[keys[m]] = part.reset_index(drop=True)
    return pd.concat([cache[keys[m]] for m in chosen], ignore_index=True)
