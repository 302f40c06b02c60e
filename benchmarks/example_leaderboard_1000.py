"""The 1,000-system example of docs/leaderboards.md: per-item 0/1 scores, defaults.

Prints the head of ``result.leaderboard()`` and writes the interactive page
(``--page``, default ``leaderboard_1000.html`` in the current folder), with
the wall and CPU seconds of each step, the load average and the peak RSS.
Run ``python benchmarks/example_leaderboard_1000.py [--systems K] [--items N]
[--page PATH]``.
"""

import argparse
import os
import resource
import time

import numpy as np

import sigtest


def _step(label, call):
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    out = call()
    print(f"# {label}: wall {time.perf_counter() - wall:.1f} s, CPU "
          f"{time.process_time() - cpu:.1f} s, load {load:.2f}", flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--page", default="leaderboard_1000.html")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    scores = {f"sys{j:04d}": (rng.random(args.items) < p).astype(float)
              for j, p in enumerate(np.linspace(0.5, 0.8, args.systems))}
    res = _step("compare", lambda: sigtest.compare(None, scores, metrics="mean",
                                                    random_state=0))
    board = _step("leaderboard()", res.leaderboard)
    print(f"# correction {res.correction}, draws {res.bootstrap}, "
          f"{len(res.to_frame()):,} pairs")
    print(board.head(12).to_string())
    _step("report('html')", lambda: res.report("html", path=args.page))
    print(f"# page {args.page}: {os.path.getsize(args.page) / 2**20:.1f} MB; peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB")


if __name__ == "__main__":
    main()
