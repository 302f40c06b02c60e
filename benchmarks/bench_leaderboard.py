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

* ``scale``: the table of the scale goals of the leaderboard work, each case
  in its own process (its peak RSS from ``resource.getrusage``): per-item 0/1
  scores of ``--scale-binary`` systems (1,000) x 10^4 items
  (``compare(None, scores, metrics="mean")`` + ``leaderboard()``; goals
  60 s, 4 GB; and a line: the peak RSS growth of ``compare`` over the RSS
  before the call, against the bound 3x the scores plus the result frame),
  10-class labels of ``--scale-labels`` systems (200) x 10^5
  items, accuracy + f1_macro (+ ``leaderboard()``; goal 60 s), and 50
  systems x 10^5 items, compare + ranks + ``report("markdown")`` (goal: at
  most twice compare alone). Smaller ``--scale-*`` sizes measure how the cost
  grows on a loaded machine; the table says which goals were met.

* ``maxt``: the max-T step of the scale case alone,
  ``sigtest._engine.maxt_pairs`` on every pair of ``--maxt-systems``
  (1,000: 499,500 pairs) on ``--maxt-resamples`` (9,999) shared draws
  (Gaussian, of the accuracies of binary systems over 10^4 items, as the
  multiplier draws): the pairs' standard deviations (``_std_pairs``, against
  ``numpy.std`` on blocks of the first 20,000 pairs) and the
  exceedance counts of the kernel (``_count_range``: in order only the
  pairs whose t a block's maxima can reach, the maxima of the others with
  bounds) against the kernels before, every pair in order on every block
  and one resample at a time over the pairs (copies below), in the same
  run, one thread; the counts must be identical.

Run ``python benchmarks/bench_leaderboard.py [--only ranks|leaderboard|scale|maxt]
[--ranks-samples N] [--systems K] [--samples N] [--scale-binary K]
[--scale-binary-items N] [--scale-labels K] [--scale-label-items N]
[--scale-report-items N] [--labels-per-pair] [--maxt-systems K] [--maxt-resamples B]``.
A size of 0 skips its case; ``--labels-per-pair`` first times the labels case
with the pairs of f1_macro one by one (the path before their bulk path), for a
before/after in one run.
"""

import argparse
import multiprocessing
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_compare import _cpu_seconds, make_data  # noqa: E402

import sigtest  # noqa: E402
from sigtest._engine.maxt_pairs import _count_pairs  # noqa: E402


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
                      for m, v in res._data.kept_scores.items()))
    _, w_rk, c_rk = _timed("ranks() (first call)", res.ranks)
    _timed("ranks() (second call: kept)", res.ranks)
    # the report reads the score intervals of the kept draws (scores(intervals="shared"),
    # then kept) and the ranks
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


# ------------------------------------------------------------------ scale
def _binary_case(k, n):
    rng = np.random.default_rng(0)
    scores = {f"sys{j:04d}": (rng.random(n) < p).astype(np.float64)
              for j, p in enumerate(np.linspace(0.5, 0.8, k))}
    before = _current_rss_gb()  # the input built, before the call
    cpu0, wall0 = time.process_time(), time.perf_counter()
    res = sigtest.compare(None, scores, metrics="mean", random_state=0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    res.leaderboard()
    out = {"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0}
    out["memory"] = {"before": before, "growth": peak - before,
                     "input": sum(v.nbytes for v in scores.values()) / 2**30,
                     "frame": res.to_frame().memory_usage(deep=True).sum() / 2**30}
    return out


def _current_rss_gb():
    """This process's resident set now (Linux ``/proc/self/statm``), in GiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30


def _memory_line(k, n, memory):
    """The peak RSS growth of the binary case's ``compare`` against 3x the input plus the frame."""
    bound = 3 * memory["input"] + memory["frame"]
    return (f"{k:,} systems x {n:,} items, compare alone: peak RSS {memory['growth']:.3f} GB "
            f"above the {memory['before']:.3f} GB before the call; bound 3 x input + frame = "
            f"3 x {memory['input']:.3f} + {memory['frame']:.3f} = {bound:.3f} GB: "
            f"{'met' if memory['growth'] <= bound else 'not met'}")


def _labels_case(k, n):
    y, preds = make_data(k, n, n_classes=10)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    res = sigtest.compare(y, preds, metrics=("accuracy", "f1_macro"), random_state=0)
    res.leaderboard()
    return {"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0}


def _labels_per_pair_case(k, n):
    """:func:`_labels_case` with the pairs of f1_macro one by one (the path before their
    bulk path, ``sigtest/_workflows/compare/bulk_statistics.py``)."""
    from sigtest._workflows.compare import bulk

    bulk.statistics_metric = lambda metric, kwargs: False
    return _labels_case(k, n)


def _report_case(k, n):
    y, preds = make_data(k, n)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    res = sigtest.compare(y, preds, random_state=0)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    res.ranks()
    res.report("markdown")
    return {"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0,
            "compare_cpu": cpu1 - cpu0, "compare_wall": wall1 - wall0}


_CASES = {"binary": _binary_case, "labels": _labels_case, "labels_per_pair": _labels_per_pair_case,
          "report": _report_case}


def _child(case, k, n, queue):
    import warnings

    warnings.simplefilter("ignore")  # small-sample notes of the small sizes: not timed output
    rng = np.random.default_rng(1)  # numba's cache loaded before the clock starts
    sigtest.compare(None, {"a": rng.random(60) < .5, "b": rng.random(60) < .6},
                    metrics="mean", random_state=0)
    out = _CASES[case](k, n)
    out["rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    queue.put(out)


def _run_child(case, k, n):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    load = os.getloadavg()
    proc = ctx.Process(target=_child, args=(case, k, n, queue))
    proc.start()
    out = queue.get()
    proc.join()
    out["load"] = load[0]
    return out


def bench_scale(args):
    print(f"\n## scale: each case in its own process ({os.cpu_count()} cores, defaults, "
          f"random_state=0)")
    rows = []
    kb, nb = args.scale_binary, args.scale_binary_items
    if kb:  # 0: skipped
        out = _run_child("binary", kb, nb)
        rows.append((f"{kb:,} systems x {nb:,} items, 0/1 scores, mean + leaderboard()",
                     "<= 60 s, <= 4 GB", out,
                     out["wall"] <= 60 and out["rss_gb"] <= 4 and (kb, nb) == (1000, 10_000)))
    kl, nl = args.scale_labels, args.scale_label_items
    if kl and args.labels_per_pair:  # before f1_macro's bulk path, in the same run
        out = _run_child("labels_per_pair", kl, nl)
        rows.append((f"{kl:,} systems x {nl:,} items, 10 classes, accuracy + f1_macro "
                     "(f1_macro pairs one by one)", "<= 60 s", out, False))
    if kl:
        out = _run_child("labels", kl, nl)
        rows.append((f"{kl:,} systems x {nl:,} items, 10 classes, accuracy + f1_macro",
                     "<= 60 s", out, out["wall"] <= 60 and (kl, nl) == (200, 100_000)))
    nr = args.scale_report_items
    if nr:
        out = _run_child("report", 50, nr)
        ratio = out["wall"] / out["compare_wall"]
        rows.append((f"50 systems x {nr:,} items, compare + ranks + report", "<= 2x compare",
                     out, ratio <= 2 and nr == 100_000))
    print("| case | goal | wall s | CPU s | peak RSS GB | load | met |")
    print("|---|---|---|---|---|---|---|")
    for label, goal, out, met in rows:
        extra = ("" if "compare_wall" not in out else
                 f" ({out['wall'] / out['compare_wall']:.2f}x wall, "
                 f"{out['cpu'] / out['compare_cpu']:.2f}x CPU of compare)")
        print(f"| {label} | {goal} | {out['wall']:.1f}{extra} | {out['cpu']:.1f} | "
              f"{out['rss_gb']:.2f} | {out['load']:.2f} | {'yes' if met else 'no'} |")
    print("(met: the goal holds at the goal's size; a smaller size is never counted as met)")
    if kb:
        print(_memory_line(kb, nb, rows[0][2]["memory"]))


def _count_per_resample(TB, I, J, centre, scale, t_sorted, sign, two_sided, count_sd,
                        count_m, overall, chunk):  # pragma: no cover - numba
    # the kernel before the blocks of resamples: for each resample (a row of
    # TB = T.T), the pairs from the last to the first with the running maximum
    # from the end, in chunks of pairs
    n = I.shape[0]
    overall[:] = -np.inf
    hi = n
    while hi > 0:
        lo = max(0, hi - chunk)
        for b in range(TB.shape[0]):
            row = TB[b]
            tail = overall[b]
            for p in range(hi - 1, lo - 1, -1):
                z = sign * ((row[J[p]] - row[I[p]]) - centre[p]) / scale[p]
                if two_sided:
                    z = abs(z)
                if z >= t_sorted[p]:
                    count_m[p] += 1
                if z > tail:
                    tail = z
                if tail >= t_sorted[p]:
                    count_sd[p] += 1
            overall[b] = tail
        hi = lo


def _count_every_pair(T, I, J, centre, scale, t_sorted, sign, two_sided, start, stop,
                     count_sd, count_m, overall, block):  # pragma: no cover - numba
    # the block kernel before the bounds: every pair in order on every block
    rows = np.empty((T.shape[0], block))
    spare = np.empty(block)
    overall[:] = -np.inf
    for lo in range(start, stop, block):
        w = min(stop, lo + block) - lo
        for s in range(T.shape[0]):
            rows[s, :w] = T[s, lo:lo + w]
        _count_pairs(rows, w, I, J, centre, scale, t_sorted, sign, two_sided, 0, I.shape[0],
                     overall[lo - start:lo - start + w], spare, count_sd, count_m)


def bench_maxt(k, B):
    """Time the max-T kernels on all pairs of ``k`` systems and ``B`` draws (one thread)."""
    from numba import njit

    from sigtest._engine import maxt_pairs
    from sigtest._engine.maxt import studentized_order

    rng = np.random.default_rng(0)
    acc = (rng.random((10_000, k)) < np.linspace(0.5, 0.8, k)).mean(axis=0)
    T = acc[:, None] + np.sqrt(acc * (1 - acc) / 10_000)[:, None] * rng.normal(size=(k, B))
    I, J = np.triu_indices(k, 1)
    delta = acc[J] - acc[I]
    print(f"\n## maxt: {I.size:,} pairs of {k:,} systems x {B:,} draws, one thread")
    maxt_pairs._std_pairs(T[:3], I[:2], J[:2])  # compile outside the timings
    se, _, std_cpu = _timed("_std_pairs (standard deviations)",
                            lambda: maxt_pairs._std_pairs(T, I, J))
    few = min(I.size, 20_000)
    blocks, _, numpy_cpu = _timed(f"numpy.std on blocks, first {few:,} pairs",
                                  lambda: maxt_pairs._std_pairs_numpy(T, I[:few], J[:few]))
    print(f"standard deviations identical to numpy.std: {np.array_equal(se[:few], blocks)}; "
          f"{1e9 * std_cpu / (I.size * B):.2f} ns per (pair, resample), numpy.std "
          f"{1e9 * numpy_cpu / (few * B):.2f}")
    t, _, order = studentized_order(delta, se, np.arange(I.size), "two-sided")
    args = [np.ascontiguousarray(a[order]) for a in (I, J, delta, se)] + [t[order], 1.0, True]
    old = njit(nogil=True)(_count_per_resample)

    def run(kernel, data, *extra):
        # extra: (start, stop) before the counts, then the block (and the
        # pairs' groups) after them
        before = extra[:2] if len(extra) > 2 else ()
        counts = (np.zeros(I.size, np.int64), np.zeros(I.size, np.int64), np.empty(B))
        kernel(data, *args, *before, *counts, *extra[len(before):])
        return counts

    small = [a[:2] if isinstance(a, np.ndarray) else a for a in args]
    old(np.ascontiguousarray(T[:, :3].T), *small, np.zeros(2, np.int64),
        np.zeros(2, np.int64), np.empty(3), 16384)  # compile outside the timings
    groups = maxt_pairs._groups(T, *args[:4])
    run(maxt_pairs._count_range, np.ascontiguousarray(T[:, :3]), 0, 3, 4, groups)  # compile outside the timings
    new, _, new_cpu = _timed(f"_count_range ({maxt_pairs._COUNT_BLOCK} resamples a block)",
                          lambda: run(maxt_pairs._count_range, T, 0, B,
                                      maxt_pairs._COUNT_BLOCK, groups))
    every = njit(nogil=True)(_count_every_pair)
    run(every, np.ascontiguousarray(T[:, :3]), 0, 3, 4)  # compile outside the timings
    blocks, _, blocks_cpu = _timed("every pair on every block (before)",
                                   lambda: run(every, T, 0, B, maxt_pairs._COUNT_BLOCK))
    before, _, old_cpu = _timed("per-resample kernel (before)",
                                lambda: run(old, np.ascontiguousarray(T.T), 16384))
    same = all(np.array_equal(a, b) for a, b in zip(new, before))
    same &= all(np.array_equal(a, b) for a, b in zip(new, blocks))
    print(f"counts identical: {same}; CPU ratio before / after: {blocks_cpu / new_cpu:.1f}x "
          f"(every pair on blocks), {old_cpu / new_cpu:.1f}x (per resample); "
          f"{1e9 * new_cpu / (I.size * B):.2f} ns per (pair, resample) after, "
          f"{1e9 * blocks_cpu / (I.size * B):.2f} and {1e9 * old_cpu / (I.size * B):.2f} before")
    if not same:
        raise SystemExit("the bounded kernel's counts differ from the kernels before")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["ranks", "leaderboard", "scale", "maxt"],
                        default=None)
    parser.add_argument("--ranks-samples", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--scale-binary", type=int, default=1000)
    parser.add_argument("--scale-binary-items", type=int, default=10_000)
    parser.add_argument("--scale-labels", type=int, default=200)
    parser.add_argument("--scale-label-items", type=int, default=100_000)
    parser.add_argument("--scale-report-items", type=int, default=100_000)
    parser.add_argument("--maxt-systems", type=int, default=1000)
    parser.add_argument("--maxt-resamples", type=int, default=9999)
    parser.add_argument("--labels-per-pair", action="store_true",
                        help="also time the labels case with f1_macro's pairs one by one")
    args = parser.parse_args(argv)
    if args.only in (None, "ranks"):
        bench_ranks(args.ranks_samples)
    if args.only in (None, "leaderboard"):
        bench_board(args.systems, args.samples)
    if args.only in (None, "scale"):
        bench_scale(args)
    if args.only in (None, "maxt"):
        bench_maxt(args.maxt_systems, args.maxt_resamples)


if __name__ == "__main__":
    main()
