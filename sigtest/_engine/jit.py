"""The numba decorators of the kernels, with the on-disk cache wherever it can be written.

Every kernel is compiled with ``cache=True``: numba writes the machine code
next to the source (``__pycache__``) or, when the package folder is
read-only, in the user's cache folder (``~/.cache/numba``), or in
``NUMBA_CACHE_DIR`` when that is set, so that a new process loads the
kernels instead of compiling them. Where none of these can be written (a
read-only installation run by a user without a writable home, as in some
containers), numba refuses ``cache=True`` when the function is decorated,
and importing the kernels would fail: :func:`cached_jit` then points
numba's ``CACHE_DIR`` at a per-user folder of the temporary directory
(``sigtest-numba-<uid>``) and decorates again, and without the cache if that
fails too.

Loading a kernel from the cache does not need numba's set-up for compiling:
numba's own cache loader refreshes the target context first (imports ~60 of
numba's implementation modules and installs their typing and lowering
registries, ~0.3 s of CPU once per process, the largest part of a first call
with a warm cache), though the machine code it loads only needs the symbols
it links to. :func:`cached_jit` gives each kernel a cache loader
(:class:`KernelCache`) that registers those symbols (numba's runtime, its
hash secret; numba's C helpers and math functions are registered when its
target context is created) and loads; compiling, when the cache misses, sets
numba up as before. The machine code and thus the results are the same.

numba keeps a cached kernel while the source file of its own function is
unchanged (the index of the function's cache stores that file's
modification time and size) and the function's bytecode is the same. A
kernel calling the kernels of another module, or reading its constants, has
their machine code and values compiled into its own: changed alone, that
module would leave the caller's stale machine code in the cache.
:func:`cached_jit` therefore adds to that stamp a digest of the contents of
every module that holds kernels (:func:`kernel_sources`: the ``.py`` files
of this folder, whose subfolders hold none), computed once per process when
the first kernel is decorated (:func:`kernel_digest`, ~3 ms of CPU), with
numba's own cache loader too. Any change of their contents makes every
kernel compile again, once, numba overwriting the stale machine code as when
the kernel's own file changes; a checkout or a copy with the same contents
(new modification times) keeps the cache.
"""

import functools
import hashlib
import os
import tempfile

try:
    from numba import njit
    from numba.core.caching import FunctionCache
except ImportError:  # pragma: no cover - numba is a hard dependency

    def njit(*args, **kwargs):
        return (lambda f: f) if not args or not callable(args[0]) else args[0]

    FunctionCache = object

__all__ = ["KernelCache", "cached_jit", "kernel_digest", "kernel_sources", "njit",
           "source_digest", "temporary_cache_folder"]


def temporary_cache_folder():
    """The cache folder used when numba finds no writable one: ``<tmp>/sigtest-numba-<uid>``."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"sigtest-numba-{user}")


def kernel_sources():
    """The source files of sigtest's kernels: every module that defines or calls one.

    Returns
    -------
    list of str
        The ``.py`` files of the folder of this module (``sigtest/_engine``),
        sorted; its subfolders hold no kernels (``tests/engine/test_jit_cache.py``
        checks that every module of the package decorating a kernel is listed).
    """
    folder = os.path.dirname(os.path.abspath(__file__))
    return sorted(os.path.join(folder, name) for name in os.listdir(folder)
                  if name.endswith(".py"))


def source_digest(paths):
    """A digest of the names and contents of ``paths`` (not of their modification times).

    Parameters
    ----------
    paths : iterable of str
        Files, in the order they are hashed.

    Returns
    -------
    str
        The hexadecimal BLAKE2b digest (16 bytes) of every file's name, length
        and bytes; a file that cannot be read counts by its name and the error.
    """
    digest = hashlib.blake2b(digest_size=16)
    for path in paths:
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as error:  # removed or unreadable: changes the digest too
            data = repr(error).encode()
        digest.update(b"%s\0%d\0" % (os.path.basename(path).encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def kernel_digest():
    """:func:`source_digest` of :func:`kernel_sources`, computed once per process.

    Returns
    -------
    str
        The digest added to the stamp of every kernel's cache (see the module text).
    """
    return source_digest(kernel_sources())


def cached_jit(**options):
    """``njit(cache=True, **options)``, in a writable cache folder (see the module text),
    loading from the cache with :class:`KernelCache`, its stamp with :func:`kernel_digest`."""

    def decorate(func):
        try:
            return _loads_light(njit(cache=True, **options)(func))
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            import numba

            if numba.config.CACHE_DIR:  # a folder was chosen (by the user or here): no cache
                return njit(**options)(func)
            numba.config.CACHE_DIR = temporary_cache_folder()
            try:
                return _loads_light(njit(cache=True, **options)(func))
            except RuntimeError:
                return njit(**options)(func)

    return decorate


class KernelCache(FunctionCache):
    """numba's ``FunctionCache`` loading machine code without refreshing the target
    context (see the module text); saving, and compiling on a miss, are numba's.
    Its stamp holds :func:`kernel_digest` (set by :func:`cached_jit`, with numba's
    own loader too)."""

    def load_overload(self, sig, target_context):
        """The cached compile result of ``sig``, or None when it is not in the cache."""
        _register_symbols(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # pragma: no cover - the guard swallowed an I/O error


# what KernelCache.load_overload uses of numba's class (present since numba 0.49)
_LIGHT = all(hasattr(FunctionCache, name)
             for name in ("_load_overload", "_guard_against_spurious_io_errors"))


def _loads_light(dispatcher):
    """``dispatcher`` with its cache loader a :class:`KernelCache` (numba's own when the
    installed numba's cache lacks what it uses), its stamp keyed by the kernel sources."""
    cache = getattr(dispatcher, "_cache", None)
    if type(cache) is FunctionCache:
        _stamp_sources(cache)
        if _LIGHT:
            cache.__class__ = KernelCache  # the same state, one method overridden
    return dispatcher


def _stamp_sources(cache):
    """Add :func:`kernel_digest` to the source stamp of ``cache`` (a ``FunctionCache``).

    numba's index file stores the stamp of the function's own file (its
    modification time and size) and drops every entry when it differs (numba
    >= 0.58 keeps it as ``_cache_file._source_stamp``); with the digest in the
    stamp, a change of any kernel module drops them too, and numba overwrites
    the stale data files, where a digest in each entry's key would leave one
    more per change. ``tests/engine/test_jit_cache.py`` fails if a numba
    release moves the stamp.
    """
    index = getattr(cache, "_cache_file", None)
    if hasattr(index, "_source_stamp"):
        index._source_stamp = (index._source_stamp, kernel_digest())


def _register_symbols(target_context):
    """Register the symbols a kernel's machine code links to that numba registers only in
    its set-up: the runtime's (arrays passed in; ``rtsys.initialize`` compiles its few
    functions once) and the hash secret (registered when ``numba.cpython.hashing`` is
    imported). Python's C API, numba's C helpers and the C math functions are in the
    symbol table once the target context exists."""
    import numba.cpython.hashing  # noqa: F401 - registers _numba_hashsecret_* on import
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
