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
"""

import os
import tempfile

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is a hard dependency

    def njit(*args, **kwargs):
        return (lambda f: f) if not args or not callable(args[0]) else args[0]

__all__ = ["cached_jit", "njit", "temporary_cache_folder"]


def temporary_cache_folder():
    """The cache folder used when numba finds no writable one: ``<tmp>/sigtest-numba-<uid>``."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"sigtest-numba-{user}")


def cached_jit(**options):
    """``njit(cache=True, **options)``, in a writable cache folder (see the module text)."""

    def decorate(func):
        try:
            return njit(cache=True, **options)(func)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            import numba

            if numba.config.CACHE_DIR:  # a folder was chosen (by the user or here): no cache
                return njit(**options)(func)
            numba.config.CACHE_DIR = temporary_cache_folder()
            try:
                return njit(cache=True, **options)(func)
            except RuntimeError:
                return njit(**options)(func)

    return decorate
