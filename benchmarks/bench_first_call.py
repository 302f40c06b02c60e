"""First-call benchmark: what a new process pays before its first result.

Every case runs in fresh Python processes started with this interpreter and
prints the median wall time, the median CPU seconds of the process (and of
its workers: ``getrusage(RUSAGE_CHILDREN)`` here, ``psutil`` in the
``n_jobs`` case, as in ``bench_compare.py``) and the load average, since
wall times on a loaded machine mislead and CPU seconds hold. The floor is
the import of what a comparison needs anyway (numpy, pandas, scipy.stats,
scikit-learn, numba); the goals are CPU seconds above it, measured in the
same run:

* first ``compare`` (3 systems, N = 10^4, accuracy + f1_macro, default
  tests) with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
  folder per run): goal <= floor + 2 s;
* the same with the cache filled by an untimed run: goal <= floor + 0.5 s;
* ``sigtest compare gold.csv a.csv b.csv`` (N = 10^4), cache filled:
  goal <= floor + 0.5 s;
* a warm-up call with ``n_resamples=99`` then ``B = 10^4`` in one process:
  the kernels compiled or loaded from the cache during the large call
  (goal: none);
* 30 systems x 4 metrics, ``BergKirkpatrickBootstrap(n_resamples=10^4)``,
  N = 10^4: the first call of a process with ``n_jobs=1`` and with
  ``n_jobs=2`` (goal: ``n_jobs=2`` not slower).

Every case runs with Python's bytecode cache filled (``PYTHONPYCACHEPREFIX``
a folder of the run, filled by the untimed first runs, and
``PYTHONDONTWRITEBYTECODE`` unset), as an installed sigtest has it (``pip``
compiles the bytecode when it installs): with ``PYTHONDONTWRITEBYTECODE=1``
and no ``__pycache__``, as in the project's sessions, every new process
compiles sigtest's ~150 modules again, ~0.25-0.3 s of CPU that figures taken
so counted in the first call. One row shows that case for comparison.

Then what the cold first ``compare`` compiles: every function numba compiles
(numba's ``numba:compile`` events), with its CPU seconds less those of the
functions compiled inside it, and the rest of the call (numba's one-time set
up on the first compilation, the work itself).

Run ``python benchmarks/bench_first_call.py [--repeats N] [--quick]
[--python PATH]`` (``--quick``: 1 repeat, and 10 systems in the ``n_jobs``
case; ``--python``: run every case in that interpreter, e.g. a clean virtual
environment holding only sigtest's runtime dependencies, as a user's
``pip install sigtest`` makes it, where the project's development
environment has more: cffi, pulled in by the test extras, makes numba import
its C parser on its first kernel load). The ``n_jobs`` case then needs
psutil in that interpreter for the workers' CPU seconds (without it they
count as 0).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
FLOOR = "import numpy, pandas, scipy.stats, sklearn, numba"

COMPARE = (
    "import numpy as np\n"
    "from sigtest import compare\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 3, 10_000)\n"
    "preds = {k: np.where(rng.random(10_000) < p, y, rng.integers(0, 3, 10_000))\n"
    "         for k, p in (('a', 0.7), ('b', 0.75), ('c', 0.72))}\n"
    "res = compare(y, preds, metrics=['accuracy', 'f1_macro'], random_state=0)\n"
    "assert len(res.to_frame()) == 6\n"
)

# a warm-up with few resamples, then the large call: the kernels numba compiles or
# loads from its cache during the latter (new overloads of sigtest's kernels)
WARMUP_THEN_LARGE = (
    "import gc\n"
    "import numpy as np\n"
    "from numba.core.registry import CPUDispatcher\n"
    "from sigtest import BergKirkpatrickBootstrap\n"
    "def overloads():\n"
    "    return sum(len(d.overloads) for d in gc.get_objects()\n"
    "               if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith('sigtest'))\n"
    "rng = np.random.default_rng(0)\n"
    "y = rng.integers(0, 5, 10_000)\n"
    "a = np.where(rng.random(10_000) < 0.7, y, rng.integers(0, 5, 10_000))\n"
    "b = np.where(rng.random(10_000) < 0.75, y, rng.integers(0, 5, 10_000))\n"
    "BergKirkpatrickBootstrap(n_resamples=99, random_state=0).test(y, a, b, metric='f1_macro')\n"
    "before = overloads()\n"
    "BergKirkpatrickBootstrap(n_resamples=10_000, random_state=0).test(y, a, b, metric='f1_macro')\n"
    "print(overloads() - before)\n"
)

# the cold first compare with numba's compile events: per compiled function, the CPU
# seconds of its compilation less those of the functions compiled inside it
COMPILE_PROFILE = (
    "import json, time\n"
    f"{FLOOR}\n"
    "from numba.core import event\n"
    "stack, rows = [], []\n"
    "class Compiles(event.Listener):\n"
    "    def on_start(self, ev):\n"
    "        f = ev.data['dispatcher'].py_func\n"
    "        stack.append([f'{f.__module__}.{f.__qualname__}', time.process_time(), 0.0])\n"
    "    def on_end(self, ev):\n"
    "        name, t0, inner = stack.pop()\n"
    "        dt = time.process_time() - t0\n"
    "        if stack:\n"
    "            stack[-1][2] += dt\n"
    "        rows.append((name, dt - inner))\n"
    "event.register('numba:compile', Compiles())\n"
    "c0 = time.process_time()\n"
    + COMPARE +
    "print(json.dumps({'call': time.process_time() - c0, 'rows': rows}))\n"
)

N_JOBS_CALL = (
    "import json, os, sys, time\n"
    "sys.path.insert(0, {here!r})\n"
    "from bench_compare import METRICS, _cpu_seconds, make_data\n"
    "from sigtest import BergKirkpatrickBootstrap, compare\n"
    "y, preds = make_data({systems}, 10_000)\n"
    "c0, t0 = _cpu_seconds(), time.perf_counter()\n"
    "compare(y, preds, metrics=METRICS, n_jobs={n_jobs}, random_state=0,\n"
    "        test=BergKirkpatrickBootstrap(n_resamples=10_000, alternative='two-sided'))\n"
    "wall = time.perf_counter() - t0\n"
    "print(json.dumps([wall, *[(a or 0.0) - (b or 0.0) for a, b in zip(_cpu_seconds(), c0)]]))\n"
)


def timed(cmd, env):
    """Wall and CPU seconds (the child's, from ``getrusage``) of one fresh process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{proc.stderr}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, proc.stdout


def median_run(cmd, repeats, env, fresh_cache=False):
    """Median wall and CPU of ``repeats`` runs (each with an empty numba cache if asked)."""
    walls, cpus = [], []
    for _ in range(repeats):
        run_env = dict(env)
        tmp = None
        if fresh_cache:
            tmp = tempfile.mkdtemp(prefix="sigtest-numba-")
            run_env["NUMBA_CACHE_DIR"] = tmp
        try:
            wall, cpu, _ = timed(cmd, run_env)
        finally:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def csv_files(folder, n=10_000, seed=0):
    """``gold.csv``, ``a.csv``, ``b.csv``: one label per line, 3 classes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    paths = [Path(folder) / name for name in ("gold.csv", "a.csv", "b.csv")]
    np.savetxt(paths[0], y, fmt="%d")
    for path, acc in zip(paths[1:], (0.7, 0.75)):
        np.savetxt(path, np.where(rng.random(n) < acc, y, rng.integers(0, 3, n)), fmt="%d")
    return [str(p) for p in paths]


def _cli(args):
    script = Path(PY).with_name("sigtest")
    return [str(script), *args] if script.exists() else [PY, "-m", "sigtest", *args]


def _load():
    return os.getloadavg()[0]


def with_bytecode(env, folder):
    """``env`` with Python's bytecode cache in ``folder`` (written once, then read)."""
    env = dict(env, PYTHONPYCACHEPREFIX=str(folder))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def without_bytecode(env):
    """``env`` as in the project's sessions: no bytecode written, so a source tree
    without ``__pycache__`` is compiled at every start (site-packages keep theirs)."""
    env = dict(env, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def print_compile_profile(env):
    """What the cold first compare compiles, per function (CPU seconds, one process)."""
    with tempfile.TemporaryDirectory(prefix="sigtest-numba-") as tmp:
        _, _, out = timed([PY, "-c", COMPILE_PROFILE], dict(env, NUMBA_CACHE_DIR=tmp))
    found = json.loads(out.splitlines()[-1])
    per = {}
    for name, cpu in found["rows"]:
        count, total = per.get(name, (0, 0.0))
        per[name] = (count + 1, total + cpu)
    compiled = sum(cpu for _, cpu in per.values())
    print(f"\ncold first compare: {found['call']:.2f} s CPU above the import floor, "
          f"{compiled:.2f} s of it compiling (load {_load():.2f})")
    for name, (count, cpu) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        print(f"  {cpu:5.2f} s  {name}" + (f"  ({count} signatures)" if count > 1 else ""))
    print(f"  {found['call'] - compiled:5.2f} s  the rest: importing sigtest, numba's set-up "
          "on its first compilation, the work")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 10 systems for n_jobs")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter that runs the cases (default: this one)")
    args, _ = parser.parse_known_args(argv)
    global PY
    PY = args.python
    repeats = 1 if args.quick else args.repeats
    systems = 10 if args.quick else 30
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent)
    rows = {}

    def show(label, wall, cpu, extra="", load=None):
        rows[label] = (wall, cpu)
        load = _load() if load is None else load
        print(f"{label:46s} {wall:7.2f} s  [{cpu:5.2f} s CPU]  load {load:5.2f}{extra}",
              flush=True)

    print(f"{PY}, {os.cpu_count()} CPUs; median of {repeats} fresh process(es); "
          "wall time, [CPU seconds of the process and its children], load average\n")
    with tempfile.TemporaryDirectory(prefix="sigtest-bench-") as folder:
        env = with_bytecode(env, Path(folder) / "pyc")
        cache = dict(env, NUMBA_CACHE_DIR=str(Path(folder) / "numba"))
        files = csv_files(folder)
        cli = _cli(["compare", *files])
        # untimed: fill the numba cache and the bytecode cache
        subprocess.run([PY, "-c", FLOOR], env=cache, check=True)
        subprocess.run([PY, "-c", COMPARE], env=cache, check=True)
        subprocess.run(cli, env=cache, check=True, stdout=subprocess.DEVNULL)
        nopyc = without_bytecode(cache)
        # one process of each case per round, the rounds in turn: the floor and
        # the calls see the same load
        cases = {
            "import floor (numpy pandas scipy.stats sklearn numba)": ([PY, "-c", FLOOR], cache),
            "first compare, empty numba cache": ([PY, "-c", COMPARE], env, True),
            "first compare, numba cache filled": ([PY, "-c", COMPARE], cache),
            "sigtest compare gold.csv a.csv b.csv": (cli, cache),
            "floor, PYTHONDONTWRITEBYTECODE=1": ([PY, "-c", FLOOR], nopyc),
            "first compare, cache filled, no bytecode": ([PY, "-c", COMPARE], nopyc),
        }
        runs = {label: [] for label in cases}
        for _ in range(repeats):
            for label, (cmd, run_env, *fresh) in cases.items():
                runs[label].append((*median_run(cmd, 1, run_env, fresh_cache=bool(fresh)),
                                    _load()))
        for label, found in runs.items():  # medians of the rounds (load: after each run)
            wall, cpu, load = (statistics.median(col) for col in zip(*found))
            show(label, wall, cpu, load=load)
        wall, cpu, out = timed([PY, "-c", WARMUP_THEN_LARGE], cache)
        compiles = int(out.split()[-1])
        print(f"{'kernels loaded by B=10^4 after a B=99 warm-up':46s} {compiles:7d}", flush=True)
        child_env = dict(cache, PYTHONPATH=os.pathsep.join(
            [here, *filter(None, [env.get("PYTHONPATH")])]))
        n_jobs = {}
        # untimed: fills the cache with the kernels of this case (the shared resamples')
        timed([PY, "-c", N_JOBS_CALL.format(here=here, systems=systems, n_jobs=1)], child_env)
        for nj in (1, 2):
            _, _, out = timed([PY, "-c", N_JOBS_CALL.format(here=here, systems=systems,
                                                            n_jobs=nj)], child_env)
            wall, own, workers = json.loads(out.splitlines()[-1])
            n_jobs[nj] = wall
            show(f"{systems} systems x 4 metrics BK, first call n_jobs={nj}", wall, own + workers,
                 f"  (process {own:.2f}, workers {workers:.2f})")
        print_compile_profile(env)

    floor = rows["import floor (numpy pandas scipy.stats sklearn numba)"][1]
    goals = [
        ("cold first compare - floor (CPU)",
         rows["first compare, empty numba cache"][1] - floor, 2.0),
        ("warm first compare - floor (CPU)",
         rows["first compare, numba cache filled"][1] - floor, 0.5),
        ("CLI compare - floor (CPU)", rows["sigtest compare gold.csv a.csv b.csv"][1] - floor, 0.5),
        ("  warm, PYTHONDONTWRITEBYTECODE=1 (CPU)",
         rows["first compare, cache filled, no bytecode"][1]
         - rows["floor, PYTHONDONTWRITEBYTECODE=1"][1], 0.5),
        ("kernels loaded after the warm-up", compiles, 0),
        ("first n_jobs=2 / n_jobs=1 (wall)", n_jobs[2] / n_jobs[1], 1.0),
    ]
    print(f"\n{'goal':40s} {'value':>8s} {'limit':>8s}  status")
    for label, value, limit in goals:
        print(f"{label:40s} {value:8.2f} {limit:8.2f}  {'PASS' if value <= limit else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
