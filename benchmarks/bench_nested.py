"""Hierarchical bootstrap (``compare(runs="nested")``, issue 11): N = 5,000, 5 runs, B = 10^4.

``HierarchicalBootstrap(n_resamples=10_000).test(y, runs_a, runs_b)`` keeps
the per-run statistics as ``(R, N, s)`` arrays, merges identical item rows
into cells, and per resample draws N items and R runs of each system
(``sigtest._engine.nested``). The reference is the naive two-stage bootstrap
a user writes first: per resample, gather the drawn items of every drawn run
and recompute the scores, O(N R) per resample, timed on a few resamples and
scaled to B (the table says so).

Times are medians of ``--repeats`` runs (default 3). Usage:
``python benchmarks/bench_nested.py`` (about 1 minute).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from sigtest import HierarchicalBootstrap


def _data(n, runs, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)

    def run(acc):
        return np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))

    return y, [run(0.70) for _ in range(runs)], [run(0.72) for _ in range(runs)]


def _naive(y, runs_a, runs_b, B, rng):
    """Two-stage bootstrap of the accuracy difference by gathering predictions."""
    a, b = np.stack(runs_a), np.stack(runs_b)
    n, ra, rb = y.size, a.shape[0], b.shape[0]
    out = np.empty(B)
    for i in range(B):
        items = rng.integers(0, n, n)
        da = a[rng.integers(0, ra, ra)][:, items] == y[items]
        db = b[rng.integers(0, rb, rb)][:, items] == y[items]
        out[i] = db.mean() - da.mean()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("-B", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    y, ra, rb = _data(args.n, args.runs)
    for metric in ("accuracy", "f1_macro"):
        times = []
        for r in range(args.repeats):
            t = time.perf_counter()
            HierarchicalBootstrap(n_resamples=args.B, alternative="two-sided",
                                  random_state=r).test(y, ra, rb, metric=metric)
            times.append(time.perf_counter() - t)
        print(f"sigtest {metric:9s} N={args.n} R={args.runs} B={args.B}: "
              f"{statistics.median(times):.2f} s")
    few = 200
    t = time.perf_counter()
    _naive(y, ra, rb, few, np.random.default_rng(0))
    naive = (time.perf_counter() - t) * args.B / few
    print(f"naive gather (accuracy, {few} resamples scaled to B): {naive:.2f} s")


if __name__ == "__main__":
    main()
