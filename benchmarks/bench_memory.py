"""Peak memory (RSS) beside time for the scale cases of issue 15 (sections 1 and 4).

Every case runs in its own subprocess (so one case's peak does not hide
another's) and reports the wall time of the timed call, the child's peak
resident set size (``VmHWM`` of ``/proc/self/status``, falling back to
``ru_maxrss``), the bytes of its input arrays and the ratio peak RSS / input
bytes, plus the baseline RSS of the process after importing sigtest, NumPy
and numba and generating the data (``base``), so the increase caused by the
call itself (``peak - base``) can be read too.

Cases
-----
``many_classes_K300``, ``many_classes_K1000``, ``many_classes_K3000``
    ``BergKirkpatrickBootstrap(n_resamples=1000)`` on f1_macro,
    precision_macro and recall_macro (one ``test()`` each, the same seed, so
    the three share one kernel run through the memo), N = 10**5 hard labels
    over K classes, ~60 % / 65 % accurate systems. K = 3000 runs only when
    named with ``--case`` (it needed more than 24 GB before issue 15).
``strings_1e7``
    accuracy, N = 10**7 string labels (``<U6``), B = 1000.
``soft_f1_macro_1e6``
    soft_f1_macro, N = 10**6, K = 10: one-hot ``y_true`` and two probability
    matrices (float64), B = 1000.

Run ``python benchmarks/bench_memory.py`` (all cases; about 10 minutes on 2
quiet cores, most of it the soft case) or ``--case NAME`` (one; repeatable),
``--quick`` (the K = 300 case only); ``--list`` names the cases. The numba kernels are compiled (or loaded from the
cache) by a warm-up call on small data before anything is timed. To measure
another checkout, run with ``PYTHONPATH=<checkout>``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

CASES = {
    "many_classes_K300": dict(kind="many", n=100_000, k=300, b=1000),
    "many_classes_K1000": dict(kind="many", n=100_000, k=1000, b=1000),
    # before issue 15 this case was killed at 24 GB: run it only on a version with
    # sparse cell rows (selected by --case only, not by default)
    "many_classes_K3000": dict(kind="many", n=100_000, k=3000, b=1000),
    "strings_1e7": dict(kind="strings", n=10_000_000, k=5, b=1000),
    "soft_f1_macro_1e6": dict(kind="soft", n=1_000_000, k=10, b=1000),
}


def _peak_rss_bytes():
    """Peak RSS of this process: VmHWM (Linux), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _current_rss_bytes():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0  # pragma: no cover


def _hard(n, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.60, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.65, y, rng.integers(0, k, n))
    return y, a, b


def _soft(n, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    pa = rng.dirichlet(np.ones(k), n)
    onehot = np.eye(k)[y]
    pb = 0.8 * pa + 0.2 * onehot
    return onehot, pa, pb


def _warm_up(kind):
    """Compile (or load) the kernels the case uses, on small data."""
    from sigtest import BergKirkpatrickBootstrap

    test = BergKirkpatrickBootstrap(n_resamples=20, random_state=0)
    if kind == "soft":
        y, pa, pb = _soft(200, 4)
        test.test(y, pa, pb, metric="soft_f1_macro")
    else:
        y, a, b = _hard(3000, 40)
        test.test(y, a, b, metric="f1_macro")
        test.test(y, a, b, metric="accuracy")


def run_case(name):
    """Run one case in this process; return a dict of its figures."""
    import warnings

    from sigtest import BergKirkpatrickBootstrap

    spec = CASES[name]
    _warm_up(spec["kind"])
    if spec["kind"] == "many":
        y, a, b = _hard(spec["n"], spec["k"])
        metrics = ["f1_macro", "precision_macro", "recall_macro"]
    elif spec["kind"] == "strings":
        y, a, b = _hard(spec["n"], spec["k"])
        names = np.array([f"lab{j:03d}" for j in range(spec["k"])])
        y, a, b = names[y], names[a], names[b]
        metrics = ["accuracy"]
    else:
        y, a, b = _soft(spec["n"], spec["k"])
        metrics = ["soft_f1_macro"]
    input_bytes = y.nbytes + a.nbytes + b.nbytes
    base = _current_rss_bytes()
    test = BergKirkpatrickBootstrap(n_resamples=spec["b"], random_state=0)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = [float(test.test(y, a, b, metric=m).pvalue) for m in metrics]
    seconds = time.perf_counter() - t0
    return dict(case=name, seconds=seconds, peak=_peak_rss_bytes(), base=base,
                input_bytes=input_bytes, metrics=metrics, pvalues=scores)


def run_in_child(name):
    """Run one case in a fresh interpreter; return its figures."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"case {name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _mb(x):
    return f"{x / 2**20:,.0f} MB"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES),
                        help="run only this case (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--quick", action="store_true",
                        help="only the K = 300 many-classes case (about 15 s)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(CASES))
        return 0
    if args.child:
        print(json.dumps(run_case(args.child)))
        return 0
    default = [name for name in CASES if name != "many_classes_K3000"]
    names = args.case or (["many_classes_K300"] if args.quick else default)
    print(f"{'case':<22}{'time':>10}{'peak RSS':>12}{'base RSS':>12}{'input':>10}"
          f"{'peak/input':>12}{'(peak-base)/input':>19}")
    for name in names:
        r = run_in_child(name)
        print(f"{name:<22}{r['seconds']:>9.1f}s{_mb(r['peak']):>12}{_mb(r['base']):>12}"
              f"{_mb(r['input_bytes']):>10}{r['peak'] / r['input_bytes']:>11.1f}x"
              f"{(r['peak'] - r['base']) / r['input_bytes']:>18.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
