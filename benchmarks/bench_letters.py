"""Compact letter display at scale: ``compact_letters`` for 50 to 1,000 systems.

Goal: 1,000 systems in <= 2 s whatever the pattern of significances. Four
patterns of p-value matrices, systems in score order:

* ``random``: each pair significant with probability .5 (no structure);
* ``banded``: neighbours within 2 ranks not significant, all others are
  (the pattern of a long leaderboard of close systems);
* ``block``: groups of 10 equal systems, 5 % of pairs flipped;
* ``gaps``: significant when the true scores are more than 0.3 sd apart.

For each the script prints the CPU and wall seconds of ``compact_letters``,
the number of letters, and, in a subprocess stopped after ``--timeout``
seconds, the insert-and-absorb of earlier versions (Piepho 2004, on
frozensets) on the same matrix, with the ratio of the two CPU times. Run
``python benchmarks/bench_letters.py [--quick] [--timeout S]``.
"""

import argparse
import os
import resource
import subprocess
import sys
import time

import numpy as np

from sigtest import compact_letters

OLD = r'''
import sys, time, numpy as np
def absorb(columns):
    return [c for i, c in enumerate(columns)
            if not any(c < o or (c == o and j < i) for j, o in enumerate(columns) if j != i)]
sig = np.load(sys.argv[1])
k = sig.shape[0]
t0 = time.process_time()
columns = [frozenset(range(k))]
for i in range(k):
    for j in range(i + 1, k):
        if sig[i, j]:
            new = []
            for col in columns:
                new += [col - {i}, col - {j}] if (i in col and j in col) else [col]
            columns = absorb(new)
columns = [set(c) for c in columns]
for ci, col in enumerate(columns):
    for t in sorted(col):
        others = [c for cj, c in enumerate(columns) if cj != ci]
        if any(t in c for c in others) and all(
                any(t in c and u in c for c in others) for u in col if u != t):
            col.discard(t)
columns = absorb([frozenset(c) for c in columns if c])
print(time.process_time() - t0, len(columns))
'''


def pattern(name, k, rng):
    if name == "random":
        upper = np.triu(rng.random((k, k)) < 0.5, 1)
        sig = upper | upper.T
    elif name == "banded":
        i = np.arange(k)
        sig = np.abs(i[:, None] - i[None, :]) > 2
    elif name == "block":
        g = np.arange(k) // 10
        flip = np.triu(rng.random((k, k)) < 0.05, 1)
        sig = (g[:, None] != g[None, :]) ^ (flip | flip.T)
    else:
        s = np.sort(rng.normal(size=k))[::-1]
        sig = np.abs(s[:, None] - s[None, :]) > 0.3
    np.fill_diagonal(sig, False)
    noise = rng.uniform(0, 0.04, (k, k))
    p = np.where(sig, 0.001, 0.5) + np.triu(noise, 1) + np.triu(noise, 1).T
    np.fill_diagonal(p, 1.0)
    return sig, p


def old_seconds(sig, timeout, tmp):
    path = os.path.join(tmp, "sig.npy")
    np.save(path, sig)
    try:
        out = subprocess.run([sys.executable, "-c", OLD, path], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    cpu, letters = out.stdout.split()
    return float(cpu), int(letters)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="k up to 200, old search 5 s")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds the old search may run per case")
    args = parser.parse_args(argv)
    sizes = (50, 100, 200) if args.quick else (50, 100, 200, 500, 1000)
    timeout = 5.0 if args.quick else args.timeout
    import tempfile

    tmp = tempfile.mkdtemp()
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(f"{'pattern':8} {'k':>5} {'letters':>8} {'CPU s':>7} {'wall s':>7}   "
          f"{'old letters':>11} {'old CPU s':>10} {'old/new':>8}")
    compact_letters(np.full((3, 3), 0.5))  # import pandas once
    for name in ("random", "banded", "block", "gaps"):
        for k in sizes:
            rng = np.random.default_rng(k)
            sig, p = pattern(name, k, rng)
            scores = -np.arange(k, dtype=float)
            t0, c0 = time.perf_counter(), time.process_time()
            letters = compact_letters(p, scores=scores)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            n_letters = len(set(sum((list(_split(s)) for s in letters), [])))
            old_cpu, old_letters = (None, None) if k > 200 else old_seconds(sig, timeout, tmp)
            old = (f"{old_letters:>11} {old_cpu:>10.2f} {old_cpu / max(cpu, 1e-9):>7.0f}x"
                   if old_cpu is not None else
                   f"{'-':>11} {'> %.0f s' % timeout if k <= 200 else 'not run':>10} {'':>8}")
            print(f"{name:8} {k:>5} {n_letters:>8} {cpu:>7.3f} {wall:>7.3f}   {old}",
                  flush=True)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"load average {os.getloadavg()[0]:.2f}; CPU of this process "
          f"{usage.ru_utime + usage.ru_stime:.1f} s")
    return 0


def _split(letters):
    """The letters of one display string ('ab', 'a1b', 'Zc2' -> ['a', 'b'], ...)."""
    out, cur = [], ""
    for ch in letters:
        if ch.isdigit():
            cur += ch
        else:
            if cur:
                out.append(cur)
            cur = ch
    if cur:
        out.append(cur)
    return out


if __name__ == "__main__":
    sys.exit(main())
