"""Root pytest configuration: doctests of the package run with the test suite."""

from hypothesis import settings

# ``python -m sigtest`` runs the CLI on import; it has no doctests.
collect_ignore = ["sigtest/__main__.py"]

# Property tests are derandomized (the same examples on every run, like every
# other seeded test here) and have no per-example deadline, which a loaded
# 2-core CI machine could exceed. ``--hypothesis-profile=explore`` searches anew.
settings.register_profile("sigtest", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("sigtest")
