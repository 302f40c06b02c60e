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

``--leaderboard [K]`` (issue 23) times ``compare``'s defaults on K = 100
systems (4,950 pairs) x accuracy + f1_macro at N = 10^4 (the max-T default,
``docs/leaderboards.md``), then the old rule (``correction="holm"``,
permutation ``B`` growing with ``m``) and the new default on
``--old-systems`` (20) systems, with the ratio and the pairs one flags and
the other not. ``--large`` runs 50 systems x N = 10^6 with the defaults in a
subprocess (wall time, peak RSS from ``VmHWM``, and whether every pair whose
true accuracies are 2 points or more apart is flagged), then the old rule
and the new default at ``--old-samples`` (10^5).

``--draws [N]`` compares the two sources of the shared bootstrap draws of the
max-T default on 50 systems x accuracy + f1_macro at N = 10^5 (each in its
own process): ``bootstrap="resample"`` (B passes over the items) against
``bootstrap="multiplier"`` (Gaussian multiplier draws from the jackknife
covariance, one pass), with the time ratio and the decisions of each.
``--default-test`` (issue 23) times ``compare``'s defaults on the same 30
systems x 4 metrics, ``compare(y, preds, metrics=METRICS, random_state=0)``:
``test=None``, so ``correction="auto"`` picks the max-T correction with the
BCa interval alone on 10,000 shared resamples (goal <= 3 s at ``n_jobs=2``,
and at ``n_jobs=1`` too), with the ratio of the ``n_jobs``.

Every case also prints the CPU seconds of the parent process and of its
worker processes during the timed call (with ``psutil``, when installed):
on a loaded machine the wall times and their ratio are unreliable, while the
CPU seconds show the work and how much of it stays in the parent
(``parent + workers / 2`` is the wall time two idle cores would take).

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
import sys
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
    parser.add_argument("--default-test", action="store_true",
                        help="time compare's defaults (test=None: max-T with BCa) on the "
                             "30 systems x 4 metrics")
    parser.add_argument("--defaults", action="store_true",
                        help="time compare's defaults (test=None) on 50 systems, accuracy")
    parser.add_argument("--leaderboard", type=int, nargs="?", const=100, default=None,
                        metavar="K", help="issue 23: K systems (default 100) x accuracy + "
                        "f1_macro, N=10^4, defaults (max-T), against the old rule")
    parser.add_argument("--large", action="store_true",
                        help="issue 23: 50 systems, N=10^6, accuracy + f1_macro, defaults; "
                        "time and peak RSS in a subprocess, against the old rule at --old-samples")
    parser.add_argument("--draws", type=int, nargs="?", const=100_000, default=None,
                        metavar="N", help="50 systems x N items (default 10^5), max-T: "
                        "resampled against Gaussian multiplier shared draws")
    parser.add_argument("--large-samples", type=int, default=1_000_000,
                        help="N of the new default's run in --large")
    parser.add_argument("--old-samples", type=int, default=100_000,
                        help="N of the old rule's run in --large (it takes minutes at 10^6; "
                        "0: skip it)")
    parser.add_argument("--old-systems", type=int, default=20,
                        help="systems of the old rule's run in --leaderboard")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--metric", default="accuracy",
                        help="metric of --defaults (accuracy: exact permutation test; "
                             "f1_macro: Monte Carlo with the B of the rule)")
    # run_all.py passes the same arguments to every bench script: ignore others'
    args, ignored = parser.parse_known_args(argv)
    if ignored:
        print(f"(ignoring arguments meant for other benchmarks: {ignored})")
    if args.quick:
        args.systems, args.resamples = 10, 2000
    if args.child:
        return _child(args.child)
    if args.leaderboard or args.large or args.draws:
        sys.stdout.reconfigure(line_buffering=True)  # each case as it ends (long runs)
    if args.draws:
        return bench_draws(args)
    if args.leaderboard:
        return bench_leaderboard(args)
    if args.large:
        return bench_large(args)
    if args.defaults:
        return bench_defaults(args)
    if args.bk:
        return bench_bk(args)
    if args.default_test:
        return bench_default_test(args)

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
        cpu = _cpu_seconds()
        start = time.perf_counter()
        res = run_one(preds, n_jobs)
        times[n_jobs] = time.perf_counter() - start
        cpu = [after - before for after, before in zip(_cpu_seconds(), cpu)]
        frames[n_jobs] = res.to_frame()
        first = n_jobs_list[0]
        print(f"n_jobs={n_jobs}: {times[n_jobs]:6.2f} s  (x{times[first] / times[n_jobs]:.2f} "
              f"vs n_jobs={first}; load average {load:.1f} on {_cores()} cores)"
              + ("" if cpu[1] is None else
                 f"; CPU s: parent {cpu[0]:.2f}, workers {cpu[1]:.2f}"))
    first = next(iter(frames.values()))
    for frame in frames.values():
        pd.testing.assert_frame_equal(first, frame, check_exact=True)
    print("frames identical across n_jobs:", list(frames))
    return first


def _cores():
    return os.cpu_count()


def _cpu_seconds():
    """CPU seconds of this process and of its worker processes so far (workers: None
    without psutil)."""
    parent = time.process_time()
    try:
        import psutil
    except ImportError:
        return parent, None
    workers = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # a worker that just ended
            continue
        workers += times.user + times.system
    return parent, workers


def bench_bk(args):
    """Time the two-sided bootstrap test alone on the 30-system case (issue 23)."""
    _bench_case(args, f"B={args.resamples}, test=BergKirkpatrickBootstrap two-sided",
                lambda: BergKirkpatrickBootstrap(n_resamples=args.resamples,
                                                 alternative="two-sided"))


def bench_default_test(args):
    """Time ``compare``'s defaults (max-T, BCa alone) on the 30-system case (issue 23)."""
    _bench_case(args, "defaults (test=None: correction='auto')", None)


def _bench_case(args, label, make_test):
    """Time ``compare`` on the 30-system case with ``make_test()`` (None: the defaults)."""
    y, preds = make_data(args.systems, args.samples)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(f"{args.systems} systems ({n_pairs} pairs) x {len(METRICS)} metrics, "
          f"N={args.samples}, {label}")

    def run_one(systems, n_jobs):
        test = {} if make_test is None else {"test": make_test()}
        return compare(y, systems, metrics=METRICS, n_jobs=n_jobs, random_state=0, **test)

    frame = time_n_jobs(y, preds, args.n_jobs, run_one)
    print(f"tests {sorted(set(frame.test))}, B={sorted(set(frame.n_resamples))[:3]}; "
          f"significant pairs per metric: {frame.groupby('metric').significant.sum().to_dict()}")


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


# ------------------------------------------------- issue 23: many-system default
LEADER_METRICS = ["accuracy", "f1_macro"]


def _true_accuracy(n_systems, n_classes=5):
    """Population accuracy of ``make_data``'s systems: right w.p. acc, else a uniform guess."""
    acc = np.linspace(0.6, 0.9, n_systems)
    return acc + (1 - acc) / n_classes


def _timed_compare(y, preds, **kwargs):
    small = dict(list(preds.items())[:3])
    compare(y, small, metrics=LEADER_METRICS, random_state=0, **kwargs)  # warm-up
    start = time.perf_counter()
    res = compare(y, preds, metrics=LEADER_METRICS, random_state=0, **kwargs)
    return res, time.perf_counter() - start


def _summary(res, elapsed, label):
    frame = res.to_frame()
    sig = frame.groupby("metric").significant.sum().to_dict()
    print(f"  {label}: {elapsed:7.1f} s; correction={res.correction}, tests={res.tests}, "
          f"B={sorted(set(frame.n_resamples))[:3]}; significant pairs per metric: {sig}")
    return frame


def _old_rule(**kwargs):
    """Today's rule before issue 23: Holm, permutation p-value with B growing with m."""
    return dict(correction="holm", test=None, **kwargs)


def bench_leaderboard(args):
    """K systems (all pairs) x accuracy + f1_macro, N = 10^4, defaults, against the old rule."""
    k = args.leaderboard
    y, preds = make_data(k, args.samples)
    m = k * (k - 1) // 2
    print(f"leaderboard: {k} systems ({m} pairs) x {LEADER_METRICS}, N={args.samples}, "
          f"defaults (goal <= 20 s on 2 cores for 100 systems)")
    res, new = _timed_compare(y, preds)
    _summary(res, new, f"new default, {k} systems")
    # the old rule on fewer systems (it takes minutes at 100), and the new on the same
    ko = min(args.old_systems, k)
    sub = dict(list(preds.items())[:ko])
    mo = ko * (ko - 1) // 2
    res_old, old = _timed_compare(y, sub, **_old_rule())
    f_old = _summary(res_old, old, f"old rule (Holm, permutation B for m={mo}), {ko} systems")
    res_sub, new_sub = _timed_compare(y, sub)
    f_new = _summary(res_sub, new_sub, f"new default, {ko} systems")
    if res_sub.correction == "holm":
        print(f"  ({ko} systems: the default is still Holm, m={mo} <= 50)")
    print(f"  old / new on {ko} systems: {old / new_sub:.1f}x; old rule per pair "
          f"{old / mo * 1000:.0f} ms -> {m} pairs ~{old / mo * m:.0f} s (extrapolated) vs "
          f"{new:.1f} s measured")
    lost = (f_old.significant & ~f_new.significant).sum()
    print(f"  pairs significant under the old rule but not the new ({ko} systems): {lost}; "
          f"new but not old: {(f_new.significant & ~f_old.significant).sum()}")


def _peak_rss_mb():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child(spec):
    """One case of --large in a fresh process: print a JSON line (time, peak RSS, checks)."""
    import json

    cfg = json.loads(spec)
    y, preds = make_data(cfg["systems"], cfg["samples"])
    small = {k: v[:10_000] for k, v in list(preds.items())[:3]}
    compare(y[:10_000], small, metrics=LEADER_METRICS, random_state=0,
            **cfg["kwargs"])  # warm-up: numba compile or cache load
    base = _peak_rss_mb()
    start = time.perf_counter()
    res = compare(y, preds, metrics=LEADER_METRICS, random_state=0, **cfg["kwargs"])
    elapsed = time.perf_counter() - start
    frame = res.to_frame()
    names = list(preds)
    true = dict(zip(names, _true_accuracy(len(names))))
    gap = (frame.system_b.map(true) - frame.system_a.map(true)).abs()
    far = frame[gap >= 0.02]
    print(json.dumps({
        "seconds": elapsed, "peak_mb": _peak_rss_mb(), "base_mb": base,
        "input_mb": (sum(p.nbytes for p in preds.values()) + y.nbytes) / 2**20,
        "correction": res.correction, "tests": res.tests, "draws": res.bootstrap,
        "significant": {k: int(v) for k, v in frame.groupby("metric").significant.sum().items()},
        "far_pairs": int(len(far)), "far_missed": int((~far.significant).sum()),
    }))


def _run_child(systems, samples, kwargs):
    import json
    import subprocess
    import sys

    spec = json.dumps({"systems": systems, "samples": samples, "kwargs": kwargs})
    out = subprocess.run([sys.executable, __file__, "--child", spec], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _print_child(label, r):
    print(f"  {label}: {r['seconds']:7.1f} s, peak RSS {r['peak_mb'] / 1024:.2f} GB (after "
          f"data {r['base_mb'] / 1024:.2f} GB; input {r['input_mb'] / 1024:.2f} GB); "
          f"correction={r['correction']}, tests={r['tests']}, draws={r['draws']}; "
          f"significant {r['significant']}; "
          f"pairs >= 2 points apart: {r['far_pairs']}, of them not flagged: {r['far_missed']}")


def bench_large(args):
    """50 systems x N = 10^6, accuracy + f1_macro, defaults; old rule at a reduced N."""
    k = 50 if args.systems == 30 else args.systems
    print(f"large: {k} systems ({k * (k - 1) // 2} pairs) x {LEADER_METRICS}, defaults, each "
          "case in its own process (goal <= 20 s and <= 1.2 GB peak at N=10^6)")
    n_new = args.large_samples
    new = _run_child(k, n_new, {})
    _print_child(f"new default, N={n_new}", new)
    n_old = args.old_samples
    if not n_old:  # --old-samples 0: the new default only
        return
    old = _run_child(k, n_old, {"correction": "holm", "test": None})
    _print_child(f"old rule (Holm, B for m), N={n_old}", old)
    new_small = new if n_old == n_new else _run_child(k, n_old, {})
    if n_old != n_new:
        _print_child(f"new default, N={n_old}", new_small)
    print(f"  old / new at N={n_old}: {old['seconds'] / new_small['seconds']:.1f}x time, "
          f"{old['peak_mb'] / new_small['peak_mb']:.2f}x peak RSS")


def bench_draws(args):
    """Max-T on 50 systems x N: resampled shared draws against Gaussian multiplier draws."""
    k = 50 if args.systems == 30 else args.systems
    n = args.draws
    print(f"draws: {k} systems ({k * (k - 1) // 2} pairs) x {LEADER_METRICS}, N={n}, "
          f"correction='max-t', BCa, B=10^4; each in its own process; load average "
          f"{os.getloadavg()[0]:.1f} on {_cores()} cores")
    runs = {}
    for source in ("resample", "multiplier"):
        runs[source] = _run_child(k, n, {"correction": "max-t", "bootstrap": source})
        _print_child(f"bootstrap={source!r}", runs[source])
    print(f"  resample / multiplier: "
          f"{runs['resample']['seconds'] / runs['multiplier']['seconds']:.1f}x time, "
          f"{runs['resample']['peak_mb'] / runs['multiplier']['peak_mb']:.2f}x peak RSS")


if __name__ == "__main__":
    main()
