"""Shared pytest configuration: the hypothesis profiles.

``default``: 20 examples per property unless a test sets its own count (the
properties of ``tests/test_properties.py`` set theirs, about 500 in total,
through its ``budget`` helper), no deadline (the first call of a numba kernel
compiles it). ``explore``: 1000 examples per property, which
``tests/test_properties.py`` then uses instead of its own counts, for a
longer hunt (several minutes)::

    HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest -q tests/test_properties.py
"""

import os

from hypothesis import HealthCheck, settings

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
