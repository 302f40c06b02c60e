"""Root pytest configuration: doctests of the package run with the test suite.

BLAS runs on one thread in the test processes (``SIGTEST_TEST_BLAS_THREADS``
sets another count). ``make test`` runs two processes on CI's two cores:
OpenBLAS's own threads (one per core in each process, in numpy's and in
scipy's copy of the library) only oversubscribe the cores, and their
spin-waiting on the small products of the tests burns CPU. Measured on the
max-T path of ``compare`` (4 systems, 460 items, B = 999, the macro-overall
simulation's design), 2026-12-03 at load 6-7: 65 -> 49 ms of CPU a call; the
shared bootstrap's product path (``_product_sums``, 460 units, 4 systems)
7.9 -> 2.0 ms. The results do not depend on BLAS's thread count (issue 20,
``tests/significance/test_bayesian_bootstrap.py``, which still compares
against several threads).
"""

import os

from hypothesis import settings

_BLAS_THREADS = int(os.environ.get("SIGTEST_TEST_BLAS_THREADS", "1"))
# libraries loaded from now on (scipy's OpenBLAS, subprocesses) read the variable;
# those already loaded (numpy's) are limited through threadpoolctl, here and
# again once the tests are collected (pytest_collection_finish)
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(_BLAS_THREADS))


def _limit_blas():
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    threadpool_limits(limits=_BLAS_THREADS, user_api="blas")


_limit_blas()


def pytest_collection_finish(session):
    """BLAS limited again after collection: the libraries the test modules loaded too."""
    _limit_blas()


# ``python -m sigtest`` runs the CLI on import; it has no doctests.
collect_ignore = ["sigtest/__main__.py"]

# Property tests are derandomized (the same examples on every run, like every
# other seeded test here) and have no per-example deadline, which a loaded
# 2-core CI machine could exceed. ``--hypothesis-profile=explore`` searches anew.
settings.register_profile("sigtest", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("sigtest")
