"""Benchmark of the order statistics the bulk BCa path reads: buckets against windows.

The pairs' bootstrap differences ``T[j] - T[i]`` (``B`` = 9,999 shared
draws) are read by :class:`sigtest._engine.bulk_select.PairOrder` for the
interval's four ends and the two neighbours of zero. Two paths on the same
``T``, pairs and levels, one thread, in the same run:

* ``buckets`` (before): :func:`~sigtest._engine.bulk_select.pair_summaries`
  (extremes and counts) then :func:`~sigtest._engine.bulk_select.selected_rows`
  (a 1,024-bucket histogram per pair, the wanted buckets sorted);
* ``windows`` (after): :func:`~sigtest._engine.bulk_select.window_bounds`
  (normal estimates from the rows' means and Gram matrix),
  :func:`~sigtest._engine.bulk_select.scan_windows` (one read of each pair:
  counts, extremes, zero's neighbours, the differences of two narrow
  windows) and :func:`~sigtest._engine.bulk_select.windowed_rows` (a
  quickselect in the windows; the buckets for the pairs a window missed).

``T``: ``--systems`` (1,000) rows of binomial accuracies over 10^4 items
(accuracies .5-.8, as the 1,000-system case of ``bench_leaderboard.py``),
the first ``--pairs`` (50,000) pairs ``i < j`` in the compare's order,
observed differences near the bootstrap means (``z0`` of a few hundredths),
accelerations of a few thousandths. Prints CPU seconds (this process), wall,
load, the ratio, the share of pairs that fell back to the buckets and the
window sizes; the known values of both paths must be identical.

Run ``python benchmarks/bench_select.py [--systems K] [--pairs M] [--resamples B]``.
"""

import argparse
import os
import time

import numpy as np

from sigtest._engine.bulk_bca import interval_levels, quantile_positions, z0_from_counts
from sigtest._engine.bulk_select import (WINDOWED_BLOCK, pair_summaries, scan_windows,
                                         selected_rows, window_bounds, windowed_rows)


def make_pairs(systems, pairs, resamples, seed=0):
    """``T``, ``I``, ``J``, observed differences and accelerations of the benchmark."""
    rng = np.random.default_rng(seed)
    p = np.linspace(0.5, 0.8, systems)
    T = rng.binomial(10_000, p[:, None], size=(systems, resamples)) / 10_000
    I, J = np.triu_indices(systems, 1)
    I, J = I[:pairs], J[:pairs]
    d = T[J[:, None], np.arange(64)] - T[I[:, None], np.arange(64)]
    delta = (T[J].mean(axis=1) - T[I].mean(axis=1) if pairs <= 20_000 else
             np.asarray(p[J] - p[I])) + rng.normal(0, 0.03, pairs) * d.std(axis=1)
    return T, I, J, delta, rng.normal(0, 0.003, pairs)


def _positions(s, n, level, a):
    z0 = z0_from_counts(s.below_delta, s.delta_or_below, n)
    with np.errstate(invalid="ignore"):
        q_low, q_high, _ = interval_levels(level, "bca", z0, a, len(a))
    (il, jl, _), (ih, jh, _) = (quantile_positions(q, n) for q in (q_low, q_high))
    return np.column_stack([il, jl, ih, jh])


def buckets(T, I, J, delta, a, level):
    """The path before: summaries, then the bucket selection."""
    s = pair_summaries(T, I, J, delta)
    return selected_rows(T, I, J, s, _positions(s, T.shape[1], level, a)), 0, None


def windows(T, I, J, delta, a, level):
    """The windowed path, by blocks of ``WINDOWED_BLOCK`` pairs."""
    rows, missed, sizes = [], 0, []
    for start in range(0, len(I), WINDOWED_BLOCK):
        sl = slice(start, start + WINDOWED_BLOCK)
        bounds = window_bounds(T, I[sl], J[sl], delta[sl], level, "bca", a[sl])
        w = scan_windows(T, I[sl], J[sl], delta[sl], bounds)
        got, miss = windowed_rows(T, I[sl], J[sl], w,
                                  _positions(w.summaries, T.shape[1], level, a[sl]))
        rows.append(got)
        missed += miss.size
        sizes.append(w.counts[:, [5, 7]])
    return rows, missed, np.concatenate(sizes)


def _timed(label, call):
    load = os.getloadavg()
    cpu, wall = time.process_time(), time.perf_counter()
    out = call()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{label:<10} CPU {cpu:7.2f} s   wall {wall:7.2f} s   load {load[0]:.2f} {load[1]:.2f}",
          flush=True)
    return out, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=50_000)
    parser.add_argument("--resamples", type=int, default=9999)
    args = parser.parse_args(argv)
    T, I, J, delta, a = make_pairs(args.systems, args.pairs, args.resamples)
    level = 0.95
    small = slice(0, 64)  # compile (or load) every kernel first
    buckets(T, I[small], J[small], delta[small], a[small], level)
    windows(T, I[small], J[small], delta[small], a[small], level)
    (before, _, _), cpu_before = _timed("buckets", lambda: buckets(T, I, J, delta, a, level))
    (after, missed, sizes), cpu_after = _timed("windows", lambda: windows(T, I, J, delta, a, level))
    print(f"ratio {cpu_before / cpu_after:.2f}x   per pair {cpu_before / len(I) * 1e6:.1f} -> "
          f"{cpu_after / len(I) * 1e6:.1f} us   fallback {missed} of {len(I)} pairs "
          f"({missed / len(I):.2%})   window sizes (median, max) {np.median(sizes):.0f} "
          f"{sizes.max()}")
    known = np.concatenate([r._value for r in after])
    assert np.array_equal(known, before._value), "the windows' values differ from the buckets'"
    assert np.array_equal(np.concatenate([r._known for r in after]), before._known)
    print("identical values at every known position")


if __name__ == "__main__":
    main()
