"""Benchmark of the rank inference kernels against the NumPy formulation they replaced.

``rank_intervals`` (tiled numba sums and a maximum that skips tiles) and
``model_confidence_set`` (certified incremental elimination) against the
NumPy code kept in ``tests/engine/_ranking_reference.py``, on ``--systems``
(300) systems x ``--draws`` (9,999) shared draws of means of 0/1 scores
(accuracies 0.5-0.8 on ``--items`` 10^4 items, Gaussian draws as the
multiplier bootstrap gives them; ``--common`` adds a factor shared by all
systems: strongly correlated scores). ``T`` is passed F-contiguous, as
``ranks()`` passes the comparison's kept draws. Prints CPU seconds (this
process), wall seconds and the load average, the ratio, and whether the
outputs are the same bits.

Run ``python benchmarks/bench_ranking.py [--systems K] [--draws B] [--items N]
[--common RHO] [--no-reference]``.
"""

import argparse
import importlib.util
import os
import time
from pathlib import Path

import numpy as np

from sigtest._engine.ranking import model_confidence_set, rank_intervals

ROOT = Path(__file__).resolve().parents[1]


def _reference():
    spec = importlib.util.spec_from_file_location(
        "_ranking_reference", ROOT / "tests" / "engine" / "_ranking_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed(label, call):
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    out = call()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{label:<44} CPU {cpu:7.2f} s   wall {wall:7.2f} s   load {load:.2f}", flush=True)
    return out, cpu


def make_draws(k, B, n, common, seed=0):
    """``(theta, T)``: observed accuracies and ``B`` Gaussian draws of them (``B x k``, F order)."""
    rng = np.random.default_rng(seed)
    p = np.linspace(0.5, 0.8, k)
    theta = (rng.random((n, k)) < p).mean(axis=0)
    se = np.sqrt(theta * (1 - theta) / n)
    z = (np.sqrt(1 - common) * rng.standard_normal((k, B))
         + np.sqrt(common) * rng.standard_normal((1, B)))
    return theta, (theta[:, None] + se[:, None] * z).T  # a transposed (k, B) array


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--draws", type=int, default=9999)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--common", type=float, default=0.0)
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args(argv)
    theta, T = make_draws(args.systems, args.draws, args.items, args.common)
    print(f"## {args.systems} systems x {args.draws} draws, common factor {args.common} "
          f"({os.cpu_count()} cores)")
    small_t, small_T = make_draws(40, 200, 500, args.common, seed=1)
    rank_intervals(small_t, small_T)  # numba's cache loaded before the clock starts
    model_confidence_set(small_t, small_T)
    order = np.arange(args.systems)
    new_ri, c_ri = _timed("rank_intervals (kernels)", lambda: rank_intervals(theta, T))
    new_mcs, c_mcs = _timed("model_confidence_set (incremental)",
                            lambda: model_confidence_set(theta, T, tie_order=order))
    if args.no_reference:
        return
    ref = _reference()
    old_ri, o_ri = _timed("rank_intervals (NumPy reference)", lambda: ref.rank_intervals(theta, T))
    old_mcs, o_mcs = _timed("model_confidence_set (NumPy reference)",
                            lambda: ref.model_confidence_set(theta, T, tie_order=order))
    same = (all(np.array_equal(a, b) for a, b in zip(new_ri, old_ri))
            and all(np.array_equal(a, b) for a, b in zip(new_mcs, old_mcs)))
    print(f"CPU ratio reference / kernels: rank intervals {o_ri / c_ri:.1f}x, "
          f"best set {o_mcs / c_mcs:.1f}x; same bits: {same}; best set of "
          f"{int(new_mcs[0].sum())} systems")


if __name__ == "__main__":
    main()
