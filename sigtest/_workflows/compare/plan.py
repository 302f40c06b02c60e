"""Plan of a comparison (pure): pairs, seeds, tests as run and the job list.

Everything :func:`sigtest.compare` decides before running a test, from
options already checked by :mod:`sigtest._workflows.compare.checks`: the
pairs and their canonical orientation, the tests as run (two-sided, at the
simultaneous level, seeded), the per-metric keyword arguments, and one
child seed per (run, pair, test role) drawn in canonical sorted pair order.
Nothing here runs a test; the jobs are executed by
:mod:`sigtest._workflows.compare.run` and the rows turned into a result by
:mod:`sigtest._workflows.compare.assemble`.
"""

import itertools
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import joblib
import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.shared_job import system_data
from sigtest._workflows.compare.checks import (
    MARGIN_ALTERNATIVES,
    check_inputs,
    check_margin_pair,
    check_metrics,
    check_nested,
    check_pairs,
    check_pos_label,
    check_runs_tests,
    check_tests,
    check_tests_suit,
    class_sets,
    system_views,
)
from sigtest._workflows.compare.plan_tasks import PairTasks
from sigtest._workflows.runs import tile, combine_runs
from sigtest.metrics._hard import pos_label_params
from sigtest.utils._estimator import ParamsMixin, clone
from sigtest.utils.validation import SpawnedSeeds

__all__ = ["ComparePlan", "adjacent_ranking", "plan_comparison", "plan_scores", "prepare_data",
           "score_settings"]

#: Test parameters that switch a test to its single-threaded kernels, tried in
#: this order when joblib runs several jobs at once, or with ``n_jobs=1`` (one
#: core: no numba threads either; see ``_serial_params``).
_SERIAL_KNOBS = (("parallel", False), ("n_jobs", 1))


@dataclass(frozen=True)
class ComparePlan:
    """What a comparison will run, decided before any test runs.

    ``tasks`` (a :class:`~sigtest._workflows.compare.plan_tasks.PairTasks`)
    holds one ``(views, i, j, jobs)`` per (run, pair), ``i`` and ``j`` in
    the pair's canonical orientation; each job is ``(key, metric,
    metric_kwargs, pvalue_test, interval_test, two_sided, level, has_level,
    seeds)`` with ``key = (run, metric index, pair index, test index)``
    and the tests seeded when read (:func:`seeded_job`). ``scores`` holds the settings of the
    per-system score intervals (:func:`score_settings`) and their root
    ``seed``.
    """

    names: list
    metric_objs: list
    specs: list
    run_specs: list
    pair_idx: np.ndarray
    canon: np.ndarray
    comparisons: list
    multi: bool
    m_eff: int
    tasks: PairTasks
    scores: dict


def _n_items(targets):
    return next(iter(targets.values())).shape[0]


def _design_kwargs(targets, comparisons, groups, strata):
    """The ``groups``/``strata`` keywords of the tests of ``comparisons``.

    ``runs="pool"`` concatenates the ``R`` runs item-wise (``y_true`` tiled
    ``R`` times): the ids are tiled the same way, so the ``R`` pooled copies
    of an item stay in the item's cluster and stratum. Every other mode keeps
    the ``N`` items. Ids not given are left out (a test overriding ``test()``
    without these keywords still works when they are not used).
    """
    out = {}
    for name, ids in (("groups", groups), ("strata", strata)):
        if ids is None:
            continue
        reps = _n_items(comparisons[0][0]) // _n_items(targets)
        out[name] = tile(ids, reps) if reps > 1 else ids
    return out


def prepare_data(comparisons, classes, *, targets, metric_objs, names, labels, pos_params,
                 sample_weight=None, groups=None, strata=None):
    """The stacked views of the comparisons and each metric's keyword arguments.

    What both the pair tests and the per-system score intervals
    (:meth:`ComparisonResult.scores`) run on: the runs combined as
    :func:`sigtest._workflows.runs.combine_runs` returned them (``comparisons``),
    stacked once per metric input type, and per metric the class set,
    ``pos_label``, ``sample_weight`` and the design (``groups``/``strata``,
    tiled for ``runs="pool"``). Nothing is validated against the engine
    here (see :func:`check_inputs`).
    """
    view_list = [system_views(tg, systems, metric_objs, classes) for tg, systems in comparisons]
    if labels is not None and all(m.input_type == "scores" for m in metric_objs):
        raise ValueError(
            "The 'labels' parameter has no meaning for per-item scores (metric 'mean': no "
            "classes); leave it None."
        )
    uses_class_set = any(_metric_labels(m, "class set", "union", labels) == "class set"
                         for m in metric_objs)
    class_set, union = class_sets(view_list, names, classes, labels, warn=uses_class_set)
    design = _design_kwargs(targets, comparisons, groups, strata)
    metric_kwargs = []
    for metric in metric_objs:
        kw = pos_label_params(metric, pos_params, union)
        lab = _metric_labels(metric, class_set, union, labels)
        if metric.input_type == "labels_proba":
            # y_pred's columns are the class set: the user's, or 2-D y_true's columns;
            # else the metric takes the classes of y_true (scikit-learn's rule)
            lab = labels if labels is not None else classes
        if lab is not None:
            kw["labels"] = lab
        if sample_weight is not None:
            kw["sample_weight"] = sample_weight
        kw.update(design)
        metric_kwargs.append(kw)
    return view_list, metric_kwargs


def score_settings(specs):
    """Method, resamples and level of the per-system score intervals.

    Taken from the interval test of the first test of the comparison (its
    p-value test when it has no interval test) when it has a
    ``confidence_level`` parameter (an interval test, e.g.
    :class:`~sigtest.BCaInterval`): its ``method`` (if one of ``"bca"``,
    ``"percentile"``, ``"basic"``, ``"normal"``; a ``"studentized"`` test
    gets BCa score intervals, which every metric and design supports),
    ``n_resamples`` and
    ``confidence_level`` (the marginal level, also with
    ``ci="simultaneous"``). Otherwise BCa with 9,999 resamples at 95 %.
    """
    _, ptest, itest = specs[0]
    test = ptest if itest is None else itest
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    out = {"method": "bca", "n_resamples": N_RESAMPLES, "confidence_level": 0.95}
    if "confidence_level" not in params:
        return out
    if params.get("method") in ("bca", "percentile", "basic", "normal"):
        out["method"] = params["method"]
    b = params.get("n_resamples")
    if isinstance(b, Integral) and not isinstance(b, bool) and b > 0:
        out["n_resamples"] = int(b)
    level = params.get("confidence_level")
    if isinstance(level, Real) and 0 < level < 1:
        out["confidence_level"] = float(level)
    return out


def plan_comparison(runs, classes, *, targets, options):
    """Build the job list of a comparison of checked ``options`` (no test runs).

    ``options`` is the :class:`~sigtest.CompareOptions`
    as planned: its ``test`` and ``correction`` are those the comparison
    applies (``"auto"`` resolved).
    """
    metrics, test, pairs, baseline = options.metrics, options.test, options.pairs, options.baseline
    correction, alpha, n_jobs = options.correction, options.alpha, options.n_jobs
    runs_mode, labels, ci = options.runs, options.labels, options.ci
    sample_weight, groups, strata = options.sample_weight, options.groups, options.strata
    random_state = options.random_state
    metric_objs = check_metrics(metrics)
    pos_params = check_pos_label(metric_objs, options.pos_label)
    names = list(runs)
    pair_idx = _pair_array(names, pairs, baseline)
    m = len(pair_idx)
    m_eff = m if correction is not None else 1
    simultaneous = ci == "simultaneous"
    specs = check_tests(test, m=m_eff, m_ci=m, alpha=alpha, simultaneous=simultaneous,
                         runs_mode=runs_mode)
    check_runs_tests(runs, runs_mode, metric_objs, specs)
    check_nested(runs_mode, metric_objs, specs, sample_weight, groups, strata)
    check_tests_suit(specs, metric_objs)
    several = any(len(r) > 1 for r in runs.values())
    if sample_weight is not None and several and runs_mode in ("average", "pool"):
        raise ValueError(
            f"The 'sample_weight' parameter cannot be combined with runs={runs_mode!r} and "
            "several runs per system (the run-averaged and pooled statistics are "
            "unweighted); use runs='each' or runs='mean'."
        )
    comparisons = combine_runs(targets, runs, runs_mode, clustered=groups is not None)
    multi = len(comparisons) > 1
    two_sided = pairs in ("all", "adjacent")
    level = 1.0 - alpha / m if simultaneous else None

    # tests as run: two-sided for pairs="all"; simultaneous level on the interval
    run_specs = []
    for sname, ptest, itest in specs:
        check_margin_pair(sname, ptest, itest)
        if two_sided:
            ptest = _two_sided(ptest)
        has_level = False
        if level is not None:
            if itest is None:
                ptest, has_level = _with_level(ptest, level)
            else:
                itest, has_level = _with_level(itest, level)
        run_specs.append((sname, ptest, itest, has_level))

    n_roles = sum(1 if s[2] is None else 2 for s in specs)
    # one more child than the pairs need: the root of the per-system score
    # seeds (ComparisonResult.scores); spawning one more leaves the first
    # children, hence every pair's seed, unchanged
    n_pair_seeds = len(comparisons) * m * n_roles
    seeds = SpawnedSeeds(_unspent(random_state), n_pair_seeds + 1)
    score_seed = seeds[n_pair_seeds]
    # several joblib jobs: each test on one thread; n_jobs=1: one core in all
    serial = n_jobs == 1 or joblib.effective_n_jobs(n_jobs) > 1

    view_list, metric_kwargs = prepare_data(
        comparisons, classes, targets=targets, metric_objs=metric_objs, names=names,
        labels=labels, pos_params=pos_params,
        sample_weight=sample_weight, groups=groups, strata=strata)
    check_inputs(view_list, names, metric_objs, metric_kwargs)
    if pairs == "adjacent":  # neighbours in the ranking by the first metric
        pair_idx = _pair_array(names, pairs, baseline, adjacent_ranking(
            view_list, names, metric_objs[0], metric_kwargs[0]))
    # canonical orientation (names sorted for pairs="all" and "adjacent";
    # baseline first otherwise) and seeds in canonical pair order: results do
    # not depend on the order in which systems are listed
    canon, seed_order = _canonical_pairs(names, pair_idx, pairs)

    tasks = _plan_tasks(view_list, canon, seed_order, metric_objs, metric_kwargs, run_specs,
                        _spec_seeders(run_specs, serial), seeds, (two_sided, level))
    return ComparePlan(names=names, metric_objs=metric_objs, specs=specs, run_specs=run_specs,
                       pair_idx=pair_idx, canon=canon, comparisons=comparisons, multi=multi,
                       m_eff=m_eff, tasks=tasks,
                       scores={**score_settings(specs), "seed": score_seed})


def _pair_array(names, pairs, baseline, ranking=None):
    """:func:`check_pairs` as an ``(m, 2)`` int64 array (``pairs="all"``: no list of tuples).

    The pairs of ``"all"`` are those of :func:`itertools.combinations` in
    its order (row-major upper triangle); at 1,000 systems a list of their
    499,500 tuples held 31 MB for the whole comparison, the array 8 MB.
    """
    if pairs == "all" and baseline is None:
        return np.column_stack(np.triu_indices(len(names), 1)).astype(np.int64, copy=False)
    found = check_pairs(names, pairs, baseline, ranking)
    return np.array(found, dtype=np.int64).reshape(-1, 2)


def _canonical_pairs(names, pair_idx, pairs):
    """``(canon, seed_order)``: each pair's canonical ``(i, j)`` and the pairs in seed order.

    ``canon`` is ``(i, j)`` if ``pairs="baseline"`` or ``names[i] <
    names[j]``, else ``(j, i)``; ``seed_order`` the pair indices sorted by
    ``(names[i], names[j])`` of ``canon`` (stable). The names are distinct,
    so both follow from each name's rank in ``sorted(names)`` (two int64
    arrays, not lists of tuples).
    """
    k = len(names)
    rank = np.empty(k, dtype=np.int64)
    rank[sorted(range(k), key=names.__getitem__)] = np.arange(k, dtype=np.int64)
    canon = pair_idx
    if pairs != "baseline":
        swap = rank[pair_idx[:, 0]] > rank[pair_idx[:, 1]]
        if swap.any():  # else the pairs as given (no copy)
            canon = np.where(swap[:, None], pair_idx[:, ::-1], pair_idx)
    return canon, np.lexsort((rank[canon[:, 1]], rank[canon[:, 0]]))


def _plan_tasks(view_list, canon, seed_order, metric_objs, metric_kwargs, run_specs, seeders,
                seeds, pair_settings):
    """The :class:`~sigtest._workflows.compare.plan_tasks.PairTasks` of every (run, pair).

    Each test's parameters are read once, not once per pair (499,500 pairs
    at 1,000 systems): a job holds the spec's unseeded tests and where its
    seeds are, seeded only if the pair runs on its own draws
    (:func:`seeded_job`). Seeds in the fixed order run -> canonical pair ->
    test (p-value, interval); every metric of a pair uses the pair's seeds,
    i.e. the same resamples, so metrics sharing statistics share the kernel work.
    """
    two_sided, level = pair_settings
    unseeded = [(pseed(None), None if iseed is None else iseed(None)) for pseed, iseed in seeders]
    # a pair's seeds: each spec's p-value test, then its interval test if any
    offsets = list(itertools.accumulate([1 if iseed is None else 2 for _, iseed in seeders],
                                        initial=0))
    templates = [(mi, si, metric, metric_kwargs[mi], *unseeded[si], two_sided, level, has_level,
                  seeders[si], offsets[si])
                 for mi, metric in enumerate(metric_objs)
                 for si, (_, _, _, has_level) in enumerate(run_specs)]
    return PairTasks(view_list, canon, seed_order, templates, seeds, offsets[-1])


def plan_scores(runs, classes, *, targets, options, settings):
    """The jobs of the per-system score intervals of a comparison (no test runs).

    Rebuilt from what :class:`ComparisonResult` keeps (the stored runs,
    targets and :class:`~sigtest.CompareOptions`
    of the comparison, already validated by it), so the
    result holds no second copy of the data. One task per (run, system):
    ``(view, system index, jobs, settings, seed)`` with one job ``(key,
    metric, metric_kwargs)`` per metric, ``key = (run, system index,
    metric index)``.

    Seeds: ``settings["seed"]`` (the extra child of the comparison's seeds)
    spawns one child per (run, system) in the order run -> system sorted by
    name, shared by every metric of the system (the same resamples), so the
    table does not depend on the order in which the systems were given.
    """
    metric_objs = check_metrics(options.metrics)
    pos_params = check_pos_label(metric_objs, options.pos_label)
    names = list(runs)
    with warnings.catch_warnings():
        # the pool and unseen-label warnings were given by compare already
        warnings.simplefilter("ignore")
        comparisons = combine_runs(targets, runs, options.runs,
                                   clustered=options.groups is not None)
        view_list, metric_kwargs = prepare_data(
            comparisons, classes, targets=targets, metric_objs=metric_objs, names=names,
            labels=options.labels, pos_params=pos_params,
            sample_weight=options.sample_weight, groups=options.groups,
            strata=options.strata)
    order = sorted(range(len(names)), key=lambda s: names[s])
    seeds = iter(_unspent(settings["seed"]).spawn(len(comparisons) * len(names)))
    run_settings = {k: v for k, v in settings.items() if k != "seed"}
    tasks = []
    for r, view in enumerate(view_list):
        for s in order:
            jobs = [((r, s, mi), metric, metric_kwargs[mi])
                    for mi, metric in enumerate(metric_objs)]
            tasks.append((view, s, jobs, run_settings, next(seeds)))
    return names, metric_objs, len(comparisons) > 1, tasks


# ---------------------------------------------------------------- helpers
def adjacent_ranking(view_list, names, metric, kwargs):
    """System indices best first by observed score on ``metric`` (``pairs="adjacent"``).

    Each system's observed score is the metric on its predictions as the
    tests score them (:func:`sigtest._engine.shared_job.system_data`: class
    set, ``pos_label``, weights, runs averaged per item), averaged over the
    comparisons when runs or CV repeats are tested separately. Best first
    follows ``metric.greater_is_better``; ties, and undefined (NaN) scores
    placed last, are ordered by name, so the ranking does not depend on the
    order in which the systems were given.
    """
    sign = 1.0 if metric.greater_is_better else -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tests give these warnings
        scores = np.array([[system_data(views, s, metric, kwargs).score_a
                            for s in range(len(names))] for views in view_list],
                          dtype=np.float64).mean(axis=0)
    key = np.where(np.isnan(scores), np.inf, -sign * scores)
    return sorted(range(len(names)), key=lambda s: (key[s], names[s]))


def _metric_labels(metric, class_set, union, user_labels):
    """Labels passed to one metric: the class set for class-averaged metrics."""
    if metric.input_type != "labels":
        return None
    if not metric.has_statistics:
        return None if user_labels is None else class_set
    if "average" in metric.kwargs:
        if metric.kwargs["average"] == "micro" and user_labels is None:
            # a micro average pools the classes: as in scikit-learn and test(), a
            # prediction of a label absent from the gold is a false positive (with
            # the gold set it vanished, and micro-F1 exceeded accuracy)
            return union
        return class_set
    return union  # e.g. accuracy: no class average; every label seen must be valid


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


#: Parameter types that ``copy.deepcopy`` returns unchanged (what :func:`_seeder` may share).
_IMMUTABLE = (int, float, str, bool, type(None))


def _seeder(test, serial):
    """``seed -> _seeded(test, seed, serial)``, with the test's parameters read once.

    For one of sigtest's tests whose other parameters are plain scalars
    (which :func:`clone` would deep-copy into themselves) the copy is built
    directly, ``type(test)(**params, random_state=seed)``: the same test as
    the clone with its seed set; any other test goes through :func:`_seeded`.
    """
    if (not isinstance(test, ParamsMixin) or hasattr(test, "__sklearn_clone__")
            or type(test).__init__ is object.__init__):
        return lambda seed: _seeded(test, seed, serial)
    params = test.get_params(deep=False)
    fixed = {k: v for k, v in params.items() if k != "random_state"}
    if serial:
        fixed.update(_serial_params(test))
    if not all(type(v) in _IMMUTABLE for v in fixed.values()):
        return lambda seed: _seeded(test, seed, serial)
    cls = type(test)
    if "random_state" in params:
        return lambda seed: cls(**fixed, random_state=seed)
    return lambda seed: cls(**fixed)


def _spec_seeders(run_specs, serial):
    """``(p-value test seeder, interval test seeder or None)`` of every test spec (:func:`_seeder`)."""
    return [(_seeder(ptest, serial), None if itest is None else _seeder(itest, serial))
            for _, ptest, itest, _ in run_specs]


def seeded_job(job):
    """A planned job with its pair's seeded tests: ``(key, metric, kwargs, p-value test,
    interval test, two_sided, level, has_level)``, what the per-pair path runs.

    A planned job ends with ``((p-value seeder, interval seeder), seeds,
    index)``: the p-value test takes ``seeds[index]``, the interval test
    ``seeds[index + 1]`` (the order of ``spawn_seeds``), as when every
    pair's tests were seeded in the plan.
    """
    key, metric, kwargs, _, _, two_sided, level, has_level, ((pseed, iseed), seeds, at) = job
    itest = None if iseed is None else iseed(seeds[at + 1])
    return key, metric, kwargs, pseed(seeds[at]), itest, two_sided, level, has_level


def _two_sided(test):
    """A clone of ``test`` set to ``alternative="two-sided"`` (pairs="all")."""
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    if "alternative" not in params or params["alternative"] == "two-sided":
        return test
    if params["alternative"] in MARGIN_ALTERNATIVES:
        raise ValueError(
            f"alternative={params['alternative']!r} (with a margin) is directional: B is "
            "the candidate and A the reference, so it needs pairs='baseline' (each "
            "candidate against the baseline). pairs='all' tests every pair two-sided, "
            "where the order of the systems carries no meaning."
        )
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

