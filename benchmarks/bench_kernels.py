"""Raw throughput of the resampling engine (kernels + wrappers), printing ratios.

Run: ``.venv/bin/python benchmarks/bench_kernels.py [--quick]``

Sections (issue 3, section 4):

1. generic paired bootstrap of soft accuracy, N = 10 000, B = 10 000, against
   NumPy's bare draw-and-gather of the same amount of work
   (``rng.integers(0, N, (chunk, N))`` + fancy indexing + sum);
2. resampled items per second of the generic bootstrap for soft accuracy,
   PO-JSD, soft macro-F1 (K = 8) and entropy correlation;
3. hard labels (compressed path): accuracy + macro-F1 bootstrap, N = 10 000,
   B = 10 000, and the cost of going from N = 1 000 to N = 1 000 000;
4. paired permutation of accuracy, N = 10 000, B = 10 000 (compressed and
   generic paths);
5. a new process with a warm numba cache: import + first resampling call.

Every timing is the best of ``--repeat`` runs after one warm-up call.
"""

import argparse
import subprocess
import sys
import time

import numpy as np

from sigtest.metrics import get_metric
from sigtest._engine import kernels as _kernels
from sigtest._engine import resampling as R
from sigtest._engine import prepare_paired
from sigtest._engine.resampling.rows import _reduce_columns
from sigtest._engine.rng import resample_keys


def best_time(func, repeat):
    func()  # warm-up (JIT compilation or cache load)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def soft_data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), n)
    qa = 0.6 * p + 0.4 * rng.dirichlet(np.ones(k), n)
    qb = 0.7 * p + 0.3 * rng.dirichlet(np.ones(k), n)
    return p, qa, qb


def hard_data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    return y, a, b


def numpy_bare(stats, B, chunk=100, seed=0):
    """NumPy's bare paired draw-and-gather: the same indices for every column."""
    rng = np.random.default_rng(seed)
    n = stats.shape[0]
    out = np.empty((B, stats.shape[1]))
    for lo in range(0, B, chunk):
        hi = min(B, lo + chunk)
        idx = rng.integers(0, n, (hi - lo, n))
        out[lo:hi] = stats[idx].sum(axis=1)
    return out


def section_soft_accuracy(N, B, repeat):
    print(f"\n[1] generic bootstrap, soft accuracy, N={N}, B={B}")
    p, qa, qb = soft_data(N, 4)
    paired = prepare_paired(p, qa, qb, "soft_accuracy")
    M = np.hstack([paired.stats_a, paired.stats_b])
    red, _, _ = _reduce_columns(M)
    keys = resample_keys(0, B)
    print(f"    statistics per system s={paired.n_statistics}; varying columns gathered: "
          f"{red.shape[1]} (constant/duplicate columns are not gathered)")
    t_np2 = best_time(lambda: numpy_bare(red, B), repeat)
    t_np1 = best_time(lambda: numpy_bare(red[:, :1], B), repeat)
    t_ser = best_time(lambda: _kernels.bootstrap_sums_generic(red, N, keys, parallel=False), repeat)
    t_par = best_time(lambda: _kernels.bootstrap_sums_generic(red, N, keys, parallel=True), repeat)
    t_all = best_time(lambda: paired.deltas(*R.bootstrap_sums(paired, B, None, 0)), repeat)
    items = N * B
    print(f"    numpy bare, same {red.shape[1]} columns : {t_np2:7.3f} s")
    print(f"    numpy bare, one column          : {t_np1:7.3f} s")
    print(f"    kernel serial                   : {t_ser:7.3f} s  ({items / t_ser / 1e6:6.0f} M items/s)")
    print(f"    kernel parallel                 : {t_par:7.3f} s  ({items / t_par / 1e6:6.0f} M items/s)")
    print(f"    bootstrap_sums + deltas         : {t_all:7.3f} s")
    print(f"    ratio numpy(same cols) / ours   : {t_np2 / t_all:6.1f}x  (goal >= 2x)")
    print(f"    ratio numpy(one col)   / ours   : {t_np1 / t_all:6.1f}x")


def section_items_per_second(N, B, repeat):
    print(f"\n[2] generic bootstrap throughput (bootstrap_sums + deltas), N={N}, B={B}")
    cases = [("soft_accuracy", 4), ("po_jsd", 4), ("soft_f1_macro", 8),
             ("entropy_correlation", 4)]
    for name, k in cases:
        p, qa, qb = soft_data(N, k)
        try:
            paired = prepare_paired(p, qa, qb, get_metric(name))
        except Exception as exc:  # a metric module may not be ready yet
            print(f"    {name:22s} skipped: {type(exc).__name__}: {exc}")
            continue
        t = best_time(lambda: paired.deltas(*R.bootstrap_sums(paired, B, None, 0)), repeat)
        print(f"    {name:22s} K={k} s={paired.n_statistics:3d}: {t:7.3f} s  "
              f"{N * B / t / 1e6:7.0f} M items/s")


def section_hard(B, repeat):
    print(f"\n[3] compressed bootstrap, hard labels, B={B}")
    for name in ("accuracy", "f1_macro"):
        y, a, b = hard_data(10_000, 5)
        metric = get_metric(name)

        def run():
            paired = prepare_paired(y, a, b, metric)
            return paired.deltas(*R.bootstrap_sums(paired, B, None, 0))

        t = best_time(run, repeat)
        print(f"    {name:9s} N=10000 K=5 prepare+bootstrap+deltas: {t:7.4f} s")
    metric = get_metric("f1_macro")
    rows = {}
    for n in (1_000, 1_000_000):
        y, a, b = hard_data(n, 5)
        t_prep = best_time(lambda: prepare_paired(y, a, b, metric), repeat)
        paired = prepare_paired(y, a, b, metric)
        t_boot = best_time(lambda: paired.deltas(*R.bootstrap_sums(paired, B, None, 0)), repeat)
        rows[n] = t_prep + t_boot
        print(f"    f1_macro N={n:>9d}: prepare {t_prep:7.4f} s, bootstrap {t_boot:7.4f} s, "
              f"cells={paired.stats_a.shape[0]}")
    print(f"    N 1e3 -> 1e6 adds {rows[1_000_000] - rows[1_000]:7.4f} s  (goal <= 0.3 s)")


def section_permutation(B, repeat):
    print(f"\n[4] paired permutation of accuracy, N=10000, B={B}")
    y, a, b = hard_data(10_000, 5)
    metric = get_metric("accuracy")
    for compress in (True, False):
        paired = prepare_paired(y, a, b, metric, compress=compress)
        t = best_time(lambda: paired.deltas(*R.permutation_sums(paired, B, 0)), repeat)
        print(f"    compress={compress!s:5s}: {t:7.4f} s")
    paired = prepare_paired(y, a, b, metric)
    t = best_time(lambda: R.exact_permutation_sums(paired, max_patterns=2**22), repeat)
    print(f"    exact (grouped swap counts) returned "
          f"{'None' if R.exact_permutation_sums(paired, 2**22) is None else 'a distribution'}"
          f" in {t:7.4f} s")


_FIRST_CALL = """
import time; t0 = time.perf_counter()
import numpy as np
from sigtest._engine import prepare_paired
from sigtest._engine import resampling as R
y = np.arange(1000) % 3; a = (y + (np.arange(1000) % 7 == 0)) % 3; b = y.copy()
p = prepare_paired(y, a, b, "accuracy")
p.deltas(*R.bootstrap_sums(p, 1000, None, 0)); p.deltas(*R.permutation_sums(p, 1000, 0))
print(time.perf_counter() - t0)
"""


def section_first_call():
    print("\n[5] new process, warm numba cache: import + first bootstrap + permutation")
    subprocess.run([sys.executable, "-c", _FIRST_CALL], check=True, capture_output=True)
    t_wall = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _FIRST_CALL], check=True,
                         capture_output=True, text=True)
    t_wall = time.perf_counter() - t_wall
    print(f"    in-process {float(out.stdout):6.3f} s, wall incl. interpreter {t_wall:6.3f} s "
          "(goal < 1.5 s)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller B for a smoke run")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    B = 1_000 if args.quick else 10_000
    print(f"numba enabled: {_kernels.NUMBA_ENABLED}")
    section_soft_accuracy(10_000, B, args.repeat)
    section_items_per_second(10_000, B // 5, args.repeat)
    section_hard(B, args.repeat)
    section_permutation(B, args.repeat)
    section_first_call()


if __name__ == "__main__":
    main()
