"""Run a nogil numba kernel on parts of its resamples in threads.

The resampling kernels are compiled with ``nogil=True`` and every resample
owns its random stream and its output row, so a kernel called on a
contiguous part of its resample keys returns exactly those rows of the
whole call. :func:`split_rows` runs the parts in a thread pool and stacks
them: the output is bit-identical to one serial call, for any thread count.

Threads instead of numba's ``parallel=True`` (``prange``) variants: one
compiled kernel serves the serial and the threaded calls, so a warm-up with
few resamples compiles (or loads from the on-disk cache) everything a large
call needs, a fresh environment compiles each kernel once instead of twice
(a ``parallel=True`` kernel compiles in about twice the time of its serial
twin), and no numba threading layer is started.
"""

import contextlib

import numpy as np

__all__ = ["numba_threads", "part_bounds", "run_parts", "split_rows", "thread_count"]

#: Parts per thread: a thread slowed by another process hands its later
#: parts to the others (the parts are small; results do not depend on them).
_PARTS_PER_THREAD = 4


@contextlib.contextmanager
def numba_threads(n_jobs):
    """Context: numba's thread count set from ``n_jobs`` (scikit-learn's convention).

    ``None`` or ``1`` leave it as it is (``1`` means the serial kernels, the
    caller passes ``parallel=False``); ``n > 1`` uses ``min(n, limit)``
    threads and ``-1`` all of them (``-2`` all but one, ...), ``limit``
    being ``numba.config.NUMBA_NUM_THREADS``. Restored on exit. The kernels'
    results do not depend on it (:func:`split_rows`).
    """
    if n_jobs is None or n_jobs == 1:
        yield
        return
    import numba

    before = numba.get_num_threads()
    limit = numba.config.NUMBA_NUM_THREADS
    wanted = min(int(n_jobs), limit) if n_jobs > 0 else limit + 1 + int(n_jobs)
    numba.set_num_threads(max(1, wanted))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def thread_count(parallel):
    """numba's thread count (``numba.set_num_threads``) when ``parallel``, else 1.

    Before numba's threading layer is launched (by ``numba.get_num_threads``
    or ``numba.set_num_threads``, which nobody has called then), the count
    is its default, ``numba.config.NUMBA_NUM_THREADS``: read from the
    configuration instead of launching the layer (~0.04 s of CPU on a first
    call; the kernels run in Python threads, :func:`split_rows`).
    """
    if not parallel:
        return 1
    try:
        import numba
        from numba.np.ufunc import parallel as _layer
    except ImportError:  # pragma: no cover - numba is a hard dependency
        return 1
    if not getattr(_layer, "_is_initialized", True):
        return max(1, int(numba.config.NUMBA_NUM_THREADS))
    return max(1, int(numba.get_num_threads()))


def part_bounds(n_rows, n_threads, align=1):
    """``(start, stop)`` of the contiguous parts of ``n_rows`` rows for ``n_threads`` threads.

    Parts start at multiples of ``align``; one part when ``n_threads`` is 1.
    """
    n_blocks = -(-n_rows // align)
    if n_blocks <= 1:
        return [(0, n_rows)]
    n_parts = max(1, min(n_blocks, int(n_threads) * (_PARTS_PER_THREAD if n_threads > 1 else 1)))
    per = -(-n_blocks // n_parts) * align
    return [(s, min(n_rows, s + per)) for s in range(0, n_rows, per)]


def run_parts(call, bounds, n_threads):
    """``[call(start, stop) for (start, stop) in bounds]``, in a pool of ``n_threads`` threads."""
    if len(bounds) == 1 or n_threads <= 1:
        return [call(s, e) for s, e in bounds]
    from concurrent.futures import ThreadPoolExecutor  # a few ms: only when threads run

    with ThreadPoolExecutor(max_workers=min(int(n_threads), len(bounds))) as pool:
        futures = [pool.submit(call, s, e) for s, e in bounds]
        return [f.result() for f in futures]


def split_rows(call, n_rows, parallel, align=1):
    """``call(start, stop)`` (rows ``start .. stop - 1`` of the output) on parts, stacked.

    ``call`` returns an array (or a tuple of arrays) whose first axis is the
    rows of its part; parts run in :func:`thread_count` threads when
    ``parallel`` and start at multiples of ``align``. The result equals
    ``call(0, n_rows)`` bit for bit.
    """
    n_threads = thread_count(parallel) if n_rows > 1 else 1
    parts = run_parts(call, part_bounds(n_rows, n_threads, align), n_threads)
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(p) for p in zip(*parts))
    return np.concatenate(parts)
