"""A new process loads its kernels from numba's on-disk cache, and a small
warm-up loads everything a large call needs (no second compilation).

Both run in fresh processes with an empty temporary ``NUMBA_CACHE_DIR``: the
first process compiles and writes the cache, the second must compile
nothing (numba's ``numba:compile`` event fires only on a compilation, not on
a cache load).
"""

import json
import os
import subprocess
import sys

import numpy as np

import sigtest
from sigtest._engine.threads import part_bounds, split_rows

# a bootstrap test with few resamples and one with 10^4 threaded ones, then a
# compare (default tests: Monte Carlo permutation, BCa); prints the kernels numba
# compiled, the cache hits, the kernels the large call added, whether numba's
# set-up for compiling ran (it imports its implementation modules, the unicode
# one among them) and a digest of the results
SCRIPT = r"""
import gc, hashlib, json, sys
import numpy as np
from numba.core import event
from numba.core.registry import CPUDispatcher

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())

from sigtest import BergKirkpatrickBootstrap, compare


def kernels():
    return {(d.py_func.__qualname__, str(sig)) for d in gc.get_objects()
            if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("sigtest")
            for sig in d.overloads}


rng = np.random.default_rng(0)
y = rng.integers(0, 5, 2000)
a = np.where(rng.random(2000) < 0.7, y, rng.integers(0, 5, 2000))
b = np.where(rng.random(2000) < 0.75, y, rng.integers(0, 5, 2000))
small = BergKirkpatrickBootstrap(n_resamples=99, random_state=0).test(y, a, b, metric="f1_macro")
before = kernels()
# 10^4 resamples x 125 cells: enough work for the threaded call (parallel=True)
large = BergKirkpatrickBootstrap(n_resamples=10_000, random_state=0).test(y, a, b,
                                                                          metric="f1_macro")
added = sorted(name for name, _ in kernels() - before)
res = compare(y, {"a": a, "b": b, "c": y}, metrics=["accuracy", "f1_macro"], random_state=0)
hits = sum(sum(d.stats.cache_hits.values()) for d in gc.get_objects()
           if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("sigtest"))
digest = hashlib.sha256(repr((small, large, res.to_frame().to_dict("list"))).encode()).hexdigest()
print(json.dumps({"compiled": compiled, "hits": hits, "added": added, "digest": digest,
                  "set_up": "numba.cpython.unicode" in sys.modules}))
"""


def _run(cache_dir):
    root = os.path.dirname(os.path.dirname(sigtest.__file__))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir),
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    env.pop("SIGTEST_DISABLE_NUMBA", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_second_process_loads_every_kernel_from_the_cache(tmp_path):
    first = _run(tmp_path)
    assert first["compiled"], "the first process found a filled cache: the test proves nothing"
    second = _run(tmp_path)
    assert second["compiled"] == []
    assert second["hits"] > 0
    # loaded without numba's set-up for compiling (KernelCache), with the same results
    assert first["set_up"] and not second["set_up"]
    assert second["digest"] == first["digest"]
    # the large threaded call runs the kernels the warm-up loaded (no parallel twin)
    assert first["added"] == [] and second["added"] == []


def test_part_bounds_cover_the_rows_in_aligned_parts():
    for n, threads, align in [(10, 1, 1), (10_000, 2, 1), (1000, 3, 64), (5, 8, 1), (0, 2, 1)]:
        bounds = part_bounds(n, threads, align)
        assert bounds[0][0] == 0 and bounds[-1][1] == n
        assert all(e == s2 for (_, e), (s2, _) in zip(bounds, bounds[1:]))
        assert all(s % align == 0 for s, _ in bounds)
        assert len(bounds) <= max(1, 4 * threads)
    assert part_bounds(10_000, 1) == [(0, 10_000)]


def test_split_rows_equals_one_call():
    # parts of rows (and tuples of arrays) stacked in order, whatever the parts
    def call(s, e):
        return np.arange(s, e, dtype=float)[:, None] * [1.0, 2.0], np.arange(s, e)

    whole = call(0, 1001)
    for parallel in (False, True):
        got = split_rows(call, 1001, parallel)
        np.testing.assert_array_equal(got[0], whole[0])
        np.testing.assert_array_equal(got[1], whole[1])


THREADS = r"""
import json, os, numba
from numba.np.ufunc import parallel as layer
from sigtest._engine.threads import thread_count
before = thread_count(True)
launched = layer._is_initialized
print(json.dumps({"before": before, "launched": launched, "serial": thread_count(False),
                  "numba": numba.get_num_threads(), "after": thread_count(True)}))
"""


def test_thread_count_reads_numba_default_without_launching_its_threading_layer():
    env = dict(os.environ, NUMBA_NUM_THREADS="2", PYTHONPATH=os.pathsep.join(filter(None, [
        os.path.dirname(os.path.dirname(sigtest.__file__)), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.splitlines()[-1])
    # the count numba gives once launched, without launching it (no threads, no library)
    assert got == {"before": 2, "launched": False, "serial": 1, "numba": 2, "after": 2}


# numba finds no writable cache folder (read-only package folder, no writable
# home): every locator but a folder under the temporary directory fails
READ_ONLY = r"""
import json, os, tempfile
import numpy as np
import numba.core.caching as caching

allowed = os.path.join(tempfile.gettempdir(), "sigtest-numba-")
real = caching._CacheLocator.ensure_cache_path


def ensure_cache_path(self):
    if not self.get_cache_path().startswith(allowed):
        raise OSError("read-only")
    return real(self)


caching._CacheLocator.ensure_cache_path = ensure_cache_path
import numba
from sigtest._engine import kernels as K
from sigtest._engine.jit import temporary_cache_folder

assert int(K._threshold(np.uint64(7))) == 2**32 % 7
print(json.dumps({"folder": numba.config.CACHE_DIR == temporary_cache_folder(),
                  "hits": sum(K._threshold.stats.cache_hits.values()),
                  "misses": sum(K._threshold.stats.cache_misses.values())}))
"""


def test_kernels_cache_in_a_temporary_folder_when_no_folder_is_writable(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(
                   sigtest.__file__)), os.environ.get("PYTHONPATH")])))
    for name in ("NUMBA_CACHE_DIR", "SIGTEST_DISABLE_NUMBA", "NUMBA_DISABLE_JIT"):
        env.pop(name, None)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", READ_ONLY], capture_output=True, text=True,
                             env=env)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.splitlines()[-1]))
    assert runs[0] == {"folder": True, "hits": 0, "misses": 1}
    assert runs[1] == {"folder": True, "hits": 1, "misses": 0}  # loaded, not compiled
    assert any(name.startswith("sigtest-numba-") for name in os.listdir(tmp_path))


def test_compare_of_metrics_with_statistics_imports_no_rank_module():
    # the rank modules (ROC AUC, average precision) and their kernels are imported
    # on a first rank metric: a first compare of accuracy and f1_macro never does,
    # nor its per-system score intervals
    script = (
        "import sys, numpy as np\n"
        "from sigtest import compare\n"
        "rng = np.random.default_rng(0)\n"
        "y = rng.integers(0, 3, 300)\n"
        "res = compare(y, {'a': y, 'b': (y + (rng.random(300) < 0.3)) % 3},\n"
        "              metrics=['accuracy', 'f1_macro'], random_state=0)\n"
        "res.scores()  # the per-system intervals (the command line prints them)\n"
        "print(sorted(m for m in sys.modules if m.startswith('sigtest._engine.rank')))\n"
        "from sigtest import BergKirkpatrickBootstrap\n"
        "s = rng.random(300)\n"
        "BergKirkpatrickBootstrap(n_resamples=99).test(y == 0, s, s[::-1], metric='roc_auc')\n"
        "print('sigtest._engine.rank_metrics' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        os.path.dirname(os.path.dirname(sigtest.__file__)), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-2:] == ["[]", "True"]
