"""Helpers of the docs' sphinx-gallery configuration (importable by name, so cacheable)."""

import warnings
from pathlib import Path

#: Arguments a gallery script runs with (the full Table 2 replication takes minutes).
EXAMPLE_ARGV = {"reproduce_hlv_table2.py": ["--quick"]}


def example_argv(gallery_conf, script_vars):
    """Return the ``sys.argv[1:]`` of one example script."""
    return list(EXAMPLE_ARGV.get(Path(script_vars["src_file"]).name, []))


def format_warning(message, category, filename, lineno, line=None):
    """A warning as the gallery prints it: ``Category: message``.

    Python's default adds the file, line and source line of the call, which in
    the gallery are an absolute path of the machine that built the docs.
    """
    return f"{category.__name__}: {message}\n"


def plain_warnings(gallery_conf, fname):
    """``reset_modules`` hook: warnings of the next example print without a path."""
    warnings.formatwarning = format_warning
