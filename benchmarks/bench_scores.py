"""Per-item scores (issue 22 s4): the metric "mean" with y_true=None, B = 10,000.

``BergKirkpatrickBootstrap(n_resamples=10_000).test(None, a, b, metric="mean")``
on three kinds of per-item scores (N = 10^4 and 10^6 items; 10^4 and 10^5
for the continuous kind, whose cost is O(B N) on any path):

* ``0/1``: exact match or pass/fail; equal pairs of scores share a cell, so
  at most four cells are resampled (flat in N after one encoding pass);
* ``judge``: a rating in [0, 10] with one decimal (at most 101^2 cells);
* ``float``: a continuous sentence-level score (about one cell per item).

References on the same data, in the same run:

* **items**: sigtest's own item path (``prepare_paired(..., compress=False)``,
  one row per item), what the metric would cost without ``cellwise=True``
  (above 10^4 items timed on 500 resamples and scaled to B);
* **NumPy**: the naive paired bootstrap a user writes, ``d[idx].mean(axis=1)``
  on ``(chunk, N)`` index matrices, O(B N); timed on a few resamples and
  scaled to B (the table says so).

Times are medians of ``--repeats`` runs after a warm-up call; every sigtest
call gets a new seed (no kernel memo). Usage:
``python benchmarks/bench_scores.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bench_clustered import fmt_t, median_time
from sigtest import BergKirkpatrickBootstrap
from sigtest._engine import prepare_paired

B = 10_000
CASES = (("0/1", 10_000), ("judge", 10_000), ("float", 10_000),
         ("0/1", 1_000_000), ("judge", 1_000_000), ("float", 100_000))


def scores(kind, n, seed=0):
    """Scores of A and B (B slightly better) of one kind."""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, n)
    a, b = base + rng.normal(0, 1, n), base + 0.03 + rng.normal(0, 1, n)
    if kind == "0/1":
        return (a > 0).astype(float), (b > 0).astype(float)
    if kind == "judge":
        return (np.clip(np.round(5 + 2 * a, 1), 0, 10),
                np.clip(np.round(5 + 2 * b, 1), 0, 10))
    return 1 / (1 + np.exp(-a)), 1 / (1 + np.exp(-b))


def numpy_bootstrap(a, b, n_resamples, rng, chunk_items=2**24):
    """Naive paired bootstrap of the mean difference: ``d[idx].mean(axis=1)``."""
    d = b - a
    n = d.shape[0]
    chunk = max(1, chunk_items // n)
    out = np.empty(n_resamples)
    for lo in range(0, n_resamples, chunk):
        hi = min(n_resamples, lo + chunk)
        out[lo:hi] = d[rng.integers(0, n, (hi - lo, n))].mean(axis=1)
    return out


def bench(kind, n, repeats, numpy_resamples):
    a, b = scores(kind, n)
    test = BergKirkpatrickBootstrap(n_resamples=B, random_state=np.random.default_rng(1))
    t_total = median_time(lambda: test.test(None, a, b, metric="mean"), repeats)
    cells = prepare_paired(None, a, b, "mean")
    items = prepare_paired(None, a, b, "mean", compress=False)
    # the item path is O(B N): above 10^4 items it is timed on 500 resamples and scaled
    b_items = B if n <= 10_000 else 500
    item_test = BergKirkpatrickBootstrap(n_resamples=b_items,
                                         random_state=np.random.default_rng(2))
    t_items = median_time(lambda: item_test.test_paired(items), 1) * B / b_items
    rng = np.random.default_rng(0)
    numpy_bootstrap(a, b, 2, rng)  # warm-up
    t0 = time.perf_counter()
    ref = numpy_bootstrap(a, b, numpy_resamples, rng)
    t_numpy = (time.perf_counter() - t0) * B / numpy_resamples
    res = test.test(None, a, b, metric="mean")
    sd = float(np.std(res.null_distribution))
    return (kind, n, cells.stats_a.shape[0], t_total, t_items, t_numpy, numpy_resamples,
            sd, float(np.std(ref)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="time fewer NumPy resamples")
    args = parser.parse_args(argv)
    import numba

    print(f"numba threads: {numba.get_num_threads()}, CPUs: {os.cpu_count()}")
    rows = []
    for kind, n in CASES:
        few = (100 if n <= 10_000 else 4) if args.quick else (1000 if n <= 10_000 else 20)
        rows.append(bench(kind, n, args.repeats, few))
        print(f"  {kind} N = {n:,}: done", flush=True)
    print(f"\nBK bootstrap of metric='mean', y_true=None, B = {B:,} (medians of "
          f"{args.repeats})")
    print(f"{'kind':>6} {'N':>10} {'rows':>9} {'sigtest':>9} {'items':>9} {'/sigtest':>8} "
          f"{'NumPy':>9} {'/sigtest':>8}  sd sigtest / NumPy")
    for kind, n, n_rows, total, t_items, t_numpy, few, sd, sd_ref in rows:
        scaled = "" if few == B else f" (x{B // few})"
        print(f"{kind:>6} {n:>10,} {n_rows:>9,} {fmt_t(total):>9} {fmt_t(t_items):>9} "
              f"{t_items / total:>7.1f}x {fmt_t(t_numpy):>9} {t_numpy / total:>7.0f}x  "
              f"{sd:.2e} / {sd_ref:.2e}{scaled}")
    print("(rows: cells resampled by sigtest; items: sigtest without cells; NumPy: the naive "
          "paired bootstrap, timed on few resamples and scaled where marked; the two sds "
          "estimate the same bootstrap spread)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
