"""Import-time benchmark of sigtest (issue 9, section 5).

Every figure is the median wall time of ``--repeats`` (default 5) fresh
Python processes started with this interpreter, measured in the same run as
the reference ``import numpy`` so that the goals are differences against
numpy on the same machine and load:

* ``import sigtest``                      <= ``import numpy`` + 0.35 s
* ``sigtest --help``                      <  0.5 s
* ``import sigtest`` + first hard-label test in a new process < 1.0 s, the
  numba cache warm (one untimed run compiles or loads it first).

It also times ``from sigtest import compare`` followed by a compare of two
systems (accuracy, default tests) in a new process (no goal; information).

It also lists which heavy modules (scikit-learn, SciPy, pandas, numba,
joblib) a bare ``import sigtest`` and the first test load, and times other
entry points and the heavy dependencies alone (where the first test's time
goes). Run ``python benchmarks/bench_import.py [--repeats N]``; ``--quick``
means 3 repeats.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
HEAVY = ("sklearn", "scipy", "scipy.stats", "scipy.sparse", "scipy.special", "pandas",
         "numba", "joblib", "matplotlib")

FIRST_TEST = (
    "import numpy as np, sigtest\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 3, 500)\n"
    "a = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))\n"
    "b = np.where(rng.random(500) < 0.75, y, rng.integers(0, 3, 500))\n"
    "r = sigtest.BergKirkpatrickBootstrap(n_resamples=9999, random_state=0)"
    ".test(y, a, b, metric='{metric}')\n"
    "assert 0 <= r.pvalue <= 1\n"
)

FIRST_COMPARE = (
    "import numpy as np\n"
    "from sigtest import compare\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 3, 500)\n"
    "a = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))\n"
    "b = np.where(rng.random(500) < 0.75, y, rng.integers(0, 3, 500))\n"
    "res = compare(y, {'a': a, 'b': b}, metrics='accuracy', random_state=0)\n"
    "assert len(res.to_frame()) == 1\n"
)

STAGES = (
    "import time, json\n"
    "t0 = time.perf_counter()\n"
    "import numpy as np, sigtest\n"
    "t1 = time.perf_counter()\n"
    "import numba\n"
    "t2 = time.perf_counter()\n"
    "y = np.arange(500) % 3; a = y.copy(); a[:150] = 0; b = y.copy(); b[:120] = 1\n"
    "sigtest.BergKirkpatrickBootstrap(n_resamples=9999, random_state=0).test(y, a, b)\n"
    "t3 = time.perf_counter()\n"
    "sigtest.BergKirkpatrickBootstrap(n_resamples=9999, random_state=1).test(y, a, b)\n"
    "t4 = time.perf_counter()\n"
    "print(json.dumps([t1 - t0, t2 - t1, t3 - t2, t4 - t3]))\n"
)
STAGE_NAMES = ("import numpy + sigtest", "import numba", "first test (numba cache load)",
               "second test (the computation)")


def stage_times(repeats, env=None):
    """Median in-process times (s) of the stages of a first test (fresh processes)."""
    import json

    runs = []
    for _ in range(repeats):
        out = subprocess.run([PY, "-c", STAGES], capture_output=True, text=True, env=env,
                             check=True)
        runs.append(json.loads(out.stdout))
    return [statistics.median(r[i] for r in runs) for i in range(len(STAGE_NAMES))]


def _cli_command():
    script = Path(PY).with_name("sigtest")
    if script.exists():
        return [str(script), "--help"]
    return [PY, "-m", "sigtest", "--help"]


def time_command(cmd, repeats, env=None):
    """Median and all wall times (s) of ``repeats`` fresh runs of ``cmd``."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd} failed:\n{proc.stderr.decode()}")
    return statistics.median(times), times


def heavy_modules(code):
    """Heavy modules present in ``sys.modules`` after running ``code``."""
    probe = (
        f"{code}\nimport sys\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([PY, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.strip().split()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per figure")
    parser.add_argument("--quick", action="store_true", help="3 repeats")
    args, _ = parser.parse_known_args(argv)
    repeats = 3 if args.quick else args.repeats
    env = dict(os.environ)

    # warm the numba cache (and the OS file cache) before anything is timed
    for metric in ("accuracy", "f1_macro"):
        subprocess.run([PY, "-c", FIRST_TEST.format(metric=metric)], check=True, env=env)
    subprocess.run([PY, "-c", FIRST_COMPARE], check=True, env=env)

    rows = {}
    cases = [
        ("python -c pass", [PY, "-c", "pass"]),
        ("import numpy", [PY, "-c", "import numpy"]),
        ("import sigtest", [PY, "-c", "import sigtest"]),
        ("import sigtest.metrics", [PY, "-c", "import sigtest.metrics"]),
        ("from sigtest import compare", [PY, "-c", "from sigtest import compare"]),
        ("sigtest --help", _cli_command()),
        ("import + first test (accuracy)", [PY, "-c", FIRST_TEST.format(metric="accuracy")]),
        ("import + first test (f1_macro)", [PY, "-c", FIRST_TEST.format(metric="f1_macro")]),
        ("import + compare of two systems", [PY, "-c", FIRST_COMPARE]),
        # what the first test needs besides sigtest (information: where the time goes)
        ("import sklearn.base", [PY, "-c", "import sklearn.base"]),
        ("import numba", [PY, "-c", "import numba"]),
        ("import scipy.stats", [PY, "-c", "import scipy.stats"]),
        ("import pandas", [PY, "-c", "import pandas"]),
    ]
    print(f"median of {repeats} fresh processes ({PY}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f})\n")
    print(f"{'command':34s} {'median':>8s}   all runs (s)")
    for label, cmd in cases:
        med, times = time_command(cmd, repeats, env)
        rows[label] = med
        print(f"{label:34s} {med:8.3f}   {' '.join(f'{t:.3f}' for t in times)}", flush=True)

    numpy_t = rows["import numpy"]
    extra = rows["import sigtest"] - numpy_t
    goals = [
        ("import sigtest - import numpy", extra, 0.35, "s", extra <= 0.35),
        ("sigtest --help", rows["sigtest --help"], 0.5, "s", rows["sigtest --help"] < 0.5),
        ("import + first hard-label test", rows["import + first test (accuracy)"], 1.0, "s",
         rows["import + first test (accuracy)"] < 1.0),
    ]
    print(f"\n{'goal':34s} {'value':>8s} {'limit':>8s}  status")
    for label, value, limit, unit, ok in goals:
        print(f"{label:34s} {value:7.3f}{unit} {limit:7.2f}{unit}  {'PASS' if ok else 'MISS'}")
    print(f"\nratio import sigtest / import numpy: {rows['import sigtest'] / numpy_t:.2f}")
    print(f"ratio first test / import numpy:     "
          f"{rows['import + first test (accuracy)'] / numpy_t:.2f}")
    print("\nwhere the first test's time goes (in-process, median):")
    for label, value in zip(STAGE_NAMES, stage_times(repeats, env)):
        print(f"  {label:34s} {value:7.3f}s")
    print("\nheavy modules loaded by:")
    for label, code in (("import sigtest",) * 2, ("import sigtest.metrics",) * 2,
                        ("import sigtest.cli",) * 2,
                        ("first test", FIRST_TEST.format(metric="accuracy")),
                        ("compare of two systems", FIRST_COMPARE)):
        print(f"  {label:26s} {heavy_modules(code) or '[]'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
