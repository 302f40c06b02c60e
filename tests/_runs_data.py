"""Shared data generators of the tests of several runs per system (not a test module)."""

import numpy as np


def null_runs(rng, y, k, acc, n_runs, redraw):
    """Runs of one system: a base prediction and ``redraw`` of it drawn anew per run.

    The issue-5 null: each item is right with probability ``acc``, else a
    uniform label of ``k``; every run re-draws a share ``redraw`` of the base
    prediction the same way.
    """
    def draw(m):
        return np.where(rng.random(m.shape[0]) < acc, m, rng.integers(0, k, m.shape[0]))

    base = draw(y)
    runs = []
    for _ in range(n_runs):
        run = base.copy()
        idx = rng.random(y.shape[0]) < redraw
        run[idx] = draw(y[idx])
        runs.append(run)
    return runs
