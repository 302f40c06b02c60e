"""Many datasets and seeds (issue 11): 20 datasets x 10 systems x 5 seeds, N = 5,000, B = 10^4.

``compare_datasets({dataset: (y_true, {system: [run_1, ..., run_5]})},
test=PairedPermutation(n_resamples=10_000))`` scores every cell (the five
runs pooled, ``compare(..., runs="average")``), runs the item-level paired
permutation test of the 45 pairs on each of the 20 datasets (900 tests of
N = 5,000 items, B = 10^4 each), then the rank statistics (Friedman,
Iman-Davenport, Nemenyi, Wilcoxon across datasets) and the replicability
counts. The goal of the issue: under 30 s on 2 cores.

Synthetic data: 3 classes; system ``j`` is right with probability ``0.70 +
0.01 j`` on each item, and each of its 5 runs re-draws 10 % of its
predictions (the issue-5 model of seeds). The timed call is preceded by a
small warm-up call (numba kernels loaded from their cache). Usage:
``python benchmarks/bench_datasets.py [--quick] [--n-jobs J]`` (``--quick``:
5 datasets).

Measured (2026-11-23, shared 2-core machine at load average 8-9, so inflated):
21.0 s with the default ``n_jobs=None`` (20.8 s for the item-level tests, 0.2 s
for the post-hoc tests and replicability counts); 63 s with ``--n-jobs 2``
(joblib's process start-up and the load). Before identical averaged rows were
merged into cells (``prepare_paired_runs``), one 5-run permutation test of
N = 5,000 took 0.47 s instead of 0.04 s, which projected to about 450 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sigtest import PairedPermutation, compare_datasets

N_DATASETS, N_SYSTEMS, N_RUNS, N_ITEMS, B = 20, 10, 5, 5_000, 10_000


def make_data(n_datasets, seed=0):
    rng = np.random.default_rng(seed)
    data = {}
    for d in range(n_datasets):
        y = rng.integers(0, 3, N_ITEMS)
        systems = {}
        for j in range(N_SYSTEMS):
            base = np.where(rng.random(N_ITEMS) < 0.70 + 0.01 * j, y,
                            (y + rng.integers(1, 3, N_ITEMS)) % 3)
            runs = []
            for _ in range(N_RUNS):
                redraw = rng.random(N_ITEMS) < 0.10
                run = base.copy()
                run[redraw] = np.where(rng.random(redraw.sum()) < 0.70 + 0.01 * j, y[redraw],
                                       rng.integers(0, 3, redraw.sum()))
                runs.append(run)
            systems[f"system_{j}"] = runs
        data[f"dataset_{d:02d}"] = (y, systems)
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 datasets instead of 20")
    parser.add_argument("--n-jobs", type=int, default=None, help="compare's n_jobs")
    args = parser.parse_args()
    n_datasets = 5 if args.quick else N_DATASETS
    data = make_data(n_datasets)
    warm = {k: data[k] for k in list(data)[:2]}
    compare_datasets(warm, test=PairedPermutation(n_resamples=99), random_state=0)
    t0 = time.perf_counter()
    result = compare_datasets(data, test=PairedPermutation(n_resamples=B), random_state=0,
                              n_jobs=args.n_jobs)
    t_item = time.perf_counter() - t0
    t1 = time.perf_counter()
    result.pairwise("nemenyi")
    result.pairwise("wilcoxon")
    rep = result.replicability()
    t_rank = time.perf_counter() - t1
    n_tests = len(result.item_tests())
    print(f"{n_datasets} datasets x {N_SYSTEMS} systems x {N_RUNS} runs, N = {N_ITEMS}, B = {B}")
    print(f"compare_datasets (scores + {n_tests} item-level tests + ranks): {t_item:.2f} s")
    print(f"pairwise nemenyi + wilcoxon + replicability: {t_rank:.3f} s")
    print(f"total: {t_item + t_rank:.2f} s (goal: < 30 s on 2 cores)")
    print(result)
    print(rep.head().to_string())


if __name__ == "__main__":
    main()
