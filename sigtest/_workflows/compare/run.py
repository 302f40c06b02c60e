"""Run the jobs of a comparison plan with joblib, and bring back compact rows.

A cold pool of worker processes is started only when the work pays for it
(:func:`sigtest._workflows.compare.pool.run_calls`).
"""

import math
import sys
import warnings

import joblib
import numpy as np

from sigtest._workflows.compare.checks import plain_test
from sigtest._workflows.compare.messages import concentration_warning, job_warnings
from sigtest._workflows.compare.plan import seeded_job
from sigtest._workflows.compare.pool import run_calls
from sigtest._workflows.compare.shared import TaskDeltas
from sigtest.tests_._registry import test_name
from sigtest.tests_ import HierarchicalBootstrap
from sigtest.tests_._score import score_paired
from sigtest._engine import CellCache, prepare_paired, prepare_paired_runs
from sigtest._engine.shared_job import system_view
from sigtest._engine.concentration import is_concentrated, paired_concentration
from sigtest.utils import warn_external

__all__ = ["OPTIONAL_COLUMNS", "pair_batches", "reemit_warnings", "run_pairs", "run_scores"]


def _run_test(test, paired, y, a, b, metric, kwargs, resamples=None):
    if paired is None and resamples is not None:
        # the other test of the pair runs on the raw arrays: prepare for this one
        paired = prepare_paired(y, a, b, metric, **kwargs)
    if paired is not None:
        if resamples is None:
            return test.test_paired(paired)
        return test.test_paired(paired, resamples=resamples)
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


def _pair_task(views, i, j, jobs, shared=None):
    """Run every (metric, test) job of one pair; return compact rows.

    ``i`` and ``j`` are in the canonical orientation of the pair. Null
    distributions are dropped here, in the worker, so that only a few
    numbers per job travel back to the parent process. ``shared`` maps
    ``(job key, role)`` (role 0: p-value test, 1: interval test) to the
    pair's bootstrap differences on the comparison's shared resamples
    (:mod:`sigtest._workflows.compare.shared`), used by that test instead of its own
    draws.
    """
    shared = shared or {}
    return _pair_rows(views, i, j, jobs, shared)


def _pair_rows(views, i, j, jobs, shared):
    """The rows of :func:`_pair_task` (the arrays of an input type read once, not copied:
    the engine never writes into its inputs, and compare's are read-only copies)."""
    arrays = {}
    rows = []
    cells = CellCache()  # one cell compression of (y, a, b) for all the pair's metrics
    for (key, metric, kwargs, pvalue_test, interval_test, two_sided, level,
         has_level) in jobs:
        if metric.input_type not in arrays:
            y, stacks = views[metric.input_type]
            a_runs, b_runs = np.asarray(stacks[i]), np.asarray(stacks[j])
            arrays[metric.input_type] = np.asarray(y), a_runs, b_runs, a_runs[0], b_runs[0]
        y, a_runs, b_runs, a, b = arrays[metric.input_type]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # the paired statistics are prepared once for both tests (what
            # ``test`` would compute twice); results are the same
            paired = None
            if isinstance(pvalue_test, HierarchicalBootstrap):
                # runs="nested": the test resamples the runs itself
                a, b = list(a_runs), list(b_runs)
            elif len(a_runs) > 1 or len(b_runs) > 1:
                paired = prepare_paired_runs(y, a_runs, b_runs, metric, **kwargs)
            elif plain_test(pvalue_test) and (interval_test is None or plain_test(interval_test)):
                paired = prepare_paired(y, a, b, metric, cell_cache=cells, **kwargs)
            res = _run_test(pvalue_test, paired, y, a, b, metric, kwargs, shared.get((key, 0)))
            n_pvalue_warnings = len(caught)
            if two_sided and res.alternative not in (None, "two-sided"):
                raise ValueError(
                    f"pairs='all' needs two-sided tests, but {res.test!r} returned "
                    f"alternative={res.alternative!r}."
                )
            ires, itest = res, pvalue_test
            if interval_test is not None:
                ires = _run_test(interval_test, paired, y, a, b, metric, kwargs,
                                 shared.get((key, 1)))
                itest = interval_test
            ci, ci_level = _interval(ires, level, has_level, test_name(itest))
            concentration = _concentration(paired, res, ires)
        notes = job_warnings(caught[:n_pvalue_warnings], caught[n_pvalue_warnings:],
                             ptest=pvalue_test, itest=interval_test, res=res)
        if concentration is not None:
            notes.append(concentration_warning(
                concentration, pvalue_bootstrap="bootstrap" in (res.resampling or ""),
                unit="clusters" if paired.clustered else "items"))
        rows.append((key, {
            "alternative": res.alternative,
            "score_a": float(res.score_a),
            "score_b": float(res.score_b),
            "delta": float(res.delta),
            "ci_low": float(ci.low),
            "ci_high": float(ci.high),
            "ci_level": ci_level,
            "pvalue": float(res.pvalue),
            "n_resamples": monte_carlo_resamples(res),
            **_optional_fields(res, ires),
            "n_effective": math.nan if concentration is None else concentration.n_effective,
        }, res.resampling, notes))
    return rows


def monte_carlo_resamples(res):
    """The ``n_resamples`` of a frame row: the Monte Carlo draws behind the p-value.

    0 when none was drawn: an exact p-value (an exact permutation test,
    whose null distribution holds its distinct values with their
    probabilities, not resamples) or an analytic one (McNemar, DeLong, ...).
    """
    if (res.resampling or "").startswith("exact"):
        return 0
    return int(res.n_resamples)


def _concentration(paired, res, ires):
    """The influence concentration of a job's difference when a bootstrap number is shown
    and it is concentrated (:mod:`sigtest._engine.concentration`), else None."""
    if paired is None or not paired.has_statistics or not np.isfinite(res.delta):
        return None
    if not any("bootstrap" in (r.resampling or "") for r in (res, ires)):
        return None
    found = paired_concentration(paired)
    return found if is_concentrated(found, paired.n_discordant) else None


#: Result fields shown as extra frame columns when some test sets them: the
#: margin of a non-inferiority / equivalence test (an asymmetric pair as
#: ``margin_low`` and ``margin_high``, its ``margin`` nan), a Bayesian
#: test's posterior probabilities, and ``n_effective``, the effective number
#: of units of a difference carried by a handful of them (set by compare
#: itself, :func:`_concentration`; nan elsewhere).
OPTIONAL_COLUMNS = ("margin", "margin_low", "margin_high", "prob_worse", "prob_equivalent",
                    "prob_better", "n_effective")


def _optional_fields(res, ires):
    """The optional columns of one row (nan where neither result sets them)."""
    out = {}
    for name in OPTIONAL_COLUMNS:
        if name in ("margin_low", "margin_high", "n_effective"):
            continue
        value = getattr(res, name, None)
        if value is None:
            value = getattr(ires, name, None)
        if name == "margin" and isinstance(value, tuple):  # asymmetric (low, high)
            out["margin_low"], out["margin_high"] = value
            value = None
        out[name] = math.nan if value is None else float(value)
    out.setdefault("margin_low", math.nan)
    out.setdefault("margin_high", math.nan)
    return out


def reemit_warnings(caught):
    """Re-emit the warnings of the jobs once per distinct message, in the caller.

    Warnings raised in joblib workers would otherwise be lost (processes) or
    repeated once per pair; here each distinct message is emitted once with
    the (pair, metric, test) jobs it concerns, whatever ``n_jobs`` is. An
    item is ``(category, message)`` or ``(category, message, detail)``: the
    detail (a job's own reason, :mod:`~sigtest._workflows.compare.messages`)
    follows the job's name.
    """
    grouped = {}
    for where, items in caught:
        for category, message, *detail in items:
            detail = detail[0] if detail else None
            grouped.setdefault((category, message), []).append(
                where if detail is None else f"{where}: {detail}")
    for (category, message), where in grouped.items():
        shown = "; ".join(where[:3]) + (f"; and {len(where) - 3} more" if len(where) > 3 else "")
        warn_external(f"{message} [in {len(where)} job(s): {shown}]", category)


def run_pairs(tasks, n_jobs, verbose):
    """Run the pair tasks ``(view, i, j, jobs, shared)`` with joblib; rows in task order.

    The pairs go to the workers in batches (:func:`pair_batches`): the pairs
    between two blocks of systems of one run. A batch sends the worker ``y``
    and the predictions of its systems once (not per pair), the jobs of its
    pairs (metric, seeded tests) and the rows of the shared arrays its pairs
    read (:func:`_batch_payload`: the scores of its systems, ``B`` floats per
    system and metric, or its pairs' permuted differences); each pair's
    shared differences are built from them in the worker. The rows of a pair
    do not depend on its batch, so the result is the same for any ``n_jobs``
    and backend.
    """
    batches = pair_batches(tasks, joblib.effective_n_jobs(n_jobs))
    # joblib builds a batch's arrays only when it dispatches it; a cold worker pool
    # is started only when the pairs left pay for it (run_calls)
    out = run_calls(lambda t: joblib.delayed(_batch_task)(*_batch_payload(tasks, batches[t])),
                    [len(batch) for batch in batches], n_jobs,
                    return_as="generator" if verbose else "list")
    bar = _progress_bar(len(tasks)) if verbose else None
    rows = [None] * len(tasks)
    for batch, batch_rows in zip(batches, out):
        for t, task_rows in zip(batch, batch_rows):
            rows[t] = task_rows
        if bar is not None:
            bar.update(len(batch))
    if bar is not None:
        bar.close()
    return rows


def _progress_bar(total):
    """tqdm's bar of ``total`` pairs on stderr, or ``None`` where tqdm would draw none.

    ``disable=None``: no bar when stderr is not a terminal (a log, a pipe,
    CI), as tqdm decides it, except in Jupyter, where ``tqdm.auto`` draws its
    widget. That case is decided here before importing tqdm (~0.03 s of CPU
    on a first call, e.g. the command line's, whose ``--progress`` is on by
    default).
    """
    stream = sys.stderr
    if ("ipykernel" not in sys.modules and hasattr(stream, "isatty")
            and not stream.isatty()):
        return None
    from tqdm.auto import tqdm  # a dependency; imported late (import time)

    return tqdm(total=total, desc="sigtest.compare", unit="pair", disable=None)


#: Batches of pairs per worker (joblib's effective ``n_jobs``) that
#: :func:`pair_batches` aims at: enough for the workers to finish together.
_BATCHES_PER_WORKER = 8


def pair_batches(tasks, n_workers):
    """The pair tasks grouped by run and by the blocks of their two systems.

    The ``k`` systems of a run are cut into ``g`` blocks of consecutive
    indices, ``g (g + 1) / 2`` about ``8 n_workers``; a batch holds the pairs
    of one run between two blocks (or within one). Returns lists of task
    indices, largest batch first (joblib dispatches in order, so the last
    ones to finish are small).
    """
    target = _BATCHES_PER_WORKER * max(1, int(n_workers))
    blocks = max(1, math.ceil(math.sqrt(2 * target)))
    groups = {}
    for t, (view, i, j, *_) in enumerate(tasks):
        k = len(next(iter(view.values()))[1])
        g = min(k, blocks)
        bi, bj = sorted((i * g // k, j * g // k))
        groups.setdefault((id(view), bi, bj), []).append(t)
    return sorted(groups.values(), key=lambda batch: (-len(batch), batch[0]))


def _batch_payload(tasks, batch):
    """What a batch sends a worker: the view of its systems, its pairs, their shared rows.

    Returns ``(view, pairs, arrays)``: ``pairs`` is ``[(i, j, jobs, entries)]``
    (the jobs with their seeded tests, :func:`~sigtest._workflows.compare.plan.seeded_job`)
    with ``entries`` ``[(key, array index, where, seed, scheme)]``, ``arrays``
    the rows of the comparison's shared arrays the batch reads (the scores
    of its systems, or its pairs' permuted differences), ``where``
    re-indexed into them.
    """
    view = tasks[batch[0]][0]
    systems = sorted({s for t in batch for s in tasks[t][1:3]})
    wanted = {}  # id(array) -> (position, array, {row of the array: row sent})
    pairs = []
    for t in batch:
        _, i, j, jobs, shared = tasks[t]
        entries = []
        for key, array, where, seed, scheme in _entries(shared):
            at, _, rows = wanted.setdefault(id(array), (len(wanted), array, {}))
            for r in ([where] if scheme == "permutation" else where):
                rows.setdefault(r, len(rows))
            sent = rows[where] if scheme == "permutation" else (rows[where[0]], rows[where[1]])
            entries.append((key, at, sent, seed, scheme))
        pairs.append((i, j, [seeded_job(job) for job in jobs], entries))
    arrays = [array[list(rows)] for _, array, rows in wanted.values()]
    return system_view(view, *systems), pairs, arrays


def _entries(shared):
    """The entries of a task's shared differences (a TaskDeltas, or a plain mapping)."""
    if isinstance(shared, TaskDeltas):
        return shared.entries()
    if shared:  # pragma: no cover - compare always passes TaskDeltas
        raise TypeError(f"Shared differences must be a TaskDeltas; got {type(shared)!r}.")
    return []


def _batch_task(view, pairs, arrays):
    """Rows of every pair of a batch (in the worker): :func:`_pair_task` for each."""
    out = []
    for i, j, jobs, entries in pairs:
        shared = TaskDeltas()
        for key, at, where, seed, scheme in entries:
            shared.add(key, arrays[at], where, seed, scheme)
        out.append(_pair_task(view, i, j, jobs, shared))
    return out


def _score_task(view, s, jobs, settings, seed):
    """Score interval of one system (one run) on every metric; compact rows.

    The system is prepared as both sides of a pair (``prepare_paired(y, p,
    p, ...)``, or :func:`prepare_paired_runs` with its runs averaged) with
    the comparison's keyword arguments (class set, weights, ``groups``,
    ``strata``), then :func:`sigtest.tests_._score.score_paired` bootstraps its
    score with ``seed``: what :func:`sigtest.score` computes on the same data
    and seed.
    """
    rows = []
    for key, metric, kwargs in jobs:
        y, stacks = view[metric.input_type]
        y, runs = np.array(y), np.array(stacks[s])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if len(runs) > 1:
                paired = prepare_paired_runs(y, runs, runs, metric, **kwargs)
            else:
                paired = prepare_paired(y, runs[0], runs[0], metric, **kwargs)
            res = score_paired(paired, seed=seed, **settings)
        ci = res.confidence_interval
        rows.append((key, {
            "score": float(res.estimate),
            "ci_low": float(ci.low),
            "ci_high": float(ci.high),
            "ci_level": float(res.confidence_level),
            "n_resamples": int(res.n_resamples),
            "ci_method": res.method if res.n_trials is None else "exact Clopper-Pearson",
        }, [(w.category, str(w.message)) for w in caught]))
    return rows


def run_scores(tasks, n_jobs):
    """Run the score tasks with joblib; rows in task order (independent of ``n_jobs``)."""
    out = run_calls(lambda t: joblib.delayed(_score_task)(*tasks[t]), [1] * len(tasks), n_jobs)
    return [row for rows in out for row in rows]
