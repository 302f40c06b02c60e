"""Hand the memory a finished phase freed back to the operating system.

A comparison of many systems works in phases (plan, shared draws, the
pairs' rows, max-T, the frame), each freeing tens to hundreds of arrays of
a few MB (one float per pair: 4 MB at 1,000 systems). glibc's ``malloc``
serves such arrays from its heap once a freed one has raised its dynamic
``mmap`` threshold, and keeps the freed heap pages: the next phase, whose
arrays have other sizes, takes new pages, so the process's resident memory
grows by what each phase left behind rather than by what is alive (at
1,000 systems x 10^4 items, 0.36 GB of peak growth against 0.30 GB with
the pages handed back; docs/leaderboards.md). :func:`release_free_memory`
calls glibc's ``malloc_trim(0)``, which returns every free page of the heap
(``madvise``) without moving anything; it is what Dask's workers do for
the same reason. Elsewhere (macOS, Windows, musl) it does nothing.
"""

from __future__ import annotations

import sys

__all__ = ["RELEASE_MIN_PAIRS", "release_free_memory"]

#: Pairs from which a comparison hands back the memory each of its phases freed
#: (46 systems and more: below, what a phase frees is small).
RELEASE_MIN_PAIRS = 1000

_TRIM = []  # [malloc_trim or None], found on the first call


def _load_trim():
    """glibc's ``malloc_trim`` (among the process's own symbols), or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_free_memory():
    """Return the free pages of the C heap to the operating system (glibc; else nothing).

    Returns
    -------
    released : bool
        Whether glibc reported memory handed back (False where the call is
        not available).
    """
    if not _TRIM:
        _TRIM.append(_load_trim())
    return bool(_TRIM[0](0)) if _TRIM[0] is not None else False
