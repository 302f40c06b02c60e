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
call gets a new seed (no kernel memo).

``--read``: reading instead (:func:`sigtest.read_scores`). A long table of
10^6 rows (2 systems x 500,000 items and 10 x 100,000, shuffled) as CSV and
Parquet, against pandas reading the same file and pivoting it
(``read_csv``/``read_parquet`` + ``pivot``), ratio printed (the target is
2x at most); and a folder of 200 lm-evaluation-harness sample files (2
models x 100 tasks x 500 documents = 10^5 rows) read with
``harness="lm-eval"`` (target: 3 s). CPU seconds (all threads) beside wall
seconds, medians of ``--repeats``, and the load average.

Usage: ``python benchmarks/bench_scores.py [--quick] [--read]``.
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


def _timed(func, repeats):
    """Median (CPU s, wall s) of ``repeats`` calls after a warm-up."""
    func()
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        func()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return float(np.median(cpu)), float(np.median(wall))


def _long_table(folder, n_systems, n_items):
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"system": np.repeat([f"model_{k}" for k in range(n_systems)], n_items),
                       "item": np.tile(np.arange(n_items), n_systems),
                       "score": (rng.random(n_systems * n_items) < 0.6).astype(float)})
    df = df.sample(frac=1.0, random_state=0)
    paths = {}
    for fmt in ("csv", "parquet"):
        paths[fmt] = os.path.join(folder, f"scores_{n_systems}x{n_items}.{fmt}")
        (df.to_csv(paths[fmt], index=False) if fmt == "csv"
         else df.to_parquet(paths[fmt], index=False))
    return paths


def _lm_eval_folder(folder, n_models=2, n_tasks=100, n_docs=500):
    """lm-evaluation-harness sample files as its EvaluationTracker writes them."""
    import hashlib
    import json

    rng = np.random.default_rng(1)
    for m in range(n_models):
        sub = os.path.join(folder, f"org__model-{m}")
        os.makedirs(sub)
        for t in range(n_tasks):
            with open(os.path.join(sub, f"samples_task{t}_2024-06-01T12-00-00.000001.jsonl"),
                      "w", encoding="utf-8") as fh:
                for d in range(n_docs):
                    acc = float(rng.random() < 0.6)
                    doc = {"question": f"question {d} of task {t}", "choices": ["a", "b"]}
                    fh.write(json.dumps({
                        "doc_id": d, "doc": doc, "target": "0",
                        "arguments": {"gen_args_0": {"arg_0": f"Question {d}", "arg_1": " a"}},
                        "resps": [[["-1.2", "False"]]], "filtered_resps": [["-1.2", "False"]],
                        "filter": "none", "metrics": ["acc", "acc_norm"],
                        "doc_hash": hashlib.sha256(str(d).encode()).hexdigest(),
                        "prompt_hash": hashlib.sha256(str(t).encode()).hexdigest(),
                        "target_hash": hashlib.sha256(b"0").hexdigest(),
                        "acc": acc, "acc_norm": acc}) + "\n")


def bench_read(repeats):
    """read_scores against pandas read + pivot; a 200-file lm-eval folder."""
    import tempfile

    import pandas as pd

    from sigtest import read_scores

    readers = {"csv": pd.read_csv, "parquet": pd.read_parquet}
    print(f"read_scores of 10^6 rows vs pandas read + pivot (medians of {repeats}; CPU s of "
          "all threads / wall s)")
    print(f"{'table':>14} {'format':>8} {'pandas':>13} {'sigtest':>13} {'CPU ratio':>9} "
          f"{'wall ratio':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for n_systems, n_items in ((2, 500_000), (10, 100_000)):
            paths = _long_table(folder, n_systems, n_items)
            for fmt, path in paths.items():
                ref = _timed(lambda: readers[fmt](path).pivot(
                    index="item", columns="system", values="score"), repeats)
                got = _timed(lambda: read_scores(path), repeats)
                print(f"{f'{n_systems} x {n_items:,}':>14} {fmt:>8} "
                      f"{ref[0]:>5.2f} / {ref[1]:>5.2f} {got[0]:>5.2f} / {got[1]:>5.2f} "
                      f"{got[0] / ref[0]:>8.2f}x {got[1] / ref[1]:>9.2f}x", flush=True)
        lm_eval = os.path.join(folder, "lm_eval")
        _lm_eval_folder(lm_eval)
        cpu, wall = _timed(lambda: read_scores(lm_eval, harness="lm-eval", score="acc"),
                           repeats)
        print(f"lm-eval folder, 200 files, 10^5 rows: {cpu:.2f} s CPU / {wall:.2f} s wall "
              "(target <= 3 s)")
    print(f"load average: {os.getloadavg()}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="time fewer NumPy resamples")
    parser.add_argument("--read", action="store_true",
                        help="time read_scores (10^6-row tables, an lm-eval folder) instead")
    args = parser.parse_args(argv)
    if args.read:
        print(f"load average: {os.getloadavg()}")
        bench_read(args.repeats)
        return 0
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
