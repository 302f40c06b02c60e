"""A kernel's cached machine code is dropped when any kernel module's contents change.

numba keeps a cached kernel while its own source file keeps its modification
time and size; a kernel calling a kernel of another module has that one's
machine code compiled in, so :func:`~sigtest._engine.jit.cached_jit` adds a
digest of the contents of every kernel module to the stamp. The processes
here run two throwaway modules (a callee and its caller) with their own
``NUMBA_CACHE_DIR``, the digest taken over those modules' files.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sigtest
from sigtest._engine import jit

CALLEE = """from sigtest._engine.jit import cached_jit


@cached_jit(nogil=True)
def step(x):
    return x + 1
"""

CALLER = """from sigtest._engine.jit import cached_jit
from st_callee import step


@cached_jit(nogil=True)
def twice_step(x):
    return 2 * step(x)
"""

# the caller's value and whether numba loaded or compiled it; "numba" as the second
# argument: numba's own stamp (what sigtest did before the digest)
SCRIPT = r"""
import glob, json, os, sys
folder = sys.argv[1]
sys.path.insert(0, folder)
from sigtest._engine import jit

jit.kernel_sources = lambda: sorted(glob.glob(os.path.join(folder, "*.py")))
jit.kernel_digest.cache_clear()
if sys.argv[2:] == ["numba"]:
    jit._stamp_sources = lambda cache: None
import st_caller

value = int(st_caller.twice_step(1))
stats = st_caller.twice_step.stats
print(json.dumps({"value": value, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def _modules(folder):
    folder.mkdir()
    (folder / "st_callee.py").write_text(CALLEE)
    (folder / "st_caller.py").write_text(CALLER)
    return folder


def _run(folder, cache, *mode):
    root = os.path.dirname(os.path.dirname(sigtest.__file__))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    env.pop("SIGTEST_DISABLE_NUMBA", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), *mode],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def _edit_callee(folder):
    path = folder / "st_callee.py"
    path.write_text(CALLEE.replace("x + 1", "x + 5"))  # the same size: only the contents differ


def test_a_changed_callee_module_recompiles_its_caller_and_a_touch_keeps_the_cache(tmp_path):
    folder = _modules(tmp_path / "src")
    cache = tmp_path / "cache"
    assert _run(folder, cache) == {"value": 4, "hits": 0, "misses": 1}
    assert _run(folder, cache) == {"value": 4, "hits": 1, "misses": 0}  # loaded
    _edit_callee(folder)
    assert _run(folder, cache) == {"value": 12, "hits": 0, "misses": 1}  # compiled again
    callee = folder / "st_callee.py"
    mtime = callee.stat().st_mtime
    os.utime(callee, (mtime + 100, mtime + 100))  # a new time, the same contents
    assert _run(folder, cache) == {"value": 12, "hits": 1, "misses": 0}


def test_numba_stamp_alone_loads_the_stale_caller(tmp_path):
    # the hazard the digest removes (and proof that the test above can fail)
    folder = _modules(tmp_path / "src")
    cache = tmp_path / "cache"
    assert _run(folder, cache, "numba") == {"value": 4, "hits": 0, "misses": 1}
    _edit_callee(folder)
    assert _run(folder, cache, "numba") == {"value": 4, "hits": 1, "misses": 0}  # stale: not 12


def test_source_digest_follows_contents_and_names_not_times(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    first = jit.source_digest([a, b])
    os.utime(a, (1, 1))
    assert jit.source_digest([a, b]) == first
    a.write_text("x = 3\n")
    assert jit.source_digest([a, b]) != first
    a.write_text("x = 1\n")
    assert jit.source_digest([a, b]) == first
    c = tmp_path / "c.py"
    b.rename(c)
    assert jit.source_digest([a, c]) != first
    assert jit.source_digest([a, b]) not in (first, jit.source_digest([a]))  # b is gone
    # the files are delimited: a byte moved from one file to the next is a change
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, first_text, second_text in [(one, "x = 1", "\ny = 2\n"),
                                            (two, "x = 1\n", "y = 2\n")]:
        folder.mkdir()
        (folder / "f.py").write_text(first_text)
        (folder / "g.py").write_text(second_text)
    assert (jit.source_digest([one / "f.py", one / "g.py"])
            != jit.source_digest([two / "f.py", two / "g.py"]))


# the decorators of the kernels (jit.py's own names and those modules alias it to)
_KERNEL = re.compile(r"cached_jit\(|\bnjit\(|^@_(jit|inner|ir_inline)\b", re.MULTILINE)


def test_kernel_sources_are_the_modules_of_the_folders_holding_kernels():
    package = Path(sigtest.__file__).parent
    kernels = {p.resolve() for p in package.rglob("*.py") if _KERNEL.search(p.read_text())}
    sources = {Path(p).resolve() for p in jit.kernel_sources()}
    assert len(kernels) > 10 and kernels <= sources
    # exactly the folders holding kernels, every module of each
    assert {p.parent for p in sources} == {p.parent for p in kernels}
    assert sources == {p.resolve() for folder in {p.parent for p in kernels}
                       for p in folder.glob("*.py")}
    assert jit.kernel_digest() == jit.source_digest(jit.kernel_sources())


def _stamp(dispatcher):
    cache = getattr(dispatcher, "_cache", None)
    if not hasattr(cache, "_cache_file"):  # pragma: no cover - numba disabled
        pytest.skip("numba disabled")
    return type(cache), cache._cache_file._source_stamp


def test_every_kernel_cache_stamp_holds_the_digest(monkeypatch):
    from sigtest._engine import kernels

    kind, stamp = _stamp(kernels._threshold)
    assert kind is jit.KernelCache
    assert isinstance(stamp, tuple) and stamp[1] == jit.kernel_digest()
    # numba's own loader (a numba without what KernelCache uses) gets the same stamp
    monkeypatch.setattr(jit, "_LIGHT", False)

    def plus_one(x):
        return x + 1

    kind, stamp = _stamp(jit.cached_jit()(plus_one))  # decorated, not compiled
    assert kind is jit.FunctionCache
    assert isinstance(stamp, tuple) and stamp[1] == jit.kernel_digest()
