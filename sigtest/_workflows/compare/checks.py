"""Input checks of a comparison: each returns the normalised value it checked.

scipy's ``_bootstrap_iv`` pattern: one function per concern (metrics,
targets, predictions, pairs, tests, positive label, class sets, the stacked
views of the predictions), raising the error that names the parameter and
returning what the planning uses (:mod:`sigtest._workflows.compare.plan`).
:func:`check_inputs` runs every system's predictions through the engine's
single input path before any test runs. Shared by :func:`sigtest.compare`,
:func:`sigtest.cross_val_compare` and :func:`sigtest.compare_datasets`.
"""

import itertools
import math
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from sigtest._engine import CellCache, prepare_paired
from sigtest._engine.checks import check_array_like
from sigtest._workflows.runs import split_runs
from sigtest.metrics import as_metric
from sigtest.metrics._common import union_labels
from sigtest.metrics._hard import uses_pos_label
from sigtest.metrics._scores import check_y_true, is_no_targets
from sigtest.tests_ import BCaInterval, HierarchicalBootstrap, PairedPermutation, get_test
from sigtest.tests_._base import SignificanceTest
from sigtest.tests_._registry import test_name
from sigtest.utils import plain, warn_external

__all__ = [
    "MARGIN_ALTERNATIVES",
    "check_inputs",
    "check_margin_pair",
    "check_metrics",
    "check_nested",
    "check_pairs",
    "check_pos_label",
    "check_predictions",
    "check_runs_tests",
    "check_targets",
    "check_tests",
    "check_tests_suit",
    "class_sets",
    "count_pairs",
    "default_resamples",
    "plain_test",
    "system_views",
]


def check_metrics(metrics):
    if not isinstance(metrics, (list, tuple)):
        metrics = [metrics]
    metrics = [as_metric(m) for m in metrics]
    if not metrics:
        raise ValueError("The 'metrics' parameter must name at least one metric.")
    names = [m.name for m in metrics]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"The 'metrics' parameter lists {dup} more than once.")
    return metrics


def default_resamples(m, alpha, floor):
    """Monte Carlo resamples so that ``m / (B + 1) <= alpha / 10``: ``max(floor, ceil(10 m / alpha) - 1)``."""
    return max(int(floor), int(math.ceil(10.0 * m / alpha - 1e-9)) - 1)


def check_tests(test, *, m=1, m_ci=1, alpha=0.05, simultaneous=False, runs_mode=None):
    """Normalise ``test`` to a list of (name, pvalue_test, interval_test or None).

    With ``test=None`` the defaults get enough resamples for the family size
    ``m`` (see :func:`compare`, Notes); with ``simultaneous`` the default
    interval test gets enough for the Bonferroni level over ``m_ci`` pairs.
    With ``runs_mode="nested"`` the default is the hierarchical bootstrap
    (p-value and percentile interval from the same resamples).
    """
    if test is None and runs_mode == "nested":
        b = default_resamples(m, alpha, 9999)
        if simultaneous:
            b = max(b, default_resamples(m_ci, alpha, 9999))
        test = HierarchicalBootstrap(n_resamples=b)
    if test is None:
        b_ci = BCaInterval().n_resamples
        if simultaneous:
            b_ci = default_resamples(m_ci, alpha, b_ci)
        test = (PairedPermutation(n_resamples=default_resamples(m, alpha, 9999)),
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
        for t in pair:
            _check_test_params(t)
        name = test_name(pair[0]) + ("" if pair[1] is None else "+" + test_name(pair[1]))
        specs.append([name, pair[0], pair[1]])
    names = [s[0] for s in specs]
    for k, spec in enumerate(specs):
        if names.count(spec[0]) > 1:
            spec[0] = f"{spec[0]}#{names[:k + 1].count(spec[0])}"
    return [tuple(s) for s in specs]


def _check_test_params(test):
    """The test's own parameter check, before a comparison overrides any of them.

    A comparison sets ``alternative="two-sided"`` (``pairs="all"``), its own
    ``random_state`` and, with ``ci="simultaneous"``, the
    ``confidence_level`` of its copies of the tests, and runs the shared
    bootstrap with the interval test's ``n_resamples``: an invalid value the
    user gave must be an error naming it, not be replaced silently or fail
    later in other words.
    """
    validate = getattr(test, "_validate_params", None)
    if test is None or validate is None:
        return
    try:
        validate()
    except (ValueError, TypeError) as exc:
        # a plain ValueError: validate_params would rename "parameter of
        # <Test> must be" to the workflow's name, which has no such parameter
        raise ValueError(
            f"The 'test' parameter holds an invalid {type(test).__name__}: {exc}"
        ) from exc


def check_targets(y_true, predictions=None):
    """Ground truth by input type, and the class set for 2-D predictions.

    ``y_true=None`` (per-item scores, metric ``"mean"``) gives
    ``{"scores": array of None}`` with one entry per item of the first
    system in ``predictions``: the per-item form of ``None`` that the
    engine reads as "no gold labels" and that the runs can be tiled with.
    """
    if is_no_targets(y_true):
        return {"scores": np.full(_n_scored_items(predictions), None, dtype=object)}, None
    y = check_array_like(y_true, "y_true")
    if y.ndim == 1:  # emptiness and lengths: checked by the engine (check_inputs)
        return {"labels": y, "regression": y, "labels_proba": y}, None
    if y.ndim == 2:
        if y.dtype.kind not in "biuf":  # e.g. strings: refused by the engine's check
            return ({"labels": y, "proba": y, "multilabel": y, "labels_proba": y},
                    np.arange(y.shape[1]))
        hard = np.argmax(y, axis=1)
        return (
            {"labels": hard, "proba": y.astype(np.float64), "multilabel": y,
             "labels_proba": hard},
            np.arange(y.shape[1]),
        )
    raise ValueError(
        "The 'y_true' parameter must be 1-D labels or a 2-D (n_samples, n_classes) "
        f"array of probabilities. Got shape {y.shape} instead."
    )


def _n_scored_items(predictions):
    """Number of items of the first system (its first run) when ``y_true`` is None."""
    if isinstance(predictions, pd.DataFrame):
        return predictions.shape[0]
    if not isinstance(predictions, Mapping) or not predictions:
        return 0  # check_predictions names the problem
    first = next(iter(predictions.values()))
    if isinstance(first, (list, tuple)) and first and all(np.ndim(r) >= 1 for r in first):
        first = first[0]  # a list of runs
    return int(np.shape(first)[0]) if np.ndim(first) >= 1 else 0


def check_predictions(predictions, n_samples):
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
    return {str(name): split_runs(str(name), value, n_samples, check_length=False)
            for name, value in items}


def check_pairs(names, pairs, baseline, ranking=None):
    """Pairs of indices ``(a, b)``: A is the baseline (or the earlier system).

    ``pairs="adjacent"``: the ``k - 1`` pairs of neighbours in ``ranking``
    (system indices, best first;
    :func:`~sigtest._workflows.compare.plan.adjacent_ranking`), or in the
    given order when ``ranking`` is None (enough to count the family), best
    ranked first; each pair ``(a, b)`` with ``a < b`` as for ``"all"``.
    """
    if pairs in ("all", "adjacent"):
        if baseline is not None:
            raise ValueError(
                "The 'baseline' parameter is only used with pairs='baseline'; got "
                f"baseline={plain(baseline)!r} with pairs={pairs!r}."
            )
        if pairs == "adjacent":
            order = list(range(len(names))) if ranking is None else list(ranking)
            return [(min(a, b), max(a, b)) for a, b in zip(order[:-1], order[1:])]
        return list(itertools.combinations(range(len(names)), 2))
    if baseline is None:
        raise ValueError(
            "pairs='baseline' needs the 'baseline' parameter (a system name or a list)."
        )
    base = [baseline] if isinstance(baseline, str) else list(baseline)
    unknown = [b for b in base if b not in names]
    if unknown or not base:
        raise ValueError(
            f"Unknown baseline {plain(unknown) if unknown else plain(baseline)!r}; systems are "
            f"{plain(list(names))}."
        )
    others = [i for i, n in enumerate(names) if n not in base]
    if not others:
        raise ValueError("pairs='baseline' needs at least one system that is not a baseline.")
    return [(names.index(b), i) for b in dict.fromkeys(base) for i in others]


def count_pairs(names, pairs, baseline):
    """``len(check_pairs(names, pairs, baseline))``, checked as it checks, with no list of the
    ``k (k - 1) / 2`` pairs of ``pairs="all"`` (499,500 tuples at 1,000 systems, whose
    freed memory the interpreter kept: 50 MB)."""
    if pairs == "all" and baseline is None:
        return len(names) * (len(names) - 1) // 2
    return len(check_pairs(names, pairs, baseline))


def _label_union(y, preds, names):
    """Sorted union of the labels (:func:`sigtest.metrics._common.union_labels`)."""
    try:
        return union_labels(y, *preds)
    except TypeError as exc:
        raise ValueError(
            f"The labels of y_true and of the systems {names} cannot be compared "
            f"(mixed types?): {exc}"
        ) from None


def _as_runs(value):
    """One system's predictions in a comparison as a list of runs."""
    return list(value) if isinstance(value, list) else [value]


def _stack(runs):
    """``(R, N, ...)`` runs of one system: a view of a single run (no copy), else stacked."""
    if len(runs) == 1:
        return np.asarray(runs[0])[None]
    return np.stack(runs)


def system_views(targets, systems, metrics, classes):
    """Stack the runs of every system once per metric input type.

    Returns ``{input_type: (y, [stacked runs (R_s, N, ...) per system])}``; a
    system with one run is a view of it (no copy of the predictions). One
    stage per input type: :func:`_label_view` (hard labels, probability
    columns mapped to labels), :func:`_regression_view`,
    :func:`_proba_view` (soft targets); per-item scores and
    ``"labels_proba"`` are stacked as given (the engine checks them per
    system in :func:`check_inputs`).
    """
    views = {}
    given = targets["scores"] if "scores" in targets else targets["labels"]
    for metric in metrics:  # y_true None exactly for per-item scores
        check_y_true(metric, given)
    for itype in dict.fromkeys(m.input_type for m in metrics):
        first = next(m.name for m in metrics if m.input_type == itype)
        if itype == "scores":  # checked per system by the engine (check_inputs)
            views[itype] = (targets["scores"], [_stack([np.asarray(p) for p in _as_runs(v)])
                                                for v in systems.values()])
        elif itype == "labels":
            views[itype] = _label_view(targets["labels"], systems, classes)
        elif itype == "regression":
            views[itype] = _regression_view(targets, systems, first)
        elif itype == "labels_proba":
            # hard y_true scored by 1-D or 2-D scores: every run goes through the
            # metric's own check (check_labels_proba) in check_inputs
            views[itype] = (targets[itype], [_stack(_as_runs(v)) for v in systems.values()])
        else:
            views[itype] = _proba_view(targets, itype, systems, first)
    return views


def _label_view(y, systems, classes):
    """The hard-label view ``(y, stacks)``: numeric ``(n, k)`` scores mapped to labels."""
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("The 'y_true' parameter must not contain NaN or infinity.")
    stacks = []
    for name, value in systems.items():
        stacks.append(_stack([_as_labels(p, name, y, classes) for p in _as_runs(value)]))
    return y, stacks


def _as_labels(p, name, y, classes):
    """One run of system ``name`` as hard labels (the argmax class of numeric scores)."""
    if p.dtype.kind in "fc" and not np.all(np.isfinite(p)):
        # before the union of the labels, which would blame
        # another system and a 'labels' parameter
        raise ValueError(
            f"System {name!r}: the predictions must not contain NaN or "
            "infinity."
        )
    # numeric (n, k) scores -> labels; anything else (e.g. 2-D
    # strings) reaches the engine's check as given
    if p.ndim == 2 and p.dtype.kind in "biuf":
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
    return p


def _regression_view(targets, systems, first):
    """The regression view: 1-D floats (the engine's check names the system)."""
    if "regression" not in targets:
        raise ValueError(
            f"Metric {first!r} is a regression metric: y_true must be 1-D (one "
            f"real target per sample); got shape {targets['multilabel'].shape}."
        )
    return targets["regression"], [_stack(_as_runs(v)) for v in systems.values()]


def _proba_view(targets, itype, systems, first):
    """The view of a soft metric (``"proba"``, ``"multilabel"``): 2-D gold and predictions."""
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
           if any(p.shape[1:] != y.shape[1:] for p in _as_runs(v))]
    if bad:
        raise ValueError(
            f"System(s) {bad} have a number of columns different from y_true's "
            f"{y.shape[1]} (metric {first!r})."
        )
    return y, [_stack([np.asarray(p, dtype=np.float64)
                       if p.dtype.kind in "biuf" else p for p in _as_runs(v)])
               for v in systems.values()]


def class_sets(view_list, names, classes, labels, *, warn=True):
    """The class set of hard-label metrics and the union of every label seen.

    The class set is ``labels`` if given, else the labels present in
    ``y_true`` (the gold set; the column indices for 2-D ``y_true``), the
    same for every pair and run. Labels a system predicts outside it are
    reported with a ``UserWarning`` (they count for no class) when ``warn``
    (some metric uses the class set: micro averages and accuracy count such a
    prediction as an error, as scikit-learn does, and need no warning).
    """
    hard = [v["labels"] for v in view_list if "labels" in v]
    if not hard:
        return None, None
    y = hard[0][0]
    if labels is not None:
        # the engine's check of a class set (non-empty, 1-D, no duplicates,
        # comparable with the gold labels), as SignificanceTest.test applies it
        class_set = prepare_paired(y, y, y, "f1_macro", labels=labels).params["labels"]
    elif classes is not None:
        class_set = np.asarray(classes)
    else:
        class_set = _label_union(y, [], names)
    # each system's distinct labels (no concatenation of all predictions: the
    # same sorted union, without copying them)
    per_system = [_label_union(hard[0][1][s], [st[s] for _, st in hard[1:]], names)
                  for s in range(len(names))]
    union = _label_union(class_set, [y, *per_system], names)
    unseen = {}
    for name, pred in zip(names, per_system):
        extra = np.setdiff1d(pred, class_set)
        if extra.size:
            unseen[name] = extra.tolist()
    if unseen and warn:
        where = "the 'labels' given" if labels is not None else "the gold labels (y_true)"
        warn_external(
            f"System(s) {list(unseen)} predict labels absent from {where}: "
            + "; ".join(f"{n}: {v[:10]}" for n, v in unseen.items())
            + ". They are not counted as classes of the per-class averages (an item "
            "predicted so is a miss for its true class; micro averages and accuracy count it "
            "as an error); pass labels= to set the class set explicitly.",
            UserWarning,
        )
    return class_set, union


def check_pos_label(metrics, pos_label):
    """``{"pos_label": pos_label}``, or ``{}`` when not given (a default, if any, comes later).

    ``pos_label`` goes to the one-class metrics (``average="binary"``) only;
    the others ignore it, as in scikit-learn. Given with no metric using it,
    it is an error (a keyword nobody uses).
    """
    if pos_label is None:
        return {}
    if not any(uses_pos_label(m) for m in metrics):
        raise ValueError(
            f"The 'pos_label' parameter is only used by the one-class metrics ('f1', "
            f"'precision', 'recall'), and none of the metrics {[m.name for m in metrics]} is "
            "one. Remove pos_label or add such a metric."
        )
    return {"pos_label": pos_label}


def check_inputs(view_list, names, metric_objs, metric_kwargs):
    """Validate every system's predictions through the engine's single input path.

    Each run of each system is checked, for every metric, by
    :func:`sigtest._engine.paired.prepare_paired` on exactly the arrays and
    keyword arguments its pair tests will get (as ``y_pred_a``), so that an
    input means the same in ``compare`` as in ``SignificanceTest.test``: the
    same error type and wording (prefixed with the system and run), raised
    before any test runs. ``y_true`` itself is checked first, without a
    system prefix.
    """
    with warnings.catch_warnings():
        # the warnings of these inputs come from the pair tests (re-emitted
        # once each by compare), not twice
        warnings.simplefilter("ignore")
        _check_inputs(view_list, names, metric_objs, metric_kwargs)


def _check_inputs(view_list, names, metric_objs, metric_kwargs):
    """The first error in the order metric -> (``y_true``) -> system -> run, per view.

    Systems are visited one at a time with all their metrics, so that the
    hard-label metrics of a system share one cell compression
    (:class:`CellCache`); the error raised is still the first in metric
    order (a check that cannot come before the first error found is skipped).
    """
    metrics = list(zip(metric_objs, metric_kwargs))
    for view in view_list:
        first = []  # [(key, exception)] of the earliest failure so far

        def consider(key, check):
            if first and key >= first[0][0]:
                return
            try:
                check()
            except (ValueError, TypeError) as exc:
                first[:] = [(key, exc)]

        for mi, (metric, kwargs) in enumerate(metrics):
            if any(k in kwargs for k in ("sample_weight", "groups", "strata")):
                # the weights and the design against y_true alone: their
                # errors name no system
                consider((mi, -1, 0), lambda metric=metric, kwargs=kwargs: _check_y_true(
                    view[metric.input_type][0], metric, _alone(metric, kwargs)))
        for si, name in enumerate(names):
            runs = {itype: (y, list(stacks[si])) for itype, (y, stacks) in view.items()}
            caches = {}
            for mi, (metric, kwargs) in enumerate(metrics):
                y, stack = runs[metric.input_type]
                for r, pred in enumerate(stack):
                    cache = caches.setdefault((metric.input_type, r), CellCache())
                    consider((mi, si, r), lambda metric=metric, kwargs=kwargs, y=y, pred=pred,
                             r=r, cache=cache, many=len(stack) > 1: _check_system(
                                 y, pred, metric, kwargs, name, r if many else None, cache))
        if first:
            raise first[0][1]


def _alone(metric, kwargs):
    """The keyword arguments of ``y_true``'s own check (no class set, but for labels_proba)."""
    return {k: v for k, v in kwargs.items() if k != "labels" or metric.input_type == "labels_proba"}


def _check_system(y, pred, metric, kwargs, name, run, cache):
    """One run of one system through the engine, as ``y_pred_a``; errors prefixed with it."""
    try:
        prepare_paired(y, pred, pred, metric, cell_cache=cache, **kwargs)
    except (ValueError, TypeError) as exc:
        _check_y_true(y, metric, _alone(metric, kwargs))  # y_true's fault: no system named
        where = "" if run is None else f" (run {run})"
        raise type(exc)(
            f"System {name!r}{where}, checked as 'y_pred_a' for metric "
            f"{metric.name!r}: {exc}"
        ) from exc


def _check_y_true(y, metric, kwargs):
    """The engine's check of ``y_true`` (and weights) alone, as both systems.

    A metric scoring hard labels by probabilities (``"labels_proba"``) gets
    uniform probabilities over the class set as the systems instead. Per-item
    scores have no ``y_true`` to check: the weights and the design are checked
    with constant scores of the items' number.
    """
    if metric.input_type == "scores":
        zeros = np.zeros(y.shape[0])
        prepare_paired(y, zeros, zeros, metric, **kwargs)
        return
    pred = y
    if metric.input_type == "labels_proba" and np.ndim(y) == 1:
        classes = kwargs.get("labels")
        k = len(np.unique(y) if classes is None else classes)
        pred = np.full((len(y), max(k, 2)), 1.0 / max(k, 2))
    prepare_paired(y, pred, pred, metric, **kwargs)


#: Alternatives of the equivalence tests (``SignificanceTest`` with a ``margin``).
MARGIN_ALTERNATIVES = ("non-inferiority", "equivalence")


def check_margin_pair(sname, ptest, itest):
    """A (p-value test, interval test) pair must agree on a margin alternative.

    The interval of a non-inferiority or equivalence test is the one its
    p-value inverts; a two-sided p-value next to it (or the reverse) would
    give a row whose p-value and interval answer different questions.
    """
    if itest is None:
        return

    def spec(test):
        params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
        alt = params.get("alternative")
        return (alt, params.get("margin")) if alt in MARGIN_ALTERNATIVES else None

    if spec(ptest) != spec(itest):
        raise ValueError(
            f"Test {sname!r}: the p-value test and the interval test of a (p-value, "
            "interval) pair must have the same alternative and margin when one of them is "
            f"a non-inferiority or equivalence test; got {spec(ptest)} and {spec(itest)} "
            "(alternative, margin). Pass the margin test alone: it gives both the p-value "
            "and the interval."
        )


def plain_test(test):
    """Whether ``test`` is a SignificanceTest that does not override ``test``."""
    return isinstance(test, SignificanceTest) and type(test).test is SignificanceTest.test


def check_nested(runs_mode, metrics, specs, sample_weight, groups, strata):
    """``runs="nested"``: the hierarchical bootstrap, metrics with statistics, no design."""
    if runs_mode != "nested":
        return
    other = [name for name, pt, it in specs
             if not isinstance(pt, HierarchicalBootstrap) or it is not None]
    if other:
        raise ValueError(
            f"runs='nested' runs the hierarchical bootstrap over runs and items "
            f"(sigtest.HierarchicalBootstrap, also the default with test=None); test(s) "
            f"{other} cannot resample runs. Use runs='average' or runs='each' for them."
        )
    slow = [m.name for m in metrics if not m.has_statistics]
    if slow:
        raise ValueError(
            f"runs='nested' computes each resample's metric from summed sufficient "
            f"statistics, but metric(s) {slow} have none; use runs='each' (one test per run)."
        )
    for name, value in (("sample_weight", sample_weight), ("groups", groups),
                        ("strata", strata)):
        if value is not None:
            raise ValueError(
                f"The '{name}' parameter cannot be combined with runs='nested' (the "
                "hierarchical bootstrap resamples runs and independent items); use "
                "runs='average' or runs='each'."
            )


def check_tests_suit(specs, metrics):
    """Each test must be able to run on each metric (what depends on the metric alone).

    E.g. the sign, Wilcoxon and paired t-tests need a per-item decomposable
    metric and McNemar an accuracy: refused before any test runs (and, in
    :func:`sigtest.cross_val_compare`, before any estimator is fitted).
    """
    for sname, ptest, itest in specs:
        for test in (ptest, itest):
            check = getattr(test, "_check_suits", None)
            if check is None:
                continue
            for metric in metrics:
                try:
                    check(metric)
                except ValueError as exc:
                    raise ValueError(
                        f"Test {sname!r} cannot run on metric {metric.name!r}: {exc}"
                    ) from None


def check_runs_tests(runs, runs_mode, metrics, specs):
    if runs_mode != "average" or all(len(r) == 1 for r in runs.values()):
        return
    slow = [m.name for m in metrics if not m.has_statistics]
    if slow:
        raise ValueError(
            f"runs='average' averages per-item sufficient statistics over runs, but "
            f"metric(s) {slow} have none; use runs='each' (one test per run)."
        )
    custom = [name for name, pt, it in specs
              if not plain_test(pt) or (it is not None and not plain_test(it))]
    if custom:
        raise ValueError(
            f"runs='average' runs the tests on run-averaged statistics, which test(s) "
            f"{custom} (overriding test()) cannot take; use runs='each'."
        )
