"""The permutation kernel of rank metrics: one pass for both scores against the two passes.

Each permutation of ``rank_permutation_scores`` scores two mixed systems over
the pooled order of A's and B's entries. Before, ``_perm_block`` built the
two weight vectors and walked the order twice (two ``rank_metrics._value``
calls, kept below as ``_old_perm_block``); now one pass computes both weights
of an entry and accumulates both scores (``sigtest._engine.rank_permutation_pass``,
bit-identical: the script checks it). Timed, old and new interleaved in the
same run, on ``B`` (9,999) permutations through ``rank_permutation_scores``
(threads as by default; on the normalised ranks, as ``PairedPermutation``):

* binary ``roc_auc``, ``--binary`` (10^4) items, scores with ties;
* multiclass ``roc_auc_ovr`` and ``average_precision`` (macro), ``--items``
  (2,000) x 3 classes;
* one ``sigtest.compare`` of 3 systems on multiclass ``roc_auc_ovr``
  (default test ``permutation+bca``, 3 pairs: the p-values from the
  permutation test, timed old and new; the BCa intervals are in both).

Prints CPU seconds (``time.process_time``: all threads of the process), wall
seconds and the one-minute load average before each timing, medians of
``--repeats`` (3) runs after a warm-up, and the old/new ratios. Run
``python benchmarks/bench_rank_permutation.py [--resamples B] [--repeats R]
[--binary N] [--items N] [--quick]``.
"""

import argparse
import os
import time

import numba
import numpy as np

import sigtest
from sigtest._engine import prepare_paired
from sigtest._engine import rank_metrics as rm
from sigtest._engine.kernels import _GOLDEN, _splitmix
from sigtest._engine.rank_inputs import ranked_pair_of_ranks


@numba.njit(nogil=True)
def _old_perm_block(lo_b, hi_b, keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                    n_res_units, unit_of_item, item_weight, out):
    # the kernel before the one-pass version (two weight vectors, two passes)
    n = item_weight.shape[0]
    swap = np.zeros(n_res_units)
    q = np.empty(2 * n)
    scratch = np.zeros((3, n_units))
    for b in range(lo_b, hi_b):
        z = keys[b]
        word = np.uint64(0)
        for u in range(n_res_units):
            r = u % 64
            if r == 0:
                z = z + _GOLDEN
                word = _splitmix(z)
            swap[u] = float((word >> np.uint64(r)) & np.uint64(1))
        for t in range(2):
            for i in range(n):
                s = swap[unit_of_item[i]]
                if t == 1:
                    s = 1.0 - s
                q[i] = item_weight[i] * (1.0 - s)
                q[n + i] = item_weight[i] * s
            out[b, t] = rm._value(kind, items, pos, ties, starts, unit, weighting, q, scratch)


@numba.njit(nogil=True)
def _old_rank_permutation(keys, kind, items, pos, ties, starts, unit, weighting, n_units,
                          n_res_units, unit_of_item, item_weight):
    out = np.empty((keys.shape[0], 2))
    _old_perm_block(0, keys.shape[0], keys, kind, items, pos, ties, starts, unit, weighting,
                    n_units, n_res_units, unit_of_item, item_weight, out)
    return out


def _old_scores(paired, n_resamples, seed=0, *, parallel=True, ranked=None):
    # rank_permutation_scores before the one-pass version
    rp = rm.ranked_pair(paired) if ranked is None else ranked
    items, pos, ties, starts = rm._pooled(rp)
    keys = rm.resample_keys(seed, n_resamples)
    args = (rp.kind, items, pos, ties, starts, rp.unit, rp.weighting, rp.n_units,
            rp.n_resampling_units, rp.unit_of_item, rp.item_weight)
    return rm.split_rows(lambda s, e: _old_rank_permutation(keys[s:e], *args), n_resamples,
                         parallel and n_resamples > rm._BLOCK)


NEW = rm.rank_permutation_scores


def _use(old):
    # the engine's dispatch imports rank_permutation_scores from the module at each call
    rm.rank_permutation_scores = _old_scores if old else NEW


def _timed(call):
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    out = call()
    return out, time.process_time() - cpu, time.perf_counter() - wall, load


def _compare_rows(label, call, repeats):
    """Old and new interleaved; medians; the outputs of both must be equal."""
    got = {}
    for old in (True, False):  # warm-up (compilation, caches)
        _use(old)
        got[old] = call()
    _use(False)
    runs = {True: [], False: []}
    for _ in range(repeats):
        for old in (True, False):
            _use(old)
            runs[old].append(_timed(call)[1:])
    _use(False)
    med = {k: np.median(np.array(v), axis=0) for k, v in runs.items()}
    for old, name in ((True, "two passes (before)"), (False, "one pass (after)")):
        cpu, wall, load = med[old]
        print(f"  {label:<34} {name:<20} CPU {cpu:7.2f} s   wall {wall:7.2f} s   "
              f"load {load:5.2f}", flush=True)
    print(f"  {label:<34} {'ratio before/after':<20} CPU {med[True][0] / med[False][0]:7.2f} x "
          f"  wall {med[True][1] / med[False][1]:7.2f} x", flush=True)
    return got


def _kernel_case(label, paired, B, repeats):
    rp = ranked_pair_of_ranks(paired)
    got = _compare_rows(label, lambda: rm.rank_permutation_scores(paired, B, 1, ranked=rp),
                        repeats)
    same = np.array_equal(got[True].view(np.uint64), got[False].view(np.uint64))
    print(f"  {label:<34} same bits: {same}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resamples", type=int, default=9_999)
    parser.add_argument("--binary", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="B = 999, one repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.resamples, args.repeats = 999, 1
    B = args.resamples
    rng = np.random.default_rng(0)
    print(f"permutations B = {B}, {os.cpu_count()} CPUs, numba threads "
          f"{numba.get_num_threads()}", flush=True)

    n = args.binary
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 2)
    b = np.round(rng.normal(size=n) + 1.2 * y, 2)
    _kernel_case(f"roc_auc binary N={n}", prepare_paired(y, a, b, "roc_auc"), B, args.repeats)

    n, K = args.items, 3
    y = rng.integers(0, K, n)
    pa = rng.dirichlet(np.ones(K), n)
    pb = 0.7 * pa + 0.3 * rng.dirichlet(np.ones(K), n) * np.eye(K)[y].sum(1, keepdims=True)
    pc = 0.8 * pa + 0.2 * np.eye(K)[y]
    for name, params in (("roc_auc_ovr", {}), ("average_precision", {"average": "macro"})):
        paired = prepare_paired(y, pa, pc, name, **params)
        _kernel_case(f"{name} {n}x{K}", paired, B, args.repeats)

    preds = {"a": pa, "b": pb, "c": pc}

    def run_compare():
        res = sigtest.compare(y, preds, metrics=["roc_auc_ovr"], random_state=0)
        frame = res.to_frame()
        return frame[["pvalue", "ci_low", "ci_high"]].to_numpy()

    got = _compare_rows(f"compare 3 systems roc_auc_ovr {n}x{K}", run_compare, args.repeats)
    same = np.array_equal(got[True], got[False])
    print(f"  compare p-values and intervals equal: {same}", flush=True)


if __name__ == "__main__":
    main()
