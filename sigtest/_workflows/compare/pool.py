"""joblib calls that start worker processes only when the work pays for them.

A comparison's tasks (:mod:`sigtest._workflows.compare.run`, the rounds of
:mod:`sigtest._workflows.compare.shared`) are spread by joblib. With its
default backend (loky) the first parallel call of a process starts the
worker processes, and each one imports sigtest, numpy, pandas and numba and
loads the kernels from numba's cache before its first task: about
:data:`WORKER_START_SECONDS` of CPU each. :func:`run_calls` therefore runs
the tasks in this process, one after the other, while the remaining ones
are estimated (from the CPU time of those done) to take less than starting
the workers would cost, and hands the rest to joblib. Like renting skis
until their price is spent, the CPU time run here instead of in a cold pool
adds up over the calls of a process: once it exceeds that cost, the next
task starts the workers (so repeated small calls pay at most about twice
the start, and then use warm workers). When the workers
already run (a previous call started them), or with any other backend
(threads, dask, ...), every task goes to joblib as before. Each task's result
does not depend on where it runs, so neither does the comparison.
"""

import itertools
import time

import joblib

__all__ = ["WORKER_START_SECONDS", "cold_process_pool", "execute_calls", "run_calls"]

#: CPU seconds a new loky worker takes before its first task (interpreter,
#: sigtest and its dependencies imported, numba's kernels loaded from the
#: cache): measured 1.5-2.5 s on the project's 2-core machine.
WORKER_START_SECONDS = 2.0

# CPU seconds of tasks this process ran itself instead of starting a cold pool
_SPENT_HERE = 0.0


def cold_process_pool(n_jobs):
    """Whether joblib would start new worker processes for ``n_jobs`` jobs.

    True when ``n_jobs`` means several jobs, the active backend is loky
    (joblib's default) and its reusable pool has fewer live workers.
    """
    n = joblib.effective_n_jobs(n_jobs)
    if n <= 1:
        return False
    from joblib.parallel import get_active_backend

    backend, _ = get_active_backend()
    if type(backend).__name__ != "LokyBackend":  # threads, dask, ...: as configured
        return False
    try:
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor
        if executor is None or executor._flags.broken or executor._flags.shutdown:
            return True
        return len(executor._processes) < n
    except (ImportError, AttributeError):  # another joblib: assume they would start
        return True


def run_calls(make_call, weights, n_jobs, *, return_as="list"):
    """The results of ``make_call(t)`` (a ``joblib.delayed`` triple) for every task ``t``.

    ``weights[t]`` is the relative cost of task ``t``. With a cold process
    pool (:func:`cold_process_pool`) the tasks run here, in order, while the
    remaining ones are estimated (at the CPU time per weight of the tasks run
    here after the first, which may carry the process's one-time set-up) to
    cost less than ``n / (n - 1)`` worker
    starts (``n`` workers start together in :data:`WORKER_START_SECONDS`,
    then share the rest) and the CPU time this process has run so (summed over all
    calls) stays below the same bound; the others go to
    ``joblib.Parallel(n_jobs)``.
    Results come in task order (a list, or an iterator with
    ``return_as="generator"``), whatever ran where.
    """
    global _SPENT_HERE
    n_tasks = len(weights)
    here, start = [], 0
    if n_tasks and cold_process_pool(n_jobs):
        n = joblib.effective_n_jobs(n_jobs)
        limit = WORKER_START_SECONDS * n / (n - 1)
        total, done, spent = float(sum(weights)), 0.0, 0.0
        while start < n_tasks and _SPENT_HERE <= limit:
            t1 = time.process_time()
            func, args, kwargs = make_call(start)
            here.append(func(*args, **kwargs))
            cost = time.process_time() - t1
            _SPENT_HERE += cost
            start += 1
            if start == 1:
                # the first task may carry what a process pays once (numba setting
                # up its compiler and loading the first kernels from its cache),
                # which the others will not: the rate comes from the tasks after it
                first_weight = weights[0]
                continue
            done += weights[start - 1]
            spent += cost
            rest = (total - first_weight - done) * spent / max(done, 1e-12)
            if rest > limit:
                break
    if start == n_tasks:
        return here if return_as == "list" else iter(here)
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as=return_as)
    out = parallel(make_call(t) for t in range(start, n_tasks))
    if return_as == "list":
        return here + list(out)
    return itertools.chain(here, out)


def execute_calls(calls, weights, n_jobs):
    """:func:`run_calls` on a list of ``(function, args, kwargs)`` triples.

    The executor :func:`sigtest._engine.shared_job.run_shared_job` is
    handed: the results of ``calls`` in their order.
    """
    return run_calls(calls.__getitem__, weights, n_jobs)
