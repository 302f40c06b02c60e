"""Run every benchmark script of this folder (``bench_*.py``) in sequence.

Each script runs in its own process (fresh imports, its own numba warm-up)
with this interpreter; extra command-line arguments are passed to every
script (e.g. ``--quick``). The exit code is non-zero if a script failed.

Usage: ``python benchmarks/run_all.py [args for the scripts]`` (``make bench``).
"""

import subprocess
import sys
import time
from pathlib import Path


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    here = Path(__file__).resolve().parent
    scripts = sorted(here.glob("bench_*.py"))
    if not scripts:
        print(f"no bench_*.py scripts in {here}")
        return 1
    failed = []
    for script in scripts:
        print(f"\n{'=' * 78}\n{script.name}\n{'=' * 78}", flush=True)
        t0 = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *args])
        print(f"[{script.name}: exit code {code}, {time.perf_counter() - t0:.1f} s]", flush=True)
        if code != 0:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    print(f"\nall {len(scripts)} benchmark script(s) ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
