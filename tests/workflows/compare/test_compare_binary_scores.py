"""compare() on per-item 0/1 scores: the shared draws take the product path, and stay deterministic."""

import numpy as np
import pandas as pd

import sigtest
from sigtest._engine import shared as sh


def _scores(k=4, n=400, seed=0):
    rng = np.random.default_rng(seed)
    return {f"s{j}": (rng.random(n) < p).astype(float)
            for j, p in enumerate(np.linspace(.4, .8, k))}


def test_binary_scores_same_frame_for_any_n_jobs_and_either_kernel(monkeypatch):
    # (any order of the systems: tests/engine/test_shared_products.py, on the sums)
    scores = _scores()
    first = sigtest.compare(None, scores, metrics="mean", random_state=3).to_frame()
    two_jobs = sigtest.compare(None, scores, metrics="mean", random_state=3,
                               n_jobs=2).to_frame()
    pd.testing.assert_frame_equal(first, two_jobs)
    # the count kernel (the path before the product one) gives the same frame
    monkeypatch.setattr(sh, "_product_plan", lambda codes, table: False)
    counted = sigtest.compare(None, scores, metrics="mean", random_state=3).to_frame()
    pd.testing.assert_frame_equal(first, counted)
