"""Benchmark of sigtest.compare: 30 systems (435 pairs) x 4 hard metrics.

N = 10 000 test items, 5 classes, B = 10 000 resamples for both the paired
permutation p-value and the BCa interval (the default test pair), Holm
correction. Goal: < 5 s on 2 cores (issue 13; 25-39 s before the BCa intervals
used resamples shared by all pairs, see ``docs/leaderboards.md``). Run:

    .venv/bin/python benchmarks/bench_compare.py [--n-jobs 1 2] [--systems 30] [--quick]

Each configuration is timed after a warm-up call on 3 systems with the same
``B``, so numba compilation, worker start-up and the import of
``scipy.stats`` (by the exact permutation test) are excluded from the figure
(they are paid once per process / worker pool). The script also checks that the frames for
every ``n_jobs`` are identical.

``--bk`` times instead the bootstrap test alone,
``BergKirkpatrickBootstrap(n_resamples=B, alternative="two-sided")`` (issue 23:
21-22 s before the bootstrap test used the shared resamples, goal <= 3 s).
Every case prints the ratio of each ``n_jobs`` to the first one (``n_jobs=1``
vs ``2``: goal >= 1.6x on 2 cores) and the machine's load average, since the
figures are only comparable on an idle machine.

``--defaults`` times instead the cost of ``compare``'s default resamples rule
(issue 8, item 8): 50 systems (1,225 pairs), N = 10^4 hard labels, accuracy,
``test=None``, i.e. the permutation p-value with ``B = max(9999,
ceil(10 m / alpha) - 1) = 244,999`` resamples and the BCa interval with
10,000, Holm. ``--systems`` and ``--samples`` change the size; ``--metric
f1_macro`` times a metric whose permutation test runs by Monte Carlo (for
accuracy the exact test is cheaper and is used, so ``B`` does not matter).
"""

import argparse
import os
import time

import numpy as np
import pandas as pd

from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation, compare

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
    parser.add_argument("--bk", action="store_true",
                        help="time BergKirkpatrickBootstrap(alternative='two-sided') alone")
    parser.add_argument("--defaults", action="store_true",
                        help="time compare's defaults (test=None) on 50 systems, accuracy")
    parser.add_argument("--metric", default="accuracy",
                        help="metric of --defaults (accuracy: exact permutation test; "
                             "f1_macro: Monte Carlo with the B of the rule)")
    # run_all.py passes the same arguments to every bench script: ignore others'
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"(ignoring arguments meant for other benchmarks: {ignored})")
    if args.quick:
        args.systems, args.resamples = 10, 2000
    if args.defaults:
        return bench_defaults(args)
    if args.bk:
        return bench_bk(args)

    y, preds = make_data(args.systems, args.samples)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems ({n_pairs} pairs) x {len(METRICS)} metrics, "
          f"N={args.samples}, B={args.resamples}, tests=permutation+bca")
    frame = time_n_jobs(y, preds, args.n_jobs,
                        lambda systems, n_jobs: run(y, systems, n_jobs, args.resamples))
    sig = frame.groupby("metric").significant.sum()
    print("significant pairs per metric (Holm):", sig.to_dict())


def _load():
    """The 1-minute load average (other processes sharing the cores), or nan."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return float("nan")


def time_n_jobs(y, preds, n_jobs_list, run_one):
    """Time ``run_one(preds, n_jobs)`` per ``n_jobs`` (after a 3-system warm-up).

    Prints the seconds, the ratio to the first ``n_jobs`` and the load
    average before each run; checks that the frames are identical.
    """
    frames, times = {}, {}
    for n_jobs in n_jobs_list:
        run_one(dict(list(preds.items())[:3]), n_jobs)  # warm-up: compile, start workers
        load = _load()
        start = time.perf_counter()
        res = run_one(preds, n_jobs)
        times[n_jobs] = time.perf_counter() - start
        frames[n_jobs] = res.to_frame()
        first = n_jobs_list[0]
        print(f"n_jobs={n_jobs}: {times[n_jobs]:6.2f} s  (x{times[first] / times[n_jobs]:.2f} "
              f"vs n_jobs={first}; load average {load:.1f} on {_cores()} cores)")
    first = next(iter(frames.values()))
    for frame in frames.values():
        pd.testing.assert_frame_equal(first, frame, check_exact=True)
    print("frames identical across n_jobs:", list(frames))
    return first


def _cores():
    return os.cpu_count()


def bench_bk(args):
    """Time the two-sided bootstrap test alone on the 30-system case (issue 23)."""
    y, preds = make_data(args.systems, args.samples)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems ({n_pairs} pairs) x {len(METRICS)} metrics, "
          f"N={args.samples}, B={args.resamples}, test=BergKirkpatrickBootstrap two-sided")

    def run_one(systems, n_jobs):
        test = BergKirkpatrickBootstrap(n_resamples=args.resamples, alternative="two-sided")
        return compare(y, systems, metrics=METRICS, test=test, n_jobs=n_jobs, random_state=0)

    frame = time_n_jobs(y, preds, args.n_jobs, run_one)
    print("significant pairs per metric (Holm):",
          frame.groupby("metric").significant.sum().to_dict())


def bench_defaults(args):
    """Time ``compare(y, preds, metrics="accuracy")`` with the default tests."""
    from sigtest._workflows.compare.checks import default_resamples as _default_resamples

    systems = 50 if args.systems == 30 else args.systems
    y, preds = make_data(systems, args.samples)
    m = systems * (systems - 1) // 2
    b = _default_resamples(m, 0.05, 9999)
    print(f"defaults: {systems} systems ({m} pairs), N={args.samples}, {args.metric}, "
          f"permutation B={b} (unless exact) + BCa B=10000, Holm")
    for n_jobs in args.n_jobs:
        small = dict(list(preds.items())[:3])
        compare(y, small, metrics=args.metric, n_jobs=n_jobs, random_state=0)  # warm-up
        start = time.perf_counter()
        res = compare(y, preds, metrics=args.metric, n_jobs=n_jobs, random_state=0)
        elapsed = time.perf_counter() - start
        frame = res.to_frame()
        print(f"n_jobs={n_jobs}: {elapsed:6.1f} s ({1000 * elapsed / m:.1f} ms per pair); "
              f"resamples of the p-test: {sorted(set(frame.n_resamples))[:3]}; "
              f"significant pairs: {int(frame.significant.sum())} of {m}; "
              f"smallest adjusted p: {frame.pvalue_adj.min():.2e}")


if __name__ == "__main__":
    main()
