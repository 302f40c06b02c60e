"""``compare``: pairwise significance tests between many systems, in parallel."""

import itertools
import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import joblib
import numpy as np
import pandas as pd
from sklearn.base import clone

from ._comparison_result import FRAME_COLUMNS, ComparisonResult
from ._corrections import CORRECTIONS, adjust_pvalues
from ._runs import RUNS_MODES, combine_runs, split_runs
from .metrics import Metric, get_metric
from .tests_._paired import prepare_paired
from .utils._param_validation import HasMethods, Interval, StrOptions, validate_params
from .utils.validation import spawn_seeds

__all__ = ["compare"]

#: Test parameters that switch a test to its single-threaded kernels, tried in
#: this order when joblib runs several jobs at once (see ``_serial_params``).
_SERIAL_KNOBS = (("parallel", False), ("n_jobs", 1))


# ----------------------------------------------------------------- validation
def _check_metrics(metrics):
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = [get_metric(m) for m in metrics]
    if not metrics:
        raise ValueError("The 'metrics' parameter must name at least one metric.")
    names = [m.name for m in metrics]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"The 'metrics' parameter lists {dup} more than once.")
    return metrics


def _test_name(test):
    name = getattr(type(test), "_test_name", None)
    return name() if callable(name) else type(test).__name__


def _check_tests(test):
    """Normalise ``test`` to a list of (name, pvalue_test, interval_test or None)."""
    from .tests_ import BCaInterval, PairedPermutation

    if test is None:
        test = (PairedPermutation(), BCaInterval())
    raw = list(test) if isinstance(test, list) else [test]  # a tuple is one (p, CI) pair
    if not raw:
        raise ValueError("The 'test' parameter must hold at least one test.")
    specs = []
    for item in raw:
        pair = item if isinstance(item, tuple) else (item, None)
        if len(pair) != 2 or not all(
            t is None or callable(getattr(t, "test", None)) for t in pair
        ) or pair[0] is None:
            raise TypeError(
                "The 'test' parameter must be a SignificanceTest, a (pvalue_test, "
                f"interval_test) tuple of them, or a list of these. Got {item!r} instead."
            )
        name = _test_name(pair[0]) + ("" if pair[1] is None else "+" + _test_name(pair[1]))
        specs.append([name, pair[0], pair[1]])
    names = [s[0] for s in specs]
    for k, spec in enumerate(specs):
        if names.count(spec[0]) > 1:
            spec[0] = f"{spec[0]}#{names[:k + 1].count(spec[0])}"
    return [tuple(s) for s in specs]


def _check_targets(y_true):
    """Ground truth by input type, and the class set for 2-D predictions."""
    y = np.asarray(y_true)
    if y.ndim == 1:
        if y.shape[0] == 0:
            raise ValueError("The 'y_true' parameter is empty.")
        return {"labels": y}, None
    if y.ndim == 2:
        return (
            {"labels": np.argmax(y, axis=1), "proba": y.astype(np.float64),
             "multilabel": y},
            np.arange(y.shape[1]),
        )
    raise ValueError(
        "The 'y_true' parameter must be 1-D labels or a 2-D (n_samples, n_classes) "
        f"array of probabilities. Got shape {y.shape} instead."
    )


def _check_predictions(predictions, n_samples):
    """Return ``{name: [run, ...]}`` in input order."""
    if isinstance(predictions, pd.DataFrame):
        dup = predictions.columns[predictions.columns.duplicated()].tolist()
        if dup:
            raise ValueError(f"The 'predictions' DataFrame has duplicate system names {dup}.")
        items = [(col, predictions[col].to_numpy()) for col in predictions.columns]
    elif isinstance(predictions, Mapping):
        items = list(predictions.items())
    else:
        raise TypeError(
            "The 'predictions' parameter must be a mapping name -> predictions or a "
            f"DataFrame with one column per system. Got {type(predictions).__name__} instead."
        )
    names = [str(name) for name, _ in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"Duplicate system names {dup} in 'predictions'.")
    if len(items) < 2:
        raise ValueError(
            f"The 'predictions' parameter must hold at least two systems. Got {len(items)}."
        )
    return {str(name): split_runs(str(name), value, n_samples) for name, value in items}


def _check_pairs(names, pairs, baseline):
    """Pairs of indices ``(a, b)``: A is the baseline (or the earlier system)."""
    if pairs == "all":
        if baseline is not None:
            raise ValueError(
                "The 'baseline' parameter is only used with pairs='baseline'; got "
                f"baseline={baseline!r} with pairs='all'."
            )
        return list(itertools.combinations(range(len(names)), 2))
    if baseline is None:
        raise ValueError(
            "pairs='baseline' needs the 'baseline' parameter (a system name or a list)."
        )
    base = [baseline] if isinstance(baseline, str) else list(baseline)
    unknown = [b for b in base if b not in names]
    if unknown or not base:
        raise ValueError(
            f"Unknown baseline {unknown if unknown else baseline!r}; systems are {names}."
        )
    others = [i for i, n in enumerate(names) if n not in base]
    if not others:
        raise ValueError("pairs='baseline' needs at least one system that is not a baseline.")
    return [(names.index(b), i) for b in dict.fromkeys(base) for i in others]


def _label_union(y, preds, names):
    try:
        return np.unique(np.concatenate([np.asarray(y).ravel()] + [np.ravel(p) for p in preds]))
    except TypeError as exc:
        raise ValueError(
            f"The labels of y_true and of the systems {names} cannot be compared "
            f"(mixed types?): {exc}"
        ) from None


def _views(targets, systems, metrics, classes):
    """Stack the predictions of every system once per metric input type.

    Returns ``{input_type: (y, stacked predictions (S, N, ...), labels)}``;
    ``labels`` is None here and set by :func:`_fix_labels`.
    """
    names = list(systems)
    views = {}
    for itype in dict.fromkeys(m.input_type for m in metrics):
        first = next(m.name for m in metrics if m.input_type == itype)
        if itype == "labels":
            y = targets["labels"]
            preds = []
            for name, p in systems.items():
                if p.ndim == 2:
                    cls = classes
                    if cls is None:
                        cls = np.unique(y)
                        if len(cls) != p.shape[1]:
                            raise ValueError(
                                f"System {name!r} gives {p.shape[1]} probability columns but "
                                f"y_true has {len(cls)} classes; cannot map columns to labels."
                            )
                    p = cls[np.argmax(p, axis=1)]
                preds.append(p)
            views[itype] = (y, np.stack(preds), None)  # labels: see _fix_labels
            continue
        if itype not in targets:
            raise ValueError(
                f"Metric {first!r} needs y_true as an (n_samples, n_classes) array "
                "(soft targets); got 1-D labels."
            )
        y = targets[itype]
        hard = [n for n, p in systems.items() if p.ndim != 2]
        if hard:
            raise ValueError(
                f"Metric {first!r} needs (n_samples, n_classes) probability predictions "
                f"from every system, but system(s) {hard} give hard labels (mixing hard and "
                "soft predictions)."
            )
        bad = [n for n, p in systems.items() if p.shape[1] != y.shape[1]]
        if bad:
            raise ValueError(
                f"System(s) {bad} have a number of columns different from y_true's "
                f"{y.shape[1]} (metric {first!r})."
            )
        views[itype] = (y, np.stack([np.asarray(p, dtype=np.float64) for p in systems.values()]),
                        None)
    return views


def _fix_labels(view_list, names):
    """Set one label set for every hard-label view of every run.

    The union of ``y_true`` and *all* systems' hard labels over *all* runs,
    so that every pair (and every run) averages class-wise metrics such as
    macro-F1 over the same classes.
    """
    hard = [v["labels"] for v in view_list if "labels" in v]
    if not hard:
        return view_list
    labels = _label_union(hard[0][0], [p for y, stack, _ in hard for p in [y, *stack]], names)
    return [{**v, "labels": (v["labels"][0], v["labels"][1], labels)} if "labels" in v else v
            for v in view_list]


# ----------------------------------------------------------------------- jobs
def _unspent(random_state):
    """A copy of a ``SeedSequence``, so that spawning does not change the caller's.

    ``SeedSequence.spawn`` advances the parent; without the copy, passing the
    same object twice (or calling :meth:`ComparisonResult.recompare`) would
    give other seeds, unlike a single test, which only reads it.
    """
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.SeedSequence(
            entropy=random_state.entropy, spawn_key=random_state.spawn_key,
            pool_size=random_state.pool_size,
            n_children_spawned=random_state.n_children_spawned,
        )
    return random_state


def _serial_params(test):
    """Parameters that make ``test`` use single-threaded kernels, if it has any."""
    params = test.get_params(deep=False)
    return {k: v for k, v in _SERIAL_KNOBS if k in params}


def _seeded(test, seed, serial):
    test = clone(test)
    test.set_params(random_state=seed, **(_serial_params(test) if serial else {}))
    return test


def _plain(test):
    """Whether ``test`` is a SignificanceTest that does not override ``test``."""
    from .tests_._base import SignificanceTest

    return isinstance(test, SignificanceTest) and type(test).test is SignificanceTest.test


def _run_test(test, paired, y, a, b, metric, kwargs):
    if paired is not None:
        return test._test_prepared(paired, {})
    return test.test(y, a, b, metric=metric, **kwargs)


def _pair_task(views, i, j, jobs):
    """Run every (metric, test) job of one pair; return compact rows.

    Null distributions are dropped here, in the worker, so that only a few
    numbers per job travel back to the parent process.
    """
    rows = []
    for key, metric, pvalue_test, interval_test in jobs:
        y, stack, labels = views[metric.input_type]
        y, a, b = np.array(y), np.array(stack[i]), np.array(stack[j])
        kwargs = {} if labels is None else {"labels": labels}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # the paired statistics are prepared once for both tests (what
            # ``test`` would compute twice); results are the same
            paired = None
            if _plain(pvalue_test) and (interval_test is None or _plain(interval_test)):
                paired = prepare_paired(y, a, b, metric, **kwargs)
            res = _run_test(pvalue_test, paired, y, a, b, metric, kwargs)
            ci = res.confidence_interval
            if interval_test is not None:
                ci = _run_test(interval_test, paired, y, a, b, metric, kwargs).confidence_interval
        rows.append((key, {
            "score_a": float(res.score_a),
            "score_b": float(res.score_b),
            "delta": float(res.delta),
            "ci_low": float(ci.low),
            "ci_high": float(ci.high),
            "pvalue": float(res.pvalue),
            "n_resamples": int(res.n_resamples),
        }, [(w.category, str(w.message)) for w in caught]))
    return rows


def _reemit(caught):
    """Re-emit the warnings of the jobs once per distinct message, in the caller.

    Warnings raised in joblib workers would otherwise be lost (processes) or
    repeated once per pair; here each distinct message is emitted once with
    the (pair, metric, test) jobs it concerns, whatever ``n_jobs`` is.
    """
    grouped = {}
    for where, items in caught:
        for category, message in items:
            grouped.setdefault((category, message), []).append(where)
    for (category, message), where in grouped.items():
        shown = "; ".join(where[:3]) + (f"; and {len(where) - 3} more" if len(where) > 3 else "")
        warnings.warn(f"{message} [in {len(where)} job(s): {shown}]", category, stacklevel=4)


def _run_parallel(tasks, n_jobs, verbose):
    try:
        from tqdm.auto import tqdm as progress
    except ImportError:  # pragma: no cover - tqdm is optional
        progress = None
    joblib_verbose = 10 if (verbose and progress is None) else 0
    parallel = joblib.Parallel(
        n_jobs=n_jobs, verbose=joblib_verbose, return_as="generator" if verbose else "list"
    )
    out = parallel(joblib.delayed(_pair_task)(*task) for task in tasks)
    if verbose and progress is not None:
        out = list(progress(out, total=len(tasks), desc="sigtest.compare", unit="pair"))
    return list(out)


def _compare_inputs(targets, runs, classes, *, metrics=("accuracy", "f1_macro"), test=None,
                    pairs="all", baseline=None, correction="holm", alpha=0.05, n_jobs=None,
                    random_state=None, verbose=False, runs_mode="pool"):
    """Core of :func:`compare` on validated targets and runs (also used by CV)."""
    metric_objs = _check_metrics(metrics)
    specs = _check_tests(test)
    names = list(runs)
    pair_idx = _check_pairs(names, pairs, baseline)
    comparisons = combine_runs(targets, runs, runs_mode)
    multi = len(comparisons) > 1

    n_roles = sum(1 if s[2] is None else 2 for s in specs)
    n_seeds = len(comparisons) * len(pair_idx) * n_roles
    seeds = iter(spawn_seeds(_unspent(random_state), n_seeds))
    serial = joblib.effective_n_jobs(n_jobs) > 1

    view_list = _fix_labels(
        [_views(tg, systems, metric_objs, classes) for tg, systems in comparisons], names)
    tasks, jobs_by_pair = [], {}
    for r in range(len(comparisons)):
        # seeds in the fixed order run -> pair -> test (p-value, interval); every
        # metric of a pair uses the pair's seeds, i.e. the same resamples, so
        # metrics sharing statistics (precision/recall/F1) share the kernel work
        for pi, (i, j) in enumerate(pair_idx):
            pair_seeds = [(next(seeds), None if itest is None else next(seeds))
                          for _, _, itest in specs]
            for mi, metric in enumerate(metric_objs):
                for si, (sname, ptest, itest) in enumerate(specs):
                    ps, is_ = pair_seeds[si]
                    pt = _seeded(ptest, ps, serial)
                    it = None if itest is None else _seeded(itest, is_, serial)
                    jobs_by_pair.setdefault((r, pi), []).append(((r, mi, pi, si), metric, pt, it))
    for (r, pi), jobs in jobs_by_pair.items():
        i, j = pair_idx[pi]
        tasks.append((view_list[r], i, j, jobs))

    out = [row for task_rows in _run_parallel(tasks, n_jobs, verbose) for row in task_rows]
    results = {key: values for key, values, _ in out}
    _reemit([(f"{names[pair_idx[k[2]][0]]} vs {names[pair_idx[k[2]][1]]}, "
              f"{metric_objs[k[1]].name}, {specs[k[3]][0]}" + (f", run {k[0]}" if multi else ""),
              w) for k, _, w in out])

    records = []
    for key in sorted(results):
        r, mi, pi, si = key
        i, j = pair_idx[pi]
        records.append({
            **({"run": r} if multi else {}),
            "system_a": names[i],
            "system_b": names[j],
            "metric": metric_objs[mi].name,
            "test": specs[si][0],
            **results[key],
        })
    frame = pd.DataFrame.from_records(records)
    frame["pvalue_adj"] = np.nan
    groups = ["run", "metric", "test"] if multi else ["metric", "test"]
    for _, idx in frame.groupby(groups, sort=False).groups.items():
        frame.loc[idx, "pvalue_adj"] = adjust_pvalues(frame.loc[idx, "pvalue"].to_numpy(),
                                                      correction)
    frame["significant"] = (frame["pvalue_adj"] <= alpha).to_numpy()
    frame = frame[(["run"] if multi else []) + FRAME_COLUMNS].reset_index(drop=True)

    predictions = {n: (r[0] if len(r) == 1 else list(r)) for n, r in runs.items()}
    options = dict(metrics=metrics, test=test, pairs=pairs, baseline=baseline,
                   correction=correction, alpha=alpha, n_jobs=n_jobs,
                   random_state=random_state, verbose=verbose, runs_mode=runs_mode)
    return ComparisonResult(
        frame,
        systems=names,
        metrics=[m.name for m in metric_objs],
        tests=[s[0] for s in specs],
        greater_is_better={m.name: m.greater_is_better for m in metric_objs},
        alpha=alpha,
        correction=correction,
        pairs=pairs,
        n_runs=len(comparisons),
        predictions=predictions,
        inputs={"targets": targets, "runs": runs, "classes": classes, "options": options},
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "predictions": [Mapping, pd.DataFrame],
        "metrics": [str, Metric, list, tuple],
        "test": [HasMethods(["test"]), list, tuple, None],
        "pairs": [StrOptions({"all", "baseline"})],
        "baseline": [str, list, tuple, None],
        "correction": [StrOptions(set(CORRECTIONS)), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "n_jobs": [Integral, None],
        "random_state": [None, Integral, np.random.SeedSequence, np.random.Generator,
                         np.random.RandomState],
        "verbose": ["boolean"],
        "runs": [StrOptions(set(RUNS_MODES))],
    },
    prefer_skip_nested_validation=True,
)
def compare(y_true, predictions, *, metrics=("accuracy", "f1_macro"), test=None, pairs="all",
            baseline=None, correction="holm", alpha=0.05, n_jobs=None, random_state=None,
            verbose=False, runs="pool"):
    """Test which differences between many systems are real.

    Runs a paired significance test (and an interval for the difference) for
    every pair of systems and every metric, in parallel, corrects the
    p-values for multiple comparisons, and returns a :class:`ComparisonResult`
    with a tidy table, per-system scores and a compact letter display.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
        Gold labels, or gold distributions (soft targets) for soft metrics.
        With 2-D ``y_true``, hard-label metrics use its row-wise argmax and
        the classes are the column indices ``0 .. n_classes - 1``.
    predictions : mapping of str -> array-like, or pandas.DataFrame
        One entry per system (at least two): 1-D labels or an
        ``(n_samples, n_classes)`` array of probabilities (hard-label metrics
        then use its argmax; with 1-D ``y_true`` column ``k`` is the ``k``-th
        class of ``np.unique(y_true)``). A list of such arrays is several runs
        of the system (see ``runs``). A DataFrame gives one system per column.
    metrics : str, Metric or sequence, default=("accuracy", "f1_macro")
        Registered metric names (see :func:`sigtest.get_metric_names`).
    test : SignificanceTest, tuple or list, optional
        A test, a ``(pvalue_test, interval_test)`` tuple (p-value from the
        first, interval of the difference from the second, same row), or a
        list of these (one row per test). Default:
        ``(PairedPermutation(), BCaInterval())``, i.e. the Fisher-Pitman
        paired permutation p-value with the BCa interval of the difference
        (Bestgen 2022: always report the difference and its CI).
    pairs : {"all", "baseline"}, default="all"
        Every unordered pair (A = the system given first), or each
        non-baseline system against each baseline (A = the baseline), as in
        BooStSa's h0/h1 design.
    baseline : str or list of str, optional
        Baseline system(s) for ``pairs="baseline"``.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Applied per (metric, test, run) across the pairs tested; see
        :func:`sigtest._corrections.adjust_pvalues`.
    alpha : float, default=0.05
        Level of the ``significant`` column and of the letters.
    n_jobs : int, optional
        Parallel jobs over pairs (joblib; ``None`` means 1 unless inside a
        ``joblib.parallel_config`` context, -1 means all cores). Any joblib
        backend works, e.g. ``parallel_config(backend="dask")``. When several
        jobs run at once, each test uses its single-threaded kernels.
    random_state : None, int, SeedSequence or Generator
        Seed of the comparison. Each (run, pair) gets one child seed per test
        role (p-value test, interval test) from ``spawn_seeds(random_state,
        n)`` in the fixed order run -> pair -> test, shared by all metrics of
        the pair (the same resamples for every metric, so metrics with the
        same statistics, such as precision/recall/F1, share the kernel work).
        Results are bit-identical for every ``n_jobs`` and backend, and equal
        to calling each test with its child seed.
    verbose : bool, default=False
        Show a progress bar (tqdm if installed, else joblib's messages).
    runs : {"pool", "each", "mean"}, default="pool"
        How several runs per system are used; see :mod:`sigtest._runs`:
        ``"pool"`` concatenates runs item-wise (BooStSa); ``"each"`` tests
        run ``i`` against run ``i`` and keeps every run (see
        :meth:`ComparisonResult.runs_summary`); ``"mean"`` averages
        probability predictions.

    Returns
    -------
    result : ComparisonResult

    Raises
    ------
    ValueError
        Fewer than two systems, duplicate names, a system whose length
        differs from ``y_true`` (the message names it), an unknown baseline,
        hard predictions for a soft metric, unequal run counts with
        ``runs="each"``.

    References
    ----------
    Y. Bestgen (2022). Please, don't forget the difference and the confidence
    interval when seeking for the state-of-the-art status. LREC.
    T. Fornaciari et al. (2022). Hard and soft evaluation of NLP models with
    BOOtSTrap SAmpling - BooStSa. ACL System Demonstrations.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import compare
    >>> from sigtest.tests_ import BCaInterval, PairedPermutation
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> noisy = lambda p: np.where(rng.random(300) < p, y, rng.integers(0, 3, 300))
    >>> preds = {"weak": noisy(0.5), "mid": noisy(0.7), "strong": noisy(0.9)}
    >>> res = compare(y, preds, metrics="accuracy", random_state=0,
    ...               test=(PairedPermutation(n_resamples=999), BCaInterval(n_resamples=999)))
    >>> res.letters("accuracy")["letters"].tolist()
    ['a', 'b', 'c']
    """
    targets, classes = _check_targets(y_true)
    n_samples = next(iter(targets.values())).shape[0]
    runs_by_system = _check_predictions(predictions, n_samples)
    return _compare_inputs(
        targets, runs_by_system, classes, metrics=metrics, test=test, pairs=pairs,
        baseline=baseline, correction=correction, alpha=alpha, n_jobs=n_jobs,
        random_state=random_state, verbose=verbose, runs_mode=runs,
    )
