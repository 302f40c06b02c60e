"""Benchmark of sigtest.compare: 30 systems (435 pairs) x 4 hard metrics.

N = 10 000 test items, 5 classes, B = 10 000 resamples for both the paired
permutation p-value and the BCa interval (the default test pair), Holm
correction. Goal: < 30 s on 2 cores. Run:

    .venv/bin/python benchmarks/bench_compare.py [--n-jobs 1 2] [--systems 30] [--quick]

Each configuration is timed after a warm-up call on 3 systems, so numba
compilation and worker start-up are excluded from the figure (they are paid
once per process / worker pool). The script also checks that the frames for
every ``n_jobs`` are identical.
"""

import argparse
import time

import numpy as np
import pandas as pd

from sigtest import BCaInterval, PairedPermutation, compare

METRICS = ["accuracy", "f1_macro", "precision_macro", "recall_macro"]


def make_data(n_systems=30, n_samples=10_000, n_classes=5, seed=0):
    """Gold labels and ``n_systems`` predictions with accuracies spread over .6-.9."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_samples)
    preds = {}
    for i, acc in enumerate(np.linspace(0.6, 0.9, n_systems)):
        noise = rng.integers(0, n_classes, n_samples)
        preds[f"sys{i:02d}"] = np.where(rng.random(n_samples) < acc, y, noise)
    return y, preds


def run(y, preds, n_jobs, n_resamples):
    test = (PairedPermutation(n_resamples=n_resamples), BCaInterval(n_resamples=n_resamples))
    return compare(y, preds, metrics=METRICS, test=test, n_jobs=n_jobs, random_state=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 10 systems (45 pairs), B = 2000")
    # run_all.py passes the same arguments to every bench script: ignore others'
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"(ignoring arguments meant for other benchmarks: {ignored})")
    if args.quick:
        args.systems, args.resamples = 10, 2000

    y, preds = make_data(args.systems, args.samples)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems ({n_pairs} pairs) x {len(METRICS)} metrics, "
          f"N={args.samples}, B={args.resamples}, tests=permutation+bca")
    frames = {}
    for n_jobs in args.n_jobs:
        small = dict(list(preds.items())[:3])
        run(y, small, n_jobs, 99)  # warm-up: numba compile / load cache, start workers
        start = time.perf_counter()
        res = run(y, preds, n_jobs, args.resamples)
        elapsed = time.perf_counter() - start
        frames[n_jobs] = res.to_frame()
        jobs = n_pairs * len(METRICS)
        print(f"n_jobs={n_jobs}: {elapsed:6.1f} s  ({1000 * elapsed / jobs:.1f} ms per "
              f"(pair, metric) job, {jobs} jobs)")
    first = next(iter(frames.values()))
    for n_jobs, frame in frames.items():
        pd.testing.assert_frame_equal(first, frame, check_exact=True)
    print("frames identical across n_jobs:", list(frames))
    sig = first.groupby("metric").significant.sum()
    print("significant pairs per metric (Holm):", sig.to_dict())


if __name__ == "__main__":
    main()
