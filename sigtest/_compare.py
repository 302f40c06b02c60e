"""``compare``: pairwise significance tests between many systems, in parallel."""

import itertools
import math
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
from ._engine.paired import prepare_paired
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


def _default_resamples(m, alpha, floor):
    """Monte Carlo resamples so that ``m / (B + 1) <= alpha / 10``: ``max(floor, ceil(10 m / alpha) - 1)``."""
    return max(int(floor), int(math.ceil(10.0 * m / alpha - 1e-9)) - 1)


def _check_tests(test, *, m=1, m_ci=1, alpha=0.05, simultaneous=False):
    """Normalise ``test`` to a list of (name, pvalue_test, interval_test or None).

    With ``test=None`` the defaults get enough resamples for the family size
    ``m`` (see :func:`compare`, Notes); with ``simultaneous`` the default
    interval test gets enough for the Bonferroni level over ``m_ci`` pairs.
    """
    from .tests_ import BCaInterval, PairedPermutation, get_test

    if test is None:
        b_ci = BCaInterval().n_resamples
        if simultaneous:
            b_ci = _default_resamples(m_ci, alpha, b_ci)
        test = (PairedPermutation(n_resamples=_default_resamples(m, alpha, 9999)),
                BCaInterval(n_resamples=b_ci))
    raw = list(test) if isinstance(test, list) else [test]  # a tuple is one (p, CI) pair
    if not raw:
        raise ValueError("The 'test' parameter must hold at least one test.")
    specs = []
    for item in raw:
        pair = item if isinstance(item, tuple) else (item, None)
        # registered names (get_test_names()) are accepted wherever a test is
        pair = tuple(get_test(t) if isinstance(t, str) else t for t in pair)
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


def _as_runs(value):
    """One system's predictions in a comparison as a list of runs."""
    return list(value) if isinstance(value, list) else [value]


def _views(targets, systems, metrics, classes):
    """Stack the runs of every system once per metric input type.

    Returns ``{input_type: (y, [stacked runs (R_s, N, ...) per system])}``.
    """
    views = {}
    for itype in dict.fromkeys(m.input_type for m in metrics):
        first = next(m.name for m in metrics if m.input_type == itype)
        if itype == "labels":
            y = targets["labels"]
            stacks = []
            for name, value in systems.items():
                runs = []
                for p in _as_runs(value):
                    if p.ndim == 2:
                        cls = classes
                        if cls is None:
                            cls = np.unique(y)
                            if len(cls) != p.shape[1]:
                                raise ValueError(
                                    f"System {name!r} gives {p.shape[1]} probability columns "
                                    f"but y_true has {len(cls)} classes; cannot map columns "
                                    "to labels."
                                )
                        p = cls[np.argmax(p, axis=1)]
                    runs.append(p)
                stacks.append(np.stack(runs))
            views[itype] = (y, stacks)
            continue
        if itype not in targets:
            raise ValueError(
                f"Metric {first!r} needs y_true as an (n_samples, n_classes) array "
                "(soft targets); got 1-D labels."
            )
        y = targets[itype]
        hard = [n for n, v in systems.items() if any(p.ndim != 2 for p in _as_runs(v))]
        if hard:
            raise ValueError(
                f"Metric {first!r} needs (n_samples, n_classes) probability predictions "
                f"from every system, but system(s) {hard} give hard labels (mixing hard and "
                "soft predictions)."
            )
        bad = [n for n, v in systems.items()
               if any(p.shape[1] != y.shape[1] for p in _as_runs(v))]
        if bad:
            raise ValueError(
                f"System(s) {bad} have a number of columns different from y_true's "
                f"{y.shape[1]} (metric {first!r})."
            )
        views[itype] = (y, [np.stack([np.asarray(p, dtype=np.float64) for p in _as_runs(v)])
                            for v in systems.values()])
    return views


def _class_sets(view_list, names, classes, labels):
    """The class set of hard-label metrics and the union of every label seen.

    The class set is ``labels`` if given, else the labels present in
    ``y_true`` (the gold set; the column indices for 2-D ``y_true``), the
    same for every pair and run. Labels a system predicts outside it are
    reported with a ``UserWarning`` (they count for no class).
    """
    hard = [v["labels"] for v in view_list if "labels" in v]
    if not hard:
        return None, None
    y = hard[0][0]
    if labels is not None:
        class_set = np.asarray(labels)
        if class_set.ndim != 1 or class_set.shape[0] == 0:
            raise ValueError("The 'labels' parameter must be a non-empty 1-D array-like.")
        if np.unique(class_set).shape[0] != class_set.shape[0]:
            raise ValueError("The 'labels' parameter must not contain duplicates.")
    elif classes is not None:
        class_set = np.asarray(classes)
    else:
        class_set = _label_union(y, [], names)
    per_system = [np.concatenate([st[s].ravel() for _, st in hard]) for s in range(len(names))]
    union = _label_union(class_set, [y, *per_system], names)
    unseen = {}
    for name, pred in zip(names, per_system):
        extra = np.setdiff1d(np.unique(pred), class_set)
        if extra.size:
            unseen[name] = extra.tolist()
    if unseen:
        where = "the 'labels' given" if labels is not None else "the gold labels (y_true)"
        warnings.warn(
            f"System(s) {list(unseen)} predict labels absent from {where}: "
            + "; ".join(f"{n}: {v[:10]}" for n, v in unseen.items())
            + ". They are not counted as classes (an item predicted so is a miss for its "
            "true class); pass labels= to set the class set explicitly.",
            UserWarning, stacklevel=5,
        )
    return class_set, union


def _metric_labels(metric, class_set, union, user_labels):
    """Labels passed to one metric: the class set for class-averaged metrics."""
    if metric.input_type != "labels":
        return None
    if not metric.has_statistics:
        return None if user_labels is None else class_set
    if "average" in metric.kwargs:
        return class_set
    return union  # e.g. accuracy: no class average; every label seen must be valid


def _uses_pos_label(metric):
    return metric.kwargs.get("average") == "binary"


def _check_pos_label(metrics, pos_label):
    binary = [m.name for m in metrics if _uses_pos_label(m)]
    if pos_label is None:
        if binary:
            raise ValueError(
                f"Metric(s) {binary} score one class (average='binary'): pass its label with "
                "the 'pos_label' parameter."
            )
        return {}
    others = [m.name for m in metrics if not _uses_pos_label(m)]
    if others:
        raise ValueError(
            f"The 'pos_label' parameter is only used by one-class metrics ('f1', 'precision', "
            f"'recall'); metric(s) {others} do not use it. Remove pos_label or those metrics."
        )
    return {"pos_label": pos_label}


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
    """A clone of ``test`` with its ``random_state`` (if it has one) set to ``seed``."""
    test = clone(test)
    seeded = {"random_state": seed} if "random_state" in test.get_params(deep=False) else {}
    test.set_params(**seeded, **(_serial_params(test) if serial else {}))
    return test


def _two_sided(test):
    """A clone of ``test`` set to ``alternative="two-sided"`` (pairs="all")."""
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    if "alternative" not in params or params["alternative"] == "two-sided":
        return test
    out = clone(test)
    try:
        out.set_params(alternative="two-sided")
        validate = getattr(out, "_validate_params", None)
        if validate is not None:
            validate()
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"pairs='all' tests every pair two-sided (the order of the systems carries no "
            f"meaning), but {type(test).__name__} cannot be two-sided: {exc} Use "
            "pairs='baseline' for a one-sided test of candidates against a baseline."
        ) from None
    return out


def _with_level(test, level):
    """A clone of ``test`` at ``confidence_level=level`` if it has that parameter."""
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    if "confidence_level" not in params:
        return test, False
    return clone(test).set_params(confidence_level=level), True


def _plain(test):
    """Whether ``test`` is a SignificanceTest that does not override ``test``."""
    from .tests_._base import SignificanceTest

    return isinstance(test, SignificanceTest) and type(test).test is SignificanceTest.test


def _run_test(test, paired, y, a, b, metric, kwargs):
    if paired is not None:
        return test.test_paired(paired)
    return test.test(y, a, b, metric=metric, **kwargs)


def _interval(res, level, has_level, test_name):
    """CI and its level from a result; ``level`` set: simultaneous intervals."""
    ci = res.confidence_interval
    finite = np.isfinite(ci.low) or np.isfinite(ci.high)
    if level is not None and not has_level and finite:
        if res.resampling != "bootstrap":
            raise ValueError(
                f"ci='simultaneous' needs an interval test with a 'confidence_level' "
                f"parameter (or a bootstrap distribution); {test_name!r} has neither."
            )
        ci = res.ci(level)
        return ci, level
    got = res.confidence_level
    return ci, (float(got) if (finite and got is not None) else math.nan)


def _pair_task(views, i, j, jobs):
    """Run every (metric, test) job of one pair; return compact rows.

    ``i`` and ``j`` are in the canonical orientation of the pair. Null
    distributions are dropped here, in the worker, so that only a few
    numbers per job travel back to the parent process.
    """
    from ._engine.paired import prepare_paired_runs

    rows = []
    for (key, metric, kwargs, pvalue_test, interval_test, two_sided, level,
         has_level) in jobs:
        y, stacks = views[metric.input_type]
        y, a_runs, b_runs = np.array(y), np.array(stacks[i]), np.array(stacks[j])
        a, b = a_runs[0], b_runs[0]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # the paired statistics are prepared once for both tests (what
            # ``test`` would compute twice); results are the same
            paired = None
            if len(a_runs) > 1 or len(b_runs) > 1:
                paired = prepare_paired_runs(y, a_runs, b_runs, metric, **kwargs)
            elif _plain(pvalue_test) and (interval_test is None or _plain(interval_test)):
                paired = prepare_paired(y, a, b, metric, **kwargs)
            res = _run_test(pvalue_test, paired, y, a, b, metric, kwargs)
            if two_sided and res.alternative not in (None, "two-sided"):
                raise ValueError(
                    f"pairs='all' needs two-sided tests, but {res.test!r} returned "
                    f"alternative={res.alternative!r}."
                )
            ires, itest = res, pvalue_test
            if interval_test is not None:
                ires = _run_test(interval_test, paired, y, a, b, metric, kwargs)
                itest = interval_test
            ci, ci_level = _interval(ires, level, has_level, _test_name(itest))
        rows.append((key, {
            "alternative": res.alternative,
            "score_a": float(res.score_a),
            "score_b": float(res.score_b),
            "delta": float(res.delta),
            "ci_low": float(ci.low),
            "ci_high": float(ci.high),
            "ci_level": ci_level,
            "pvalue": float(res.pvalue),
            "n_resamples": int(res.n_resamples),
        }, res.resampling, [(w.category, str(w.message)) for w in caught]))
    return rows


def _reorient(values):
    """A row of the pair (B, A) from the row of (A, B): exact, no new test."""
    out = dict(values)
    out["score_a"], out["score_b"] = values["score_b"], values["score_a"]
    out["delta"] = -values["delta"]
    out["ci_low"], out["ci_high"] = -values["ci_high"], -values["ci_low"]
    return out


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
        warnings.warn(f"{message} [in {len(where)} job(s): {shown}]", category, stacklevel=5)


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


def _check_runs_tests(runs, runs_mode, metrics, specs):
    if runs_mode != "average" or all(len(r) == 1 for r in runs.values()):
        return
    slow = [m.name for m in metrics if not m.has_statistics]
    if slow:
        raise ValueError(
            f"runs='average' averages per-item sufficient statistics over runs, but "
            f"metric(s) {slow} have none; use runs='each' (one test per run)."
        )
    custom = [name for name, pt, it in specs
              if not _plain(pt) or (it is not None and not _plain(it))]
    if custom:
        raise ValueError(
            f"runs='average' runs the tests on run-averaged statistics, which test(s) "
            f"{custom} (overriding test()) cannot take; use runs='each'."
        )


def _warn_small_b(frame_rows, specs, m_eff, alpha):
    """UserWarning when a Monte Carlo p-value cannot reach ``alpha`` after correction."""
    for si, (sname, ptest, *_) in enumerate(specs):
        b = (ptest.get_params(deep=False).get("n_resamples")
             if hasattr(ptest, "get_params") else None)
        if not isinstance(b, Integral):
            continue
        mc = [r for k, r in frame_rows if k == si and r is not None and "exact" not in r]
        if mc and m_eff / (b + 1) > alpha:
            need = int(math.ceil(m_eff / alpha - 1e-9)) - 1
            good = _default_resamples(m_eff, alpha, 9999)
            warnings.warn(
                f"Test {sname!r}: with n_resamples={b}, the smallest Monte Carlo p-value "
                f"1/(B+1) times the {m_eff} comparisons of a family is "
                f"{m_eff / (b + 1):.3g} > alpha={alpha}: no pair can be significant after "
                f"the correction. n_resamples >= {need} is needed, {good} recommended "
                "(smallest adjusted p <= alpha/10).",
                UserWarning, stacklevel=5,
            )


def _compare_inputs(targets, runs, classes, *, metrics=("accuracy", "f1_macro"), test=None,
                    pairs="all", baseline=None, correction="holm", alpha=0.05, n_jobs=None,
                    random_state=None, verbose=False, runs_mode="average", labels=None,
                    pos_label=None, ci="marginal"):
    """Core of :func:`compare` on validated targets and runs (also used by CV)."""
    metric_objs = _check_metrics(metrics)
    pos_params = _check_pos_label(metric_objs, pos_label)
    names = list(runs)
    pair_idx = _check_pairs(names, pairs, baseline)
    m = len(pair_idx)
    m_eff = m if correction is not None else 1
    simultaneous = ci == "simultaneous"
    specs = _check_tests(test, m=m_eff, m_ci=m, alpha=alpha, simultaneous=simultaneous)
    _check_runs_tests(runs, runs_mode, metric_objs, specs)
    comparisons = combine_runs(targets, runs, runs_mode)
    multi = len(comparisons) > 1
    two_sided = pairs == "all"
    level = 1.0 - alpha / m if simultaneous else None

    # tests as run: two-sided for pairs="all"; simultaneous level on the interval
    run_specs = []
    for sname, ptest, itest in specs:
        if two_sided:
            ptest = _two_sided(ptest)
        has_level = False
        if level is not None:
            if itest is None:
                ptest, has_level = _with_level(ptest, level)
            else:
                itest, has_level = _with_level(itest, level)
        run_specs.append((sname, ptest, itest, has_level))

    # canonical orientation (names sorted for pairs="all"; baseline first
    # otherwise) and seeds in canonical pair order: results do not depend on
    # the order in which systems are listed
    canon = [(i, j) if (pairs != "all" or names[i] < names[j]) else (j, i)
             for i, j in pair_idx]
    seed_order = sorted(range(m), key=lambda p: (names[canon[p][0]], names[canon[p][1]]))

    n_roles = sum(1 if s[2] is None else 2 for s in specs)
    seeds = iter(spawn_seeds(_unspent(random_state), len(comparisons) * m * n_roles))
    serial = joblib.effective_n_jobs(n_jobs) > 1

    view_list = [_views(tg, systems, metric_objs, classes) for tg, systems in comparisons]
    class_set, union = _class_sets(view_list, names, classes, labels)
    metric_kwargs = []
    for metric in metric_objs:
        kw = dict(pos_params)
        lab = _metric_labels(metric, class_set, union, labels)
        if lab is not None:
            kw["labels"] = lab
        metric_kwargs.append(kw)

    tasks, jobs_by_pair = [], {}
    for r in range(len(comparisons)):
        # seeds in the fixed order run -> canonical pair -> test (p-value,
        # interval); every metric of a pair uses the pair's seeds, i.e. the
        # same resamples, so metrics sharing statistics share the kernel work
        for pi in seed_order:
            pair_seeds = [(next(seeds), None if itest is None else next(seeds))
                          for _, _, itest, _ in run_specs]
            for mi, metric in enumerate(metric_objs):
                for si, (sname, ptest, itest, has_level) in enumerate(run_specs):
                    ps, is_ = pair_seeds[si]
                    pt = _seeded(ptest, ps, serial)
                    it = None if itest is None else _seeded(itest, is_, serial)
                    jobs_by_pair.setdefault((r, pi), []).append(
                        ((r, mi, pi, si), metric, metric_kwargs[mi], pt, it, two_sided, level,
                         has_level))
    for (r, pi), jobs in jobs_by_pair.items():
        i, j = canon[pi]
        tasks.append((view_list[r], i, j, jobs))

    out = [row for task_rows in _run_parallel(tasks, n_jobs, verbose) for row in task_rows]
    results = {}
    for key, values, _, _ in out:
        pi = key[2]
        results[key] = values if canon[pi] == pair_idx[pi] else _reorient(values)
    _reemit([(f"{names[pair_idx[k[2]][0]]} vs {names[pair_idx[k[2]][1]]}, "
              f"{metric_objs[k[1]].name}, {specs[k[3]][0]}" + (f", run {k[0]}" if multi else ""),
              w) for k, _, _, w in out])
    _warn_small_b([(k[3], resampling) for k, _, resampling, _ in out], run_specs, m_eff, alpha)

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
                   random_state=random_state, verbose=verbose, runs_mode=runs_mode,
                   labels=labels, pos_label=pos_label, ci=ci)
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
        # recompare reruns through these (injected: the result layer does not
        # import compare, which imports it)
        inputs={"targets": targets, "runs": runs, "classes": classes, "options": options,
                "rerun": _compare_inputs, "constraints": COMPARE_OPTIONS},
        ci=ci,
    )


#: Constraints of the options of :func:`compare` (also checked by
#: :meth:`ComparisonResult.recompare`).
COMPARE_OPTIONS = {
    "metrics": [str, Metric, list, tuple],
    "test": [HasMethods(["test"]), str, list, tuple, None],
    "pairs": [StrOptions({"all", "baseline"})],
    "baseline": [str, list, tuple, None],
    "correction": [StrOptions(set(CORRECTIONS)), None],
    "alpha": [Interval(Real, 0, 1, closed="neither")],
    "n_jobs": [Integral, None],
    "random_state": [None, Integral, np.random.SeedSequence, np.random.Generator,
                     np.random.RandomState],
    "verbose": ["boolean"],
    "runs": [StrOptions(set(RUNS_MODES))],
    "labels": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "ci": [StrOptions({"marginal", "simultaneous"})],
}


@validate_params(
    {"y_true": ["array-like"], "predictions": [Mapping, pd.DataFrame], **COMPARE_OPTIONS},
    prefer_skip_nested_validation=True,
)
def compare(y_true, predictions, *, metrics=("accuracy", "f1_macro"), test=None, pairs="all",
            baseline=None, correction="holm", alpha=0.05, n_jobs=None, random_state=None,
            verbose=False, runs="average", labels=None, pos_label=None, ci="marginal"):
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
    test : SignificanceTest, str, tuple or list, optional
        A test or a registered test name (:func:`sigtest.get_test_names`,
        e.g. ``"mcnemar"``), a ``(pvalue_test, interval_test)`` tuple
        (p-value from the first, interval of the difference from the second,
        same row), or a list of these (one row per test). Default:
        ``(PairedPermutation(n_resamples=B), BCaInterval())``, i.e. the
        Fisher-Pitman paired permutation p-value with the BCa interval of
        the difference (Bestgen 2022: always report the difference and its
        CI), with ``B`` chosen for the number of comparisons (see Notes).
    pairs : {"all", "baseline"}, default="all"
        ``"all"``: every unordered pair, each tested **two-sided** whatever
        the test's own ``alternative`` (a test that cannot be two-sided is a
        ``ValueError``); the order of the systems carries no meaning and
        the results do not depend on it (column ``alternative``).
        ``"baseline"``: each non-baseline system B against each baseline A
        with the test's own alternative (e.g. ``"greater"``: B better than
        the baseline), as in BooStSa's h0/h1 design.
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
        n)`` in the fixed order run -> pair -> test, pairs sorted by their
        system names (names sorted within a pair for ``pairs="all"``,
        baseline first otherwise), shared by all metrics of the pair (the
        same resamples for every metric). Each pair is tested in that
        canonical orientation and its row re-oriented exactly for the order
        given (scores swapped, ``delta`` negated, interval
        ``(-high, -low)``), so results are bit-identical for every
        ``n_jobs``, backend and order of the systems.
    verbose : bool, default=False
        Show a progress bar (tqdm if installed, else joblib's messages).
    runs : {"average", "each", "mean", "pool"}, default="average"
        How several runs per system are used (see :mod:`sigtest._runs`).
        ``"average"`` tests "is B better than A on average over runs": per
        item, each system's sufficient statistics are averaged over its runs
        (run counts may differ), then one paired test over the ``N`` items
        (valid: the item is the resampling unit). ``"each"`` tests run ``i``
        against run ``i`` for every ``i`` (see
        :meth:`ComparisonResult.runs_summary`). ``"mean"`` tests the
        ensembles of averaged probability predictions. ``"pool"``
        (BooStSa's choice, kept for compatibility, with a warning) treats the
        ``R * N`` (item, run) copies as independent and is anti-conservative.
    labels : array-like, optional
        Class set of the class-averaged hard-label metrics (macro/weighted
        P/R/F1), the same for every pair and run. Default: the labels present
        in ``y_true`` (the gold set). Predicted labels outside it are not
        counted as classes (a ``UserWarning`` names the systems and labels).
    pos_label : int, str or bool, optional
        The class scored by the one-class metrics ``"f1"``, ``"precision"``,
        ``"recall"`` (required by them, an error with any other metric).
    ci : {"marginal", "simultaneous"}, default="marginal"
        ``"marginal"``: each interval at its test's own level (95 %).
        ``"simultaneous"``: Bonferroni-level intervals, each at level
        ``1 - alpha / m`` with ``m`` the number of pairs of the family
        (metric, test, run), so that all ``m`` intervals of a family cover
        their differences together with probability at least ``1 - alpha``
        whatever ``correction`` is. The ``ci_level`` column gives the level
        used.

    Returns
    -------
    result : ComparisonResult

    Raises
    ------
    ValueError
        Fewer than two systems, duplicate names, a system whose length
        differs from ``y_true`` (the message names it), an unknown baseline,
        hard predictions for a soft metric, unequal run counts with
        ``runs="each"``, a one-sided-only test with ``pairs="all"``,
        ``runs="average"`` with a metric without statistics, ``pos_label``
        with metrics that do not use it.

    Warns
    -----
    UserWarning
        Predicted labels outside the class set; ``runs="pool"`` with several
        runs; a user-given ``n_resamples`` too small for the number of
        comparisons (the message names the ``B`` needed).

    Notes
    -----
    **Resamples for many systems.** A Monte Carlo p-value is at least
    :math:`1/(B+1)`, so after Holm or Bonferroni over :math:`m` pairs the
    smallest attainable adjusted p-value is :math:`m/(B+1)` (used
    conservatively for Benjamini-Hochberg too). With ``test=None``,
    ``B = max(9999, ceil(10 m / alpha) - 1)`` so that it is at most
    ``alpha / 10`` (``m = 1`` without correction); an exact permutation test
    is not affected. With ``ci="simultaneous"`` the default BCa interval
    gets ``max(10000, ceil(10 m / alpha) - 1)`` resamples for its tail
    quantiles ``alpha / (2 m)``. The cost of a Monte Carlo p-value grows
    linearly with ``B``; measured with ``benchmarks/bench_compare.py
    --defaults`` (50 systems, 1,225 pairs, ``B = 244,999``, ``N = 10^4``
    hard labels, 5 classes, one job on 2 shared cores): accuracy 17 s (its
    exact permutation test is cheaper than ``B`` resamples and is used, so
    the BCa intervals dominate), macro-F1 (Monte Carlo) 522 s, i.e. 0.43 s
    per pair.

    **Interval and adjusted p-value.** A marginal 95 % interval controls
    the error of each pair on its own, whereas the adjusted p-value
    controls the error of the whole family of pairs, so a marginal interval
    may exclude 0 next to a non-significant adjusted p-value. The
    simultaneous intervals (``ci="simultaneous"``) are adjusted to the
    family like the p-values and do not show this contradiction as often
    (they still come from another test than the p-value).

    References
    ----------
    Y. Bestgen (2022). Please, don't forget the difference and the confidence
    interval when seeking for the state-of-the-art status. LREC.
    T. Fornaciari et al. (2022). Hard and soft evaluation of NLP models with
    BOOtSTrap SAmpling - BooStSa. ACL System Demonstrations.
    A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
    Application, sec. 4.2.5 (Monte Carlo p-values, resamples needed).

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
        random_state=random_state, verbose=verbose, runs_mode=runs, labels=labels,
        pos_label=pos_label, ci=ci,
    )
