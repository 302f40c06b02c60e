"""Per-item bootstrap path near the limit (issue 23, section 4), printing ratios.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_peritem.py [--quick] [--repeat R]``
(``PYTHONPATH=.``: the checkout's sigtest, not an installed one)

The generic bootstrap kernel resamples per-item statistics (soft metrics,
per-item scores, regression). This script times, on the same data in one run:

1. the kernel alone (``bootstrap_sums_generic``, numba threads) on the
   soft-accuracy rows of N = 10^4 and N = 10^6 items (K = 10 classes), in
   resampled items per second, against ``reference_kernel`` below: a copy of
   the kernel before issue 23 (one SplitMix64 word per draw, a 64-bit
   multiply-shift bound, a random gather of ``stats[i, :]``), kept here as the
   baseline, and against the count path of the previous round (count the
   draws in uint8 rows, stream the rows once per 8 resamples: today
   ``kernels_counts.count_sums_range``, which compare's shared sums keep).
   Goals: >= 4x the reference at N = 10^6, and N = 10^6 within 1.5x of the
   items/s at N = 10^4.
2. end to end, ``BergKirkpatrickBootstrap(n_resamples=B).test(P, Qa, Qb,
   metric="soft_accuracy")`` at N = 10^6 with today's kernel and with the
   reference kernel patched in (the issue's case: B = 10^4, 10^10 draws;
   ``--quick`` uses B = 500).

The new and the reference kernel draw different indices (beyond 2**15 rows
the segment path: a multinomial of the draws over 8192-row segments, then
Lemire's 32-bit multiply-shift inside each segment; the reference draws a
64-bit multiply-shift over all rows), so their sums differ within Monte
Carlo error; the script prints both p-values.
Timings on a shared machine are noisy: the load (``os.getloadavg``) is
printed before and after.
"""

import argparse
import os
import time

import numpy as np
from numba import njit, prange

from bench_kernels import best_time, soft_data  # noqa: E402 - this folder is sys.path[0]
from sigtest import BergKirkpatrickBootstrap
from sigtest._engine import kernels as _kernels
from sigtest._engine import kernels_counts as _counts
from sigtest._engine import prepare_paired
from sigtest._engine.resampling.rows import _reduce_columns
from sigtest._engine.rng import resample_keys
from sigtest._engine.threads import thread_count

# ---------------------------------------------------------------- reference
# The generic bootstrap kernel as it was before issue 23 (the baseline).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M32 = np.uint64(0xFFFFFFFF)
_U27, _U30, _U31, _U32 = (np.uint64(v) for v in (27, 30, 31, 32))


@njit(nogil=True)
def _splitmix(z):
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@njit(nogil=True)
def _bounded(z, n):
    hi = (z >> _U32) * n
    lo = ((z & _M32) * n) >> _U32
    return np.intp((hi + lo) >> _U32)


@njit(nogil=True)
def _ref_one(stats, m, key, out, b):
    n, s = stats.shape
    nn = np.uint64(n)
    z = key
    if s == 1:
        a0 = 0.0
        for _ in range(m):
            z = z + _GOLDEN
            i = _bounded(_splitmix(z), nn)
            a0 += stats[i, 0]
        out[b, 0] = a0
    elif s == 2:
        a0 = 0.0
        a1 = 0.0
        for _ in range(m):
            z = z + _GOLDEN
            i = _bounded(_splitmix(z), nn)
            a0 += stats[i, 0]
            a1 += stats[i, 1]
        out[b, 0] = a0
        out[b, 1] = a1
    else:
        acc = np.zeros(s)
        for _ in range(m):
            z = z + _GOLDEN
            i = _bounded(_splitmix(z), nn)
            for c in range(s):
                acc[c] += stats[i, c]
        for c in range(s):
            out[b, c] = acc[c]


@njit(nogil=True)
def _ref_serial(stats, m, keys):
    out = np.zeros((keys.shape[0], stats.shape[1]))
    for b in range(keys.shape[0]):
        _ref_one(stats, m, keys[b], out, b)
    return out


@njit(nogil=True, parallel=True)
def _ref_parallel(stats, m, keys):
    out = np.zeros((keys.shape[0], stats.shape[1]))
    for b in prange(keys.shape[0]):
        _ref_one(stats, m, keys[b], out, b)
    return out


def reference_kernel(stats, m, keys, parallel=False):
    """The pre-issue-23 ``bootstrap_sums_generic`` (same signature)."""
    kernel = _ref_parallel if parallel else _ref_serial
    return kernel(stats, np.int64(m), keys)


# --------------------------------------------------------------------- data
def soft_rows(n, k=10):
    """The varying columns of the joint soft-accuracy rows (what the kernel gathers)."""
    p, qa, qb = soft_data(n, k)
    paired = prepare_paired(p, qa, qb, "soft_accuracy")
    red, _, _ = _reduce_columns(np.hstack([paired.stats_a, paired.stats_b]))
    return np.ascontiguousarray(red)


def count_kernel(stats, m, keys, parts):
    """The previous round's count path for one stratum, ``parts`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    B = keys.shape[0]
    out = np.zeros((B, stats.shape[1]))
    offsets = np.array([0, stats.shape[0]], dtype=np.int64)
    sizes = np.array([m], dtype=np.int64)
    cuts = [B * t // parts // 8 * 8 for t in range(parts)] + [B]

    def run(t):  # count_sums_range releases the GIL (nogil)
        _counts.count_sums_range(stats, keys.reshape(1, -1), np.zeros(0, dtype=np.int64),
                                 offsets, sizes, out, cuts[t], cuts[t + 1])

    with ThreadPoolExecutor(parts) as pool:
        list(pool.map(run, range(parts)))
    return out


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


# ----------------------------------------------------------------- sections
def section_kernel(cases, repeat):
    print("\n[1] kernel alone, soft accuracy rows (K = 10), numba threads "
          f"({thread_count(True)}), best of {repeat}")
    rate = {}
    for n, B in cases:
        stats = soft_rows(n)
        keys = resample_keys(0, B)
        t_new = best_time(lambda: _kernels.bootstrap_sums_generic(stats, n, keys, parallel=True),
                          repeat)
        t_ref = best_time(lambda: reference_kernel(stats, n, keys, parallel=True), repeat)
        t_cnt = best_time(lambda: count_kernel(stats, n, keys, thread_count(True)), repeat)
        rate[n] = n * B / t_new
        print(f"    N={n:>9,d} B={B:>6,d} s={stats.shape[1]}: new {t_new:8.3f} s "
              f"({n * B / t_new / 1e6:6.0f} M items/s), reference {t_ref:8.3f} s "
              f"({n * B / t_ref / 1e6:6.0f} M items/s), ratio new/old speed "
              f"{t_ref / t_new:5.2f}x; count path {t_cnt:8.3f} s ({t_cnt / t_new:5.2f}x)")
    small, large = min(rate), max(rate)
    print(f"    items/s at N={small:,d} / at N={large:,d}: {rate[small] / rate[large]:5.2f}x "
          "(goal <= 1.5x)")


def section_end_to_end(n, B):
    print(f"\n[2] BergKirkpatrickBootstrap(n_resamples={B:,d}).test(P, Qa, Qb, "
          f"metric='soft_accuracy'), N={n:,d}, K=10 ({n * B:.0e} draws)")
    p, qa, qb = soft_data(n, 10)
    test = BergKirkpatrickBootstrap(n_resamples=B, random_state=0)
    test.test(p[:1000], qa[:1000], qb[:1000], metric="soft_accuracy")  # compile / load
    t0 = time.perf_counter()
    new = test.test(p, qa, qb, metric="soft_accuracy")
    t_new = time.perf_counter() - t0
    saved = _kernels.bootstrap_sums_generic
    _kernels.bootstrap_sums_generic = reference_kernel
    try:
        test.test(p[:1000], qa[:1000], qb[:1000], metric="soft_accuracy")
        t0 = time.perf_counter()
        ref = test.test(p, qa, qb, metric="soft_accuracy")
        t_ref = time.perf_counter() - t0
    finally:
        _kernels.bootstrap_sums_generic = saved
    t0 = time.perf_counter()
    prepare_paired(p, qa, qb, "soft_accuracy")
    t_prep = time.perf_counter() - t0
    print(f"    new {t_new:8.2f} s, reference kernel {t_ref:8.2f} s: "
          f"{t_ref / t_new:5.2f}x faster (goal >= 4x)")
    print(f"    of which prepare_paired (the same in both, no kernel): {t_prep:6.2f} s; "
          f"without it {(t_ref - t_prep) / max(t_new - t_prep, 1e-9):5.2f}x")
    print(f"    p-values: new {new.pvalue:.4g}, reference {ref.pvalue:.4g} "
          "(different draws: equal within Monte Carlo error)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer resamples (B = 500 at N = 10^6)")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 1)
    print(f"numba enabled: {_kernels.NUMBA_ENABLED}; {load()}")
    if args.quick:
        section_kernel([(10_000, 5_000), (1_000_000, 100)], repeat)
        section_end_to_end(1_000_000, 500)
    else:
        section_kernel([(10_000, 100_000), (1_000_000, 1_000)], repeat)
        section_end_to_end(1_000_000, 10_000)
    print(f"\n{load()}")


if __name__ == "__main__":
    main()
