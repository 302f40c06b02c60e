"""Benchmark of the ranked view: ranks() against compare(), and leaderboard() at 200 systems.

Two cases, each timed in CPU seconds (this process and its worker
processes, with ``psutil``) beside the wall time and the load average, since
the machine is shared:

* ``ranks``: 50 systems x 10^5 items (5 classes, accuracies .6-.9, the data
  of ``benchmarks/bench_compare.py``), accuracy + f1_macro,
  ``compare(y, preds, random_state=0)`` with every default, then
  ``r.ranks()`` (goal: at most half of ``compare``), a second ``r.ranks()``
  (kept: free), ``r.report("markdown")`` and ``r.leaderboard()``, and the
  ratio ``(compare + ranks + report) / compare`` (goal <= 2). Also times
  ``r.ranks(random_state=1)``, which cannot read the comparison's draws
  and resamples on its own (the cost before the draws were kept).
* ``leaderboard``: ``--systems`` (200) systems x ``--samples`` (10^4) items,
  accuracy, defaults; ``compare`` then ``leaderboard()`` (ranks, score
  intervals, letters or tiers) and ``print(result)``.

Run ``python benchmarks/bench_leaderboard.py [--only ranks|leaderboard]
[--ranks-samples N] [--systems K] [--samples N]``.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from bench_compare import _cpu_seconds, make_data  # noqa: E402

import sigtest  # noqa: E402


def _timed(label, call):
    """Run ``call()``; print and return its wall and CPU seconds (parent + workers)."""
    load = os.getloadavg()
    cpu0 = _cpu_seconds()
    start = time.perf_counter()
    out = call()
    wall = time.perf_counter() - start
    cpu1 = _cpu_seconds()
    parent = cpu1[0] - cpu0[0]
    workers = None if cpu1[1] is None else cpu1[1] - cpu0[1]
    cpu = parent + (workers or 0.0)
    print(f"{label:<34} wall {wall:7.2f} s   CPU {cpu:7.2f} s (parent {parent:.2f}"
          + ("" if workers is None else f", workers {workers:.2f}")
          + f")   load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    return out, wall, cpu


def bench_ranks(n_samples):
    print(f"## ranks() vs compare(): 50 systems x {n_samples:,} items, accuracy + f1_macro, "
          f"defaults ({os.cpu_count()} cores)")
    y, preds = make_data(50, n_samples)
    sigtest.compare(y, dict(list(preds.items())[:6]), random_state=0).ranks()  # warm-up
    res, w_cmp, c_cmp = _timed("compare", lambda: sigtest.compare(y, preds, random_state=0))
    print(f"   correction {res.correction}, draws {res.bootstrap}, kept draws "
          + ", ".join(f"{m}: {v.n_resamples} ({v.source})"
                      for m, v in res._inputs["kept_scores"].items()))
    _, w_rk, c_rk = _timed("ranks() (first call)", res.ranks)
    _timed("ranks() (second call: kept)", res.ranks)
    # the report computes the score intervals (scores(), then kept) and the ranks
    _, w_rep, c_rep = _timed('report("markdown")', lambda: res.report("markdown"))
    _timed("leaderboard() (after the report)", res.leaderboard)
    _timed("ranks(random_state=1) (own draws)", lambda: res.ranks(random_state=1))
    print(f"ranks / compare: wall {w_rk / w_cmp:.2f}, CPU {c_rk / c_cmp:.2f} (goal <= 0.5)")
    print(f"(compare + ranks + report) / compare: wall {(w_cmp + w_rk + w_rep) / w_cmp:.2f}, "
          f"CPU {(c_cmp + c_rk + c_rep) / c_cmp:.2f} (goal <= 2)")


def bench_board(k, n_samples):
    print(f"\n## leaderboard(): {k} systems x {n_samples:,} items, accuracy, defaults")
    y, preds = make_data(k, n_samples)
    res, _, _ = _timed("compare", lambda: sigtest.compare(y, preds, metrics="accuracy",
                                                          random_state=0))
    table, _, _ = _timed("leaderboard() (ranks, scores, tiers)", res.leaderboard)
    text, _, _ = _timed("str(result)", lambda: str(res))
    print(f"   {len(table)} rows, tier kind {table.attrs['tier_kind']} "
          f"({table.attrs['n_letters']} letters), {table.attrs['n_significant_pairs']:,} "
          f"significant pairs; print(result): {len(text.splitlines())} lines")
    print(table.head(8).to_string())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["ranks", "leaderboard"], default=None)
    parser.add_argument("--ranks-samples", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--samples", type=int, default=10_000)
    args = parser.parse_args(argv)
    if args.only in (None, "ranks"):
        bench_ranks(args.ranks_samples)
    if args.only in (None, "leaderboard"):
        bench_board(args.systems, args.samples)


if __name__ == "__main__":
    main()
