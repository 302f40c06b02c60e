r"""``compare_datasets``: several systems over several datasets (Demšar 2006).

One score per (dataset, system) gives average ranks, the Friedman and
Iman-Davenport tests, Nemenyi's critical difference and post-hoc p-values
(:mod:`sigtest.tests_._rank_tests`). Per-dataset predictions also give the
item-level paired test of every pair on every dataset (through
:func:`sigtest.compare`) and the replicability count of Dror et al. (2017).
"""

import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import pandas as pd

from sigtest._constants import RUNS_MODES
from sigtest._workflows.compare.api import compare
from sigtest.exceptions import SmallSampleWarning
from sigtest.metrics import Metric, as_metric
from sigtest.utils import warn_external
from sigtest.utils._param_validation import lazy, validate_params
from sigtest.utils.validation import spawn_seeds
from sigtest._workflows.datasets_result import DatasetComparisonResult, few_datasets_caveat
from sigtest.tests_ import PairedPermutation
from sigtest._workflows.compare.checks import check_tests

__all__ = ["compare_datasets"]

_LONG = ("dataset", "system", "score")


# ------------------------------------------------------------------ inputs
def _long_to_wide(frame):
    """Long table (dataset, system, score[, run]) -> wide mean over runs."""
    missing = [c for c in _LONG if c not in frame.columns]
    if missing:
        raise ValueError(f"The 'data' parameter (long format) lacks column(s) {missing}.")
    extra = sorted(set(map(str, frame.columns)) - set(_LONG) - {"run"})
    if extra:
        raise ValueError(
            f"The 'data' parameter (long format) has unknown column(s) {extra}; expected "
            "dataset, system, score and optionally run.")
    keys = ["dataset", "system"] + (["run"] if "run" in frame.columns else [])
    dup = frame.duplicated(subset=keys, keep=False)
    if dup.any():
        first = frame.loc[dup, keys].iloc[0].tolist()
        hint = "" if "run" in frame.columns else " (several seeds? add a 'run' column)"
        raise ValueError(
            f"The 'data' parameter has several scores for {dict(zip(keys, first))}{hint}.")
    score = pd.to_numeric(frame["score"], errors="coerce")
    if score.isna().any() and frame["score"].notna().loc[score.isna()].any():
        raise TypeError("The 'data' parameter's 'score' column must be numeric.")
    tidy = frame.assign(score=score)
    wide = tidy.pivot_table(index="dataset", columns="system", values="score", aggfunc="mean",
                            sort=False, dropna=False)
    wide.index.name, wide.columns.name = "dataset", "system"
    return wide, int(tidy.groupby(["dataset", "system"])["score"].size().max())


def _check_wide(frame):
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError("The 'data' parameter is an empty table.")
    for axis, labels in (("dataset (row)", frame.index), ("system (column)", frame.columns)):
        if labels.has_duplicates:
            raise ValueError(f"The 'data' parameter has duplicate {axis} labels: "
                             f"{sorted(map(str, labels[labels.duplicated()]))}.")
    try:
        values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise TypeError("The 'data' parameter must hold numeric scores.") from exc
    if np.isinf(values).any():
        raise ValueError("The 'data' parameter holds infinite scores.")
    return pd.DataFrame(values, index=frame.index.copy(), columns=frame.columns.copy())


def _drop_missing(scores):
    """The missing-cell rule (documented in :func:`compare_datasets`)."""
    miss = scores.isna()
    if not miss.to_numpy().any():
        return scores, [], []
    n = scores.shape[0]
    systems = [s for s in scores.columns if miss[s].sum() > n / 2]
    kept = scores.drop(columns=systems)
    datasets = [d for d in kept.index if kept.loc[d].isna().any()]
    kept = kept.drop(index=datasets)
    if systems:
        warn_external(
            f"compare_datasets dropped system(s) {list(map(str, systems))}: missing on more than "
            "half of the datasets.", UserWarning)
    if datasets:
        warn_external(
            f"compare_datasets dropped dataset(s) {list(map(str, datasets))}: a score is missing "
            "for some system.", UserWarning)
    return kept, systems, datasets


def _check_sizes(scores):
    n, k = scores.shape
    problems = []
    if k < 2:
        problems.append(f"{k} system(s) (need at least 2)")
    if n < 2:
        problems.append(f"{n} complete dataset(s) (need at least 2)")
    if problems:
        raise ValueError("The 'data' parameter leaves " + " and ".join(problems)
                         + " after dropping missing cells.")


def _check_predictions(data):
    out = {}
    for name, value in data.items():
        if not (isinstance(value, tuple) and len(value) in (2, 3)
                and isinstance(value[1], Mapping)):
            raise TypeError(
                f"The 'data' parameter must map each dataset to (y_true, {{system: predictions}}) "
                f"or (y_true, {{system: predictions}}, groups); dataset {name!r} maps to "
                f"{type(value).__name__}.")
        groups = value[2] if len(value) == 3 else None
        out[name] = (value[0], dict(value[1]), groups)
    if not out:
        raise ValueError("The 'data' parameter holds no dataset.")
    return out


def _warn_few_data(small, test, runs):
    """One :class:`~sigtest.SmallSampleWarning` for the datasets whose pairs have few data.

    ``small`` maps each such dataset to the number of small-sample warnings
    its ``compare`` gave (one per distinct message). The exact permutation
    test is recommended only when some p-value does not come from it already
    (as with the default test); the intervals' under-coverage is said either
    way.
    """
    exact = all(isinstance(p, PairedPermutation)
                for _, p, _ in check_tests(test, runs_mode=runs))
    names = list(small)
    what = (f"compare_datasets: on {len(names)} dataset(s) ({', '.join(map(str, names[:5]))}"
            f"{', ...' if len(names) > 5 else ''}) some pairs differ on few items (fewer "
            "than 20 discordant items, few clusters, or a difference carried by a handful "
            "of items), so their bootstrap intervals may under-cover")
    if exact:
        tail = "; their p-values come from the exact permutation test, valid at any N."
    else:
        tail = (" and the size of their bootstrap p-values can exceed alpha. Use the exact "
                "permutation test, sigtest.PairedPermutation(), which is valid at any N.")
    warn_external(what + tail, SmallSampleWarning)


def _item_tests(data, metric, test, *, alpha, random_state, n_jobs, runs):
    """One :func:`sigtest.compare` per dataset; seeds by sorted dataset name."""
    order = sorted(data, key=str)
    seeds = dict(zip(order, spawn_seeds(random_state, len(order))))
    comparisons, cells, small = {}, {}, {}
    for name in data:
        y, preds, groups = data[name]
        cells[name] = {}
        if len(preds) < 2:
            for system, pred in preds.items():
                cells[name][system] = np.nan
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = compare(y, preds, metrics=metric, test=test, pairs="all",
                             correction=None, alpha=alpha, n_jobs=n_jobs,
                             random_state=seeds[name], runs=runs, groups=groups)
        for w in caught:  # compare's warnings, once each; few data: one note for all
            if issubclass(w.category, SmallSampleWarning):
                small.setdefault(name, 0)
                small[name] += 1
            else:
                warn_external(str(w.message), w.category)
        comparisons[name] = result
        table = result.system_table()
        for system in preds:
            cells[name][system] = float(table.loc[system].iloc[0])
    if small:
        _warn_few_data(small, test, runs)
    systems = list(dict.fromkeys(s for name in data for s in data[name][1]))
    wide = pd.DataFrame([[cells[d].get(s, np.nan) for s in systems] for d in data],
                        index=pd.Index(list(data), name="dataset"),
                        columns=pd.Index(systems, name="system"), dtype=np.float64)
    return wide, comparisons


# ------------------------------------------------------------------ result
# ------------------------------------------------------------------ public entry
@validate_params(
    {"data": [pd.DataFrame, Mapping], "metric": [str, Metric, callable],
     "test": [lazy.HasMethods(["test"]), str, tuple, None],
     "alpha": [lazy.Interval(Real, 0, 1, closed="neither")],
     "random_state": [None, Integral, np.random.SeedSequence, np.random.Generator],
     "greater_is_better": ["boolean", None], "n_jobs": [Integral, None],
     "runs": [lazy.StrOptions(set(RUNS_MODES) - {"each"})], "tie_correction": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def compare_datasets(data, metric="accuracy", test=None, *, alpha=0.05, random_state=None,
                     greater_is_better=None, n_jobs=None, runs="average", tie_correction=True):
    r"""Compare several systems over several datasets: ranks, Friedman, post-hoc tests.

    Read more in the User Guide page "Many datasets and seeds"
    (``docs/datasets_seeds.md``).

    Parameters
    ----------
    data : pandas.DataFrame or mapping
        One of

        * a wide table: rows = datasets, columns = systems, one score per cell;
        * a long table with columns ``dataset, system, score`` and optionally
          ``run`` (one row per seed): the runs of a cell are **averaged**
          before ranking;
        * per-dataset predictions ``{dataset: (y_true, {system: pred})}``
          or ``{dataset: (y_true, {system: pred}, groups)}`` (``groups``:
          the cluster id of every item, as ``compare``'s; ``y_true=None``
          with per-item scores and ``metric="mean"``)
          (``pred`` an array, or a list of arrays for several runs): each
          cell's score is computed with ``metric``, and the item-level paired
          test of every pair runs on every dataset through
          :func:`sigtest.compare` (for :meth:`~DatasetComparisonResult.replicability`).
    metric : str or Metric, default="accuracy"
        A registered metric (:func:`sigtest.get_metric_names`), a function
        ``f(y_true, y_pred, **kw) -> float`` or a scikit-learn scorer
        (:func:`sigtest.as_metric`). For score
        tables it fixes the orientation (``greater_is_better``) and the label;
        any name is accepted there when ``greater_is_better`` is given.
    test : SignificanceTest, str or tuple, optional
        Item-level test, as ``compare``'s ``test`` (predictions only; default:
        ``compare``'s default permutation p-value with a BCa interval).
    alpha : float, default=0.05
        Level of the critical difference and of the significance counts.
    random_state : None, int, SeedSequence or Generator
        Seed of the item-level tests: one child seed per dataset, datasets
        taken in the order of their names as strings (so results do not depend
        on the order of the datasets or of the systems).
    greater_is_better : bool, optional
        Orientation of raw score tables; default: the metric's.
    n_jobs : int, optional
        Parallel jobs of each dataset's ``compare``.
    runs : str, default="average"
        How ``compare`` uses several runs (seeds) of a system on one dataset
        (its ``runs`` modes except ``"each"``); the cell score is the score
        ``compare`` reports for the system (for ``"average"``, the pooled
        score of the runs: their mean for accuracy).
    tie_correction : bool, default=True
        Divide Friedman's :math:`\chi^2_F` by the tie correction (as
        :func:`scipy.stats.friedmanchisquare`); ``False`` gives Demšar's
        (2006) formula as printed, which reproduces his worked example.

    Returns
    -------
    result : DatasetComparisonResult
        ``average_ranks``, ``friedman``, ``iman_davenport``,
        ``critical_difference``, ``pairwise()``, ``effect_sizes()``,
        ``bayesian()``, ``replicability()``,
        ``summary()``, ``system_table()``, ``to_frame()``, ``to_dict()``.

    Raises
    ------
    ValueError
        If fewer than 2 systems or 2 complete datasets remain after the
        missing-cell rule, or the table is malformed.

    Warns
    -----
    UserWarning
        Naming the systems and datasets dropped by the missing-cell rule;
        and with fewer than 11 complete datasets (Demšar's rule of thumb
        :math:`N > 10`), saying that the rank tests' approximations are rough
        and pointing to the item-level overall comparison
        (``sigtest.compare(..., strata=dataset)``); the printed result repeats
        the caveat.
    SmallSampleWarning
        Once for all datasets (named) on which some pair differs on few items
        (the item-level tests' small-sample rule): their bootstrap intervals
        may under-cover; the exact permutation test is recommended only when
        some p-value is not already from it (the default test's is).

    See Also
    --------
    sigtest.plotting.plot_critical_difference : The critical-difference diagram.
    sigtest.compare : Many systems on one dataset.

    Notes
    -----
    Ranks: on each dataset rank 1 is the best system, ties share their
    average rank; :math:`R_j` is the mean over the ``N`` datasets. Friedman:
    :math:`\chi^2_F = \frac{12N}{k(k+1)}[\sum_j R_j^2 - k(k+1)^2/4]` (divided
    by the tie correction :math:`1 - \sum(t^3 - t)/(Nk(k^2-1))` of
    :func:`scipy.stats.friedmanchisquare` unless ``tie_correction=False``),
    :math:`\chi^2_{k-1}`; Iman-Davenport :math:`F_F = (N-1)\chi^2_F/(N(k-1) -
    \chi^2_F)`, :math:`F_{k-1,(k-1)(N-1)}`; Nemenyi's :math:`CD = q_\alpha
    \sqrt{k(k+1)/(6N)}`, :math:`q_\alpha` the Studentized range quantile over
    :math:`\sqrt 2` (Demšar 2006).

    Missing cells: first every system missing on **more than half** of the
    datasets is dropped; then every dataset still missing a score is dropped
    (a warning names both). The rank tests need a complete table.
    The item-level tests and the replicability counts use every dataset on
    which both systems of a pair have predictions.

    References
    ----------
    J. Demšar (2006). Statistical comparisons of classifiers over multiple
    data sets. JMLR 7, 1-30.
    R. Dror, G. Baumer, M. Bogomolov and R. Reichart (2017). Replicability
    analysis for natural language processing. TACL 5, 471-486.

    Examples
    --------
    >>> import pandas as pd
    >>> from sigtest import compare_datasets
    >>> table = pd.DataFrame({"A": [.81, .72, .90, .65, .77], "B": [.84, .75, .91, .70, .79],
    ...                       "C": [.80, .70, .88, .66, .74]},
    ...                      index=["d1", "d2", "d3", "d4", "d5"])
    >>> result = compare_datasets(table)
    >>> result.average_ranks.tolist()
    [2.2, 1.0, 2.8]
    >>> round(result.friedman.statistic, 3), round(result.critical_difference, 3)
    (8.4, 1.482)
    """
    if isinstance(data, pd.DataFrame):
        if runs != "average":
            raise ValueError("The 'runs' parameter applies to predictions; score tables "
                             "average their runs.")
        if test is not None:
            raise ValueError("The 'test' parameter needs per-dataset predictions, "
                             "not a score table.")
        n_runs = 1
        if set(_LONG) <= set(data.columns):
            data, n_runs = _long_to_wide(data)
        scores = _check_wide(data)
        comparisons = {}
    else:
        data = _check_predictions(data)
        scores, comparisons = _item_tests(data, metric, test, alpha=alpha,
                                          random_state=random_state, n_jobs=n_jobs, runs=runs)
        n_runs = max((len(p) if isinstance(p, list) else 1)
                     for _, preds, _ in data.values() for p in preds.values())
    # a score table may name an unregistered metric when greater_is_better is given
    metric_obj = None if isinstance(metric, str) and greater_is_better is not None \
        else as_metric(metric)
    if greater_is_better is None:
        greater_is_better = metric_obj.greater_is_better
    name = metric if isinstance(metric, str) else metric_obj.name
    kept, dropped_systems, dropped_datasets = _drop_missing(scores)
    _check_sizes(kept)
    caveat = few_datasets_caveat(kept.shape[0])
    if caveat:
        warn_external(f"compare_datasets: {caveat}.", UserWarning)
    result = DatasetComparisonResult(
        kept, metric=name, greater_is_better=greater_is_better, alpha=alpha,
        dropped_datasets=dropped_datasets, dropped_systems=dropped_systems,
        comparisons=comparisons, n_runs=n_runs, tie_correction=tie_correction)
    # pairs are oriented by the order of the systems before the missing-cell rule
    object.__setattr__(result, "_system_order", list(scores.columns))
    return result
