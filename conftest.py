"""Root pytest configuration: doctests of the package run with the test suite."""

# ``python -m sigtest`` runs the CLI on import; it has no doctests.
collect_ignore = ["sigtest/__main__.py"]
