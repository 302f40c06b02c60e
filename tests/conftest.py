"""Shared pytest configuration: the hypothesis profiles.

``default``: a few hundred examples in total over the property-based tests
(``tests/test_properties.py`` and the metric properties), no deadline (the
first call of a numba kernel compiles it). ``explore``: many more examples,
for a longer hunt::

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
