"""Clustered paired bootstrap (issue 10): G = 1,000 clusters, B = 10,000, N = 10^4 and 10^6.

``BergKirkpatrickBootstrap(n_resamples=10_000).test(y, a, b, groups=g)`` sums
every item's statistics within its cluster once (``prepare``, O(N)), then
resamples the G cluster rows (``resample``, O(B G), independent of N). The
goal of the issue: flat in N and under 1 s on 2 cores.

Two NumPy cluster bootstraps of the same data (same B, same G draws per
resample) are the references:

* **naive** -- what a user writes first: draw G cluster ids per resample,
  gather the items of the drawn clusters (items sorted by cluster, one
  ``np.repeat`` of the offsets) and recompute both accuracies from the item
  arrays: O(B N). It is timed on a few resamples and scaled to B (the table
  says so).
* **sums** -- the careful user: per-cluster counts of correct items of A and B
  and cluster sizes precomputed with ``bincount``, then one ``(B, G)`` index
  matrix (in chunks) and row sums: O(N + B G), the same algorithm as sigtest
  without the numba kernel.

Times are medians of ``--repeats`` runs (default 5) after a warm-up call
(numba compiled or loaded from its cache); every sigtest call gets a new seed
so no call is served from sigtest's kernel memo. Usage:
``python benchmarks/bench_clustered.py [--quick]`` (about 1 minute;
``--quick`` times fewer naive resamples).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from sigtest import BergKirkpatrickBootstrap
from sigtest._engine import prepare_paired
from sigtest.metrics import get_metric

G = 1_000
B = 10_000
SIZES = (10_000, 1_000_000)
ROWS = []


def fmt_t(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def median_time(fn, repeats):
    """Median wall time of ``fn()`` over ``repeats`` runs after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def clustered_data(n, seed=0):
    """Binary gold labels of ``n`` items in G clusters (uneven sizes, shuffled),
    two systems ~75 % / 78 % accurate with a per-cluster difficulty."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, G, n)
    groups[:G] = np.arange(G)  # every cluster occupied
    rng.shuffle(groups)
    difficulty = rng.normal(0.0, 0.8, G)[groups]
    y = rng.integers(0, 2, n)
    p_a = 1.0 / (1.0 + np.exp(-(1.1 + difficulty)))
    p_b = 1.0 / (1.0 + np.exp(-(1.27 + difficulty)))
    a = np.where(rng.random(n) < p_a, y, 1 - y)
    b = np.where(rng.random(n) < p_b, y, 1 - y)
    return y, a, b, groups


def numpy_naive(y, a, b, groups, n_resamples, rng):
    """Cluster bootstrap recomputing accuracy from the items of the drawn clusters."""
    order = np.argsort(groups, kind="stable")
    sizes = np.bincount(groups, minlength=G)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    ys, as_, bs = y[order], a[order], b[order]
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        drawn = rng.integers(0, G, G)
        lens = sizes[drawn]
        items = np.repeat(starts[drawn] - (np.cumsum(lens) - lens), lens) + np.arange(lens.sum())
        yt = ys[items]
        out[r] = np.mean(bs[items] == yt) - np.mean(as_[items] == yt)
    return out


def numpy_sums(y, a, b, groups, n_resamples, rng, chunk=1000):
    """Cluster bootstrap on per-cluster sums (bincount once, then (B, G) gathers)."""
    right_a = np.bincount(groups, weights=(a == y), minlength=G)
    right_b = np.bincount(groups, weights=(b == y), minlength=G)
    sizes = np.bincount(groups, minlength=G).astype(np.float64)
    out = np.empty(n_resamples)
    for lo in range(0, n_resamples, chunk):
        hi = min(n_resamples, lo + chunk)
        idx = rng.integers(0, G, (hi - lo, G))
        n_items = sizes[idx].sum(axis=1)
        out[lo:hi] = (right_b[idx].sum(axis=1) - right_a[idx].sum(axis=1)) / n_items
    return out


def bench(n, repeats, naive_resamples):
    y, a, b, groups = clustered_data(n)
    metric = get_metric("accuracy")
    seeds = np.random.default_rng(12345)
    test = BergKirkpatrickBootstrap(n_resamples=B, random_state=seeds)

    t_total = median_time(lambda: test.test(y, a, b, metric="accuracy", groups=groups),
                          repeats)
    t_prep = median_time(lambda: prepare_paired(y, a, b, metric, groups=groups), repeats)
    paired = prepare_paired(y, a, b, metric, groups=groups)
    t_resample = median_time(lambda: test.test_paired(paired), repeats)
    res = test.test(y, a, b, metric="accuracy", groups=groups)

    rng = np.random.default_rng(0)
    numpy_naive(y, a, b, groups, 2, rng)  # warm-up
    t0 = time.perf_counter()
    naive = numpy_naive(y, a, b, groups, naive_resamples, rng)
    t_naive = (time.perf_counter() - t0) * B / naive_resamples
    t_sums = median_time(lambda: numpy_sums(y, a, b, groups, B, rng), max(1, repeats // 2))
    sums = numpy_sums(y, a, b, groups, B, rng)
    # the three bootstraps estimate the same distribution: compare their spreads
    sd = float(np.std(res.null_distribution))
    print(f"\nN = {n:,} items in G = {G:,} clusters, B = {B:,} "
          f"(delta = {res.delta:+.4f}, p = {res.pvalue:.4f}, n_groups = {res.n_groups})")
    print(f"  sd of the bootstrap deltas: sigtest {sd:.5f}, NumPy sums {np.std(sums):.5f}, "
          f"NumPy naive {np.std(naive):.5f} ({naive_resamples} resamples)")
    print(f"  sigtest prepare (cluster sums)   {fmt_t(t_prep):>10}")
    print(f"  sigtest resample (test_paired)   {fmt_t(t_resample):>10}")
    print(f"  sigtest total (test, groups=)    {fmt_t(t_total):>10}")
    note = "" if naive_resamples == B else f" (timed on {naive_resamples} resamples, x{B // naive_resamples})"
    print(f"  NumPy naive cluster bootstrap    {fmt_t(t_naive):>10}{note}")
    print(f"  NumPy per-cluster sums           {fmt_t(t_sums):>10}")
    ROWS.append((n, t_prep, t_resample, t_total, t_naive, t_sums, naive_resamples))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="time fewer naive resamples")
    args = parser.parse_args(argv)
    import numba

    print(f"numba threads: {numba.get_num_threads()}, CPUs: {os.cpu_count()}")
    for n in SIZES:
        naive = (200 if n <= 10_000 else 10) if args.quick else (1000 if n <= 10_000 else 40)
        bench(n, args.repeats, naive)
    print(f"\nClustered BK bootstrap, accuracy, G = {G:,}, B = {B:,} (medians of "
          f"{args.repeats})")
    header = (f"{'N':>10} {'prepare':>9} {'resample':>9} {'total':>9} {'naive NumPy':>12} "
              f"{'/total':>7} {'sums NumPy':>11} {'/total':>6}  goal (total < 1 s)")
    print(header)
    for n, prep, resample, total, naive, sums, _ in ROWS:
        print(f"{n:>10,} {fmt_t(prep):>9} {fmt_t(resample):>9} {fmt_t(total):>9} "
              f"{fmt_t(naive):>12} {naive / total:>6,.0f}x {fmt_t(sums):>11} "
              f"{sums / total:>5.1f}x  {'PASS' if total < 1.0 else 'MISS'}")
    flat = ROWS[-1][2] / ROWS[0][2]
    print(f"resampling time N = 10^6 / N = 10^4: {flat:.2f} (flat in N: "
          f"{'PASS' if flat < 1.5 else 'MISS'}); the O(N) part is the one pass of prepare")
    print("(/total: reference time over sigtest's total; sigtest's total also computes the "
          "p-value, the discordant-cluster count and the delete-one-cluster jackknife)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
