"""Helpers of the tests of compare's shared resamples: data and naive twins."""

import warnings

import numpy as np

import sigtest
from sigtest.metrics import get_metric


def hard_systems(k, n=300, n_classes=3, seed=0, spread=(0.5, 0.8)):
    """Gold labels and ``k`` systems right on each item with accuracies over ``spread``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {f"s{i}": np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
             for i, acc in enumerate(np.linspace(*spread, k))}
    return y, preds


def wrong_elsewhere_systems(k, n, seed, n_classes, spread):
    """Gold labels and ``k`` systems right with accuracies over ``spread``, their wrong
    answers spread over the other classes (two systems often both wrong, differently)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {}
    for j, p in enumerate(np.linspace(*spread, k)):
        wrong = (y + rng.integers(1, n_classes, n)) % n_classes
        preds[f"m{j:02d}"] = np.where(rng.random(n) < p, y, wrong)
    return y, preds


def frame_and_warnings(y, preds, **kwargs):
    """``compare(y, preds, random_state=0, **kwargs).to_frame()`` and its sorted warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = sigtest.compare(y, preds, random_state=0, **kwargs).to_frame()
    return frame, sorted((w.category.__name__, str(w.message)) for w in caught)


def rows_by_pair(frame):
    """``{(a, b) in name order: ((delta, ci_low, ci_high), pvalue, pvalue_adj)}``.

    A row given as ``(b, a)`` is turned around, so the frames of the same
    systems listed in other orders compare equal.
    """
    out = {}
    for row in frame.itertuples():
        flip = row.system_a > row.system_b
        key = (row.system_b, row.system_a) if flip else (row.system_a, row.system_b)
        out[key] = ((-row.delta, -row.ci_high, -row.ci_low) if flip
                    else (row.delta, row.ci_low, row.ci_high), row.pvalue, row.pvalue_adj)
    return out


def naive_shared_scores(y, preds, draws, metric, labels):
    """``(B, k)``: every system scored by the metric's own function on the same drawn items."""
    func = get_metric(metric)
    kw = {"labels": labels, "zero_division": 0.0} if metric == "f1_macro" else {}
    return np.array([[func(y[d], p[d], **kw) for p in preds.values()] for d in draws])


def pair_row(frame, metric, a, b):
    """The frame's row of the pair ``(a, b)`` on ``metric``."""
    return frame[(frame.metric == metric) & (frame.system_a == a)
                 & (frame.system_b == b)].iloc[0]


def per_pair_rows(tasks, n_jobs, verbose):
    """``run_all_pairs`` with every job on the per-pair path (the reference of the bulk paths)."""
    from sigtest._workflows.compare.pair_rows import PairRows
    from sigtest._workflows.compare.run import run_pairs

    return PairRows.from_task_rows(run_pairs(tasks, n_jobs, verbose))


def bulk_and_per_pair(monkeypatch, y, preds, **kwargs):
    """``(bulk (frame, warnings), per-pair (frame, warnings), tasks left to the per-pair path)``.

    The same comparison twice: every pair on the per-pair path (the
    reference), then as ``compare`` runs it, spying on the tasks the bulk
    paths leave to the per-pair path.
    """
    from sigtest._workflows.compare import api, bulk, run

    with monkeypatch.context() as m:
        m.setattr(api, "run_all_pairs", per_pair_rows)
        want = frame_and_warnings(y, preds, **kwargs)
    sent = []

    def spy(tasks, n_jobs, verbose):
        sent.extend(tasks)
        return run.run_pairs(tasks, n_jobs, verbose)

    with monkeypatch.context() as m:
        m.setattr(bulk, "run_pairs", spy)
        got = frame_and_warnings(y, preds, **kwargs)
    return got, want, sent
