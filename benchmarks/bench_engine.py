"""End-to-end benchmarks of the sigtest significance engine (issue 3, section 4).

Every comparison runs on identical data in one process and prints the time
of sigtest, the time of the reference (scipy.stats or bare NumPy), their
ratio, the goal and PASS/MISS. numba kernels are warmed up (compiled or
loaded from the cache) before anything is timed; times are the best of a few
repeats measured with ``time.perf_counter`` (scipy's slow references run
once: their run-to-run noise is small next to the ratios).

Run ``python benchmarks/bench_engine.py`` (about 2 minutes on 2 cores, most
of it in scipy). ``--quick`` shrinks the scipy references further (it then
says so in the table). Every timed sigtest call draws a new seed, so no call
is served from sigtest's kernel memo (see :func:`fresh_seeds`).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
from scipy import stats
from sklearn.metrics import f1_score

import sigtest
from sigtest import BCaInterval, BergKirkpatrickBootstrap, PairedPermutation

ROWS = []  # (benchmark, sigtest time, reference, reference time, ratio text, goal, status)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def best_time(fn, repeats=3, warmup=True):
    """Best wall time of ``fn()`` over ``repeats`` runs (after one warm-up call)."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def fresh_seeds():
    """A ``random_state`` giving every ``test()`` call a new seed.

    sigtest memoises compressed-path kernel outputs keyed by (data, seed)
    (``compare`` reuses them across metrics with the same statistics); a
    benchmark repeating one call with a fixed seed would time the memo. A
    ``Generator`` as ``random_state`` is advanced by each call, so every timed
    call resamples for real.
    """
    return np.random.default_rng(12345)


def once(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def fmt_t(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def add_row(name, ours, reference, ref_time, ratio, goal, ok):
    ROWS.append((name, fmt_t(ours) if ours is not None else "-", reference,
                 fmt_t(ref_time) if ref_time is not None else "-", ratio, goal,
                 "PASS" if ok else "MISS"))
    print(f"  -> {name}: {ROWS[-1][1]} vs {ROWS[-1][3]} ({ratio}); goal {goal}: {ROWS[-1][6]}",
          flush=True)


def hard_data(n, k=5, seed=0):
    """Gold labels and two correlated systems (about 75 % and 78 % accurate)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.5, a, np.where(rng.random(n) < 0.78, y,
                                                   rng.integers(0, k, n)))
    return y, a, b


def soft_data(n, k=8, seed=0):
    """True distributions and two noisy soft predictions (rows sum to 1)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(k, 0.5), n)

    def predict(conc):
        g = rng.gamma(1.0 + conc * P)
        return g / g.sum(axis=1, keepdims=True)

    return P, predict(5.0), predict(8.0)


def macro_f1_batched(y, p, k):
    """Vectorised macro F1 along the last axis: one bincount of (row, y, p) cells.

    As fast a vectorised statistic as a careful scipy user would write (one
    pass over the resampled labels), so the comparison is fair to scipy.
    """
    shape = y.shape[:-1]
    rows = int(np.prod(shape)) if shape else 1
    code = (y.astype(np.int64) * k + p).reshape(rows, -1)
    code = code + (np.arange(rows, dtype=np.int64) * (k * k))[:, None]
    cm = np.bincount(code.ravel(), minlength=rows * k * k).reshape(rows, k, k)
    tp = np.einsum("rii->ri", cm)
    den = cm.sum(axis=2) + cm.sum(axis=1)
    f1 = np.where(den > 0, 2.0 * tp / np.maximum(den, 1), 0.0).mean(axis=-1)
    return f1.reshape(shape) if shape else float(f1[0])


def macro_f1_per_class(y, p, k):
    """Vectorised macro F1 as many users write it: a loop over the classes."""
    total = 0.0
    for c in range(k):
        yc, pc = y == c, p == c
        tp = np.sum(yc & pc, axis=-1)
        den = np.sum(yc, axis=-1) + np.sum(pc, axis=-1)
        total = total + np.where(den > 0, 2.0 * tp / np.maximum(den, 1), 0.0)
    return total / k


def scipy_paired_bootstrap(y, a, b, metric, n_resamples, k, method="percentile"):
    if metric == "f1_macro_loop":
        def statistic(y, a, b, axis=-1):
            return macro_f1_per_class(y, b, k) - macro_f1_per_class(y, a, k)
    elif metric == "accuracy":
        def statistic(y, a, b, axis=-1):
            return np.mean(b == y, axis=axis) - np.mean(a == y, axis=axis)
    else:
        def statistic(y, a, b, axis=-1):
            return macro_f1_batched(y, b, k) - macro_f1_batched(y, a, k)
    return stats.bootstrap((y, a, b), statistic, paired=True, vectorized=True,
                           n_resamples=n_resamples, batch=250, method=method,
                           rng=np.random.default_rng(0))


# --------------------------------------------------------------------------- #
# benchmarks
# --------------------------------------------------------------------------- #
def bench_bootstrap_vs_scipy(repeats, quick):
    print("\n[1] paired bootstrap, accuracy + macro-F1, N=10 000, B=10 000 vs "
          "scipy.stats.bootstrap(paired=True, vectorized=True, method='percentile')", flush=True)
    n, n_resamples, k = 10_000, 10_000, 5
    y, a, b = hard_data(n, k)
    b_ref = 1000 if quick else n_resamples
    ours = ref = 0.0
    for metric in ("accuracy", "f1_macro"):
        test = BergKirkpatrickBootstrap(n_resamples=n_resamples, random_state=fresh_seeds())
        t_ours = best_time(lambda: test.test(y, a, b, metric=metric), repeats)
        t_ref = once(lambda: scipy_paired_bootstrap(y, a, b, metric, b_ref, k))[0]
        t_ref *= n_resamples / b_ref
        print(f"  {metric}: sigtest {fmt_t(t_ours)}, scipy {fmt_t(t_ref)} "
              f"({t_ref / t_ours:,.0f}x)", flush=True)
        ours, ref = ours + t_ours, ref + t_ref
    t_loop = once(lambda: scipy_paired_bootstrap(y, a, b, "f1_macro_loop", 1000, k))[0]
    print(f"  (info) scipy with a per-class-loop macro-F1 statistic instead of the one-bincount "
          f"one: {fmt_t(t_loop * n_resamples / 1000)} (B=1000 x10); the table uses the "
          "faster bincount statistic", flush=True)
    note = "" if b_ref == n_resamples else f" (B={b_ref} x{n_resamples // b_ref})"
    ratio = ref / ours
    add_row("bootstrap acc+F1 N=1e4 B=1e4", ours, "scipy.bootstrap" + note, ref,
            f"{ratio:,.0f}x", ">= 300x", ratio >= 300)


def bench_bca_vs_scipy(repeats, quick):
    print("\n[2] BCa interval of the macro-F1 difference, N=5 000, B=2 000 vs scipy BCa "
          "with a non-vectorised statistic calling sklearn.metrics.f1_score", flush=True)
    n, n_resamples, k = 5_000, 2_000, 5
    y, a, b = hard_data(n, k, seed=1)
    test = BCaInterval(n_resamples=n_resamples, random_state=fresh_seeds())
    ours = best_time(lambda: test.test(y, a, b, metric="f1_macro"), repeats)

    def statistic(y, a, b):
        return (f1_score(y, b, average="macro", zero_division=0.0)
                - f1_score(y, a, average="macro", zero_division=0.0))

    b_ref = 50 if quick else 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_res, boot = once(lambda: stats.bootstrap(
            (y, a, b), statistic, paired=True, vectorized=False, n_resamples=b_ref,
            method="percentile", rng=np.random.default_rng(0)))
        # scipy's BCa on the stored distribution: only the jackknife (N calls)
        # and the interval arithmetic run.
        t_jack, _ = once(lambda: stats.bootstrap(
            (y, a, b), statistic, paired=True, vectorized=False, n_resamples=0,
            bootstrap_result=boot, method="BCa"))
    per_resample = t_res / b_ref
    ref = t_jack + n_resamples * per_resample
    print(f"  scipy measured: {b_ref} resamples in {fmt_t(t_res)} "
          f"({fmt_t(per_resample)} each), jackknife of N={n} calls in {fmt_t(t_jack)}; "
          f"estimate for B={n_resamples}: {fmt_t(t_jack)} + {n_resamples} x "
          f"{fmt_t(per_resample)} = {fmt_t(ref)} (linear in B)", flush=True)
    ratio = ref / ours
    add_row("BCa macro-F1 N=5e3 B=2e3", ours,
            f"scipy BCa + f1_score (est. from B={b_ref} + full jackknife)", ref,
            f"{ratio:,.0f}x", ">= 2000x", ratio >= 2000)


def bench_permutation_vs_scipy(repeats, quick):
    print("\n[3] paired permutation, accuracy, N=10 000, 10 000 permutations vs "
          "scipy.stats.permutation_test(permutation_type='samples', vectorized=True)",
          flush=True)
    n, n_resamples, k = 10_000, 10_000, 5
    y, a, b = hard_data(n, k, seed=2)
    test = PairedPermutation(n_resamples=n_resamples, exact=False, random_state=fresh_seeds())
    ours = best_time(lambda: test.test(y, a, b, metric="accuracy"), repeats)
    auto = PairedPermutation(n_resamples=n_resamples, random_state=fresh_seeds())
    ours_auto = best_time(lambda: auto.test(y, a, b, metric="accuracy"), repeats)
    res_auto = auto.test(y, a, b, metric="accuracy")
    print(f"  sigtest exact='auto' (default) ran '{res_auto.resampling}' in "
          f"{fmt_t(ours_auto)}", flush=True)
    ca, cb = (a == y).astype(float), (b == y).astype(float)

    def statistic(x, z, axis=-1):
        return np.mean(z, axis=axis) - np.mean(x, axis=axis)

    b_ref = 1000 if quick else n_resamples
    ref, res = once(lambda: stats.permutation_test(
        (ca, cb), statistic, permutation_type="samples", vectorized=True,
        n_resamples=b_ref, batch=250, rng=np.random.default_rng(0)))
    ref *= n_resamples / b_ref
    note = "" if b_ref == n_resamples else f" (B={b_ref} x{n_resamples // b_ref})"
    ratio = ref / ours
    add_row("permutation acc N=1e4 B=1e4", ours, "scipy.permutation_test" + note, ref,
            f"{ratio:,.0f}x", ">= 1000x", ratio >= 1000)


def bench_hard_scaling(repeats):
    print("\n[4] hard labels: N=1 000 vs N=1 000 000 (B=10 000, compressed path)", flush=True)
    worst = 0.0
    for metric in ("accuracy", "f1_macro"):
        times = {}
        for n in (1_000, 1_000_000):
            y, a, b = hard_data(n, 5, seed=3)
            test = BergKirkpatrickBootstrap(n_resamples=10_000, random_state=fresh_seeds())
            times[n] = best_time(lambda: test.test(y, a, b, metric=metric), repeats)
        diff = times[1_000_000] - times[1_000]
        worst = max(worst, diff)
        print(f"  {metric}: N=1e3 {fmt_t(times[1_000])}, N=1e6 {fmt_t(times[1_000_000])}, "
              f"difference {fmt_t(diff)}", flush=True)
        add_row(f"bootstrap {metric} N=1e6 minus N=1e3", times[1_000_000], "same at N=1e3",
                times[1_000], f"+{fmt_t(diff)}", "<= +0.3 s", diff <= 0.3)
    return worst


def bench_cells(repeats):
    """Cell compression of hard labels: the numba passes vs the NumPy path (issue 23)."""
    from sigtest._engine import cells

    print("\n[6] cell compression (t, A, B) with every item's row, 10 classes: "
          "numba kernel vs the NumPy path", flush=True)
    for n in (10_000, 100_000, 1_000_000):
        y, a, b = hard_data(n, 10, seed=5)
        for x, z in zip(cells._cells_computed(y, a, b, True), cells._cells_numpy(y, a, b, True)):
            assert x.dtype == z.dtype and np.array_equal(x, z)  # the same cells
        ours = best_time(lambda: cells._cells_computed(y, a, b, True), max(repeats, 5))
        ref = best_time(lambda: cells._cells_numpy(y, a, b, True), max(repeats, 5))
        goal = ">= 3x" if n == 1_000_000 else "(figure)"
        add_row(f"cells N={n:.0e} (with rows)", ours, "NumPy path", ref,
                f"{ref / ours:.1f}x", goal, n < 1_000_000 or ref / ours >= 3)


def bench_soft(repeats):
    print("\n[5] soft labels: paired bootstrap N=10 000, B=10 000, K=8", flush=True)
    n, n_resamples, k = 10_000, 10_000, 8
    P, qa, qb = soft_data(n, k)
    test = BergKirkpatrickBootstrap(n_resamples=n_resamples, random_state=fresh_seeds())
    ours = best_time(lambda: test.test(P, qa, qb, metric="soft_accuracy"), repeats)

    # NumPy's bare draw-and-gather of the same resamples: per-item soft
    # accuracy of A and B, then (chunk, N) indices, fancy indexing and sums.
    sa, sb = np.minimum(P, qa).sum(axis=1), np.minimum(P, qb).sum(axis=1)

    def bare_numpy(chunk=100):
        rng = np.random.default_rng(0)
        out_a, out_b = np.empty(n_resamples), np.empty(n_resamples)
        for start in range(0, n_resamples, chunk):
            idx = rng.integers(0, n, (chunk, n))
            out_a[start:start + chunk] = sa[idx].sum(axis=1)
            out_b[start:start + chunk] = sb[idx].sum(axis=1)
        return out_b - out_a

    ref = best_time(bare_numpy, repeats, warmup=False)
    ratio = ref / ours
    add_row("soft accuracy N=1e4 B=1e4", ours, "NumPy integers+gather+sum", ref,
            f"{ratio:.1f}x", ">= 2x", ratio >= 2)
    for metric in ("soft_accuracy", "po_jsd", "soft_f1_macro", "entropy_correlation"):
        t = best_time(lambda: test.test(P, qa, qb, metric=metric), repeats)
        rate = n * n_resamples / t
        print(f"  {metric:>20}: {fmt_t(t)} -> {rate / 1e6:,.0f} M resampled items/s", flush=True)
        add_row(f"items/s {metric} (K=8)", t, "-", None, f"{rate / 1e6:,.0f} M/s", "report",
                True)


COLD_CODE = textwrap.dedent("""
    import time
    t0 = time.perf_counter()
    import numpy as np
    from sigtest import BergKirkpatrickBootstrap
    t1 = time.perf_counter()
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 1000)
    a = np.where(rng.random(1000) < 0.7, y, (y + 1) % 3)
    b = np.where(rng.random(1000) < 0.8, y, (y + 1) % 3)
    BergKirkpatrickBootstrap(random_state=0).test(y, a, b, metric="{metric}")
    t2 = time.perf_counter()
    print(t1 - t0, t2 - t1)
""")


DEPS_CODE = textwrap.dedent("""
    import time
    t0 = time.perf_counter()
    import numpy, scipy.stats, sklearn.base, sklearn.metrics, pandas, numba, joblib
    print(time.perf_counter() - t0, 0.0)
""")


def _child_run(cmd):
    """(stdout floats, wall time, CPU time user+sys) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return tuple(map(float, out.stdout.split())), wall, cpu


def bench_cold_start(repeats):
    print("\n[7] new process, warm numba cache: import sigtest + first test "
          "(BergKirkpatrickBootstrap, N=1 000, B=10 000)", flush=True)
    deps = min((_child_run([sys.executable, "-c", DEPS_CODE]) for _ in range(repeats)),
               key=lambda r: r[0][0])
    print(f"  baseline: importing numpy+scipy.stats+sklearn+pandas+numba+joblib alone takes "
          f"{fmt_t(deps[0][0])} (process wall {fmt_t(deps[1])}, CPU {fmt_t(deps[2])})",
          flush=True)
    for metric in ("accuracy", "f1_macro"):
        cmd = [sys.executable, "-c", COLD_CODE.format(metric=metric)]
        subprocess.run(cmd, check=True, capture_output=True)  # fills the numba cache
        (t_import, t_test), wall, cpu = min((_child_run(cmd) for _ in range(repeats)),
                                            key=lambda r: sum(r[0]))
        print(f"  {metric}: import {fmt_t(t_import)} + first test {fmt_t(t_test)} = "
              f"{fmt_t(t_import + t_test)}; whole process incl. interpreter start: wall "
              f"{fmt_t(wall)}, CPU (user+sys, all threads) {fmt_t(cpu)}", flush=True)
        add_row(f"new process: import + first test ({metric})", t_import + t_test,
                "whole process wall", wall, f"deps alone {fmt_t(deps[0][0])}", "< 1.5 s",
                t_import + t_test < 1.5)


def print_table():
    head = ("benchmark", "sigtest", "reference", "ref. time", "ratio / figure", "goal",
            "status")
    widths = [max(len(str(r[i])) for r in ROWS + [head]) for i in range(len(head))]
    line = "  ".join("-" * w for w in widths)
    print("\n" + "  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print(line)
    for row in ROWS:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    n_miss = sum(r[-1] == "MISS" for r in ROWS)
    print(line)
    print(f"{len(ROWS) - n_miss} PASS, {n_miss} MISS")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repeats of the sigtest calls (best is kept)")
    parser.add_argument("--quick", action="store_true",
                        help="time scipy on fewer resamples and scale linearly")
    parser.add_argument("--only", nargs="*", default=None,
                        choices=["bootstrap", "bca", "permutation", "scaling", "soft", "cells",
                                 "cold"])
    args = parser.parse_args(argv)

    import numba

    print(f"sigtest {sigtest.__version__}, numpy {np.__version__}, "
          f"scipy {__import__('scipy').__version__}, numba {numba.__version__}, "
          f"{os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}, "
          f"load average {os.getloadavg()[0]:.1f} (shared machine: a load above the CPU count "
          "inflates every time)", flush=True)
    # Warm-up: compile (or load from cache) every kernel used below.
    y, a, b = hard_data(500)
    P, qa, qb = soft_data(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in (BergKirkpatrickBootstrap(n_resamples=50, random_state=0),
                     BCaInterval(n_resamples=50, random_state=0),
                     PairedPermutation(n_resamples=50, exact=False, random_state=0)):
            for metric in ("accuracy", "f1_macro"):
                test.test(y, a, b, metric=metric)
            for metric in ("soft_accuracy", "po_jsd", "soft_f1_macro", "entropy_correlation"):
                test.test(P, qa, qb, metric=metric)

    todo = args.only or ["bootstrap", "bca", "permutation", "scaling", "soft", "cells", "cold"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "bootstrap" in todo:
            bench_bootstrap_vs_scipy(args.repeats, args.quick)
        if "bca" in todo:
            bench_bca_vs_scipy(args.repeats, args.quick)
        if "permutation" in todo:
            bench_permutation_vs_scipy(args.repeats, args.quick)
        if "scaling" in todo:
            bench_hard_scaling(args.repeats)
        if "soft" in todo:
            bench_soft(args.repeats)
        if "cells" in todo:
            bench_cells(args.repeats)
    if "cold" in todo:
        bench_cold_start(args.repeats)
    print_table()
    # peak resident memory of this process over all sections (Linux: kB); the
    # per-case peaks of the scale cases are in benchmarks/bench_memory.py
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mb = peak / 2**20 if sys.platform == "darwin" else peak / 1024
    print(f"peak RSS of this benchmark process: {peak_mb:,.0f} MB "
          "(per-case peaks: python benchmarks/bench_memory.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
