"""Helpers of the docs' sphinx-gallery configuration (importable by name, so cacheable)."""

from pathlib import Path

#: Arguments a gallery script runs with (the full Table 2 replication takes minutes).
EXAMPLE_ARGV = {"reproduce_hlv_table2.py": ["--quick"]}


def example_argv(gallery_conf, script_vars):
    """Return the ``sys.argv[1:]`` of one example script."""
    return list(EXAMPLE_ARGV.get(Path(script_vars["src_file"]).name, []))
