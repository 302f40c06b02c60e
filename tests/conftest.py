"""Shared pytest configuration: the hypothesis profiles.

``default``: 20 examples per property unless a test sets its own count (the
properties of ``tests/test_properties.py`` set theirs, about 500 in total,
through its ``budget`` helper), no deadline (the first call of a numba kernel
compiles it). ``explore``: 1000 examples per property, which
``tests/test_properties.py`` then uses instead of its own counts, for a
longer hunt (several minutes)::

    HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest -q tests/test_properties.py

``make test`` runs the suite on two processes (pytest-xdist, ``-n 2 --dist
worksteal``; ``PYTEST_WORKERS=0`` runs it in one). In its workers the tests marked ``slow`` (the simulations of
tens of seconds each) come first, so that no long test starts last while
the other worker idles; the order of the rest is unchanged. Every test is
seeded on its own and cleans up what it changes (numba's thread count,
warning filters, environment through ``monkeypatch``), so it passes in any
order and either process. Both processes share numba's on-disk cache:
numba writes each cache file whole under a temporary name and renames it,
which its documentation calls safe for concurrent readers and writers
(tried: the suite on two processes from an empty ``NUMBA_CACHE_DIR``, as
on a fresh clone).

The tests live in folders that mirror the package (``engine``,
``significance``, ``metrics``, ``workflows``, ``workflows/compare``,
``report``, ``store``, ``cli``, ``utils``); the checks of the whole package
stay here at the top. Helpers shared across folders (``_chromium``,
``_runs_data``) sit here too and are imported by name: this folder is put
on ``sys.path`` below (a helper used by one folder sits in that folder,
which pytest puts on the path of its tests).
"""

import os
import sys

from hypothesis import HealthCheck, settings

# the shared helpers at the top of tests/ import by name from every folder
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

settings.register_profile(
    "default",
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker, the slow simulations first (stable: same order in every worker)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
