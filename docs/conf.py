"""Sphinx configuration of sigtest's documentation site.

Build with ``make docs`` (warnings are errors) and open
``docs/_build/html/index.html``. The guides are the Markdown pages of this
folder (myst-parser), picked up by a glob toctree in ``index.md``; the API
reference is generated here, at build time, from ``__all__`` of ``sigtest``,
``sigtest.metrics``, ``sigtest.cv`` and ``sigtest.plotting`` (autosummary, by
``_ext/sigtest_api.py``; the internal helpers of ``sigtest.utils`` are left
out), so a new page or a new public name appears without editing the site; the gallery is built by sphinx-gallery from
``examples/``, whose scripts it executes.
"""

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
# the gallery's scripts import the sigtest of this clone
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
)

import sigtest  # noqa: E402

project = "sigtest"
author = "The sigtest developers"
copyright = "2026, The sigtest developers"
release = sigtest.__version__
version = ".".join(release.split(".")[:2])

# docs/_ext is importable before the extensions load (the math renderer lives there)
sys.path.insert(0, str(HERE / "_ext"))

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx_gallery.gen_gallery",
    "sigtest_mathml",
]
# formulas become MathML when the pages are written (docs/_ext/sigtest_mathml.py):
# the site shows them from disk with no network (MathJax would load from a CDN)
html_math_renderer = "mathml"

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints",
                    "sg_execution_times.rst"]

# ---------------------------------------------------------------- Markdown pages
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 6  # GitHub-style anchors of every heading level
# Plain-Markdown pages (the house style) may skip heading levels (## after #,
# #### after ##); that is a matter of taste, not a broken page.
suppress_warnings = ["myst.header"]

# ---------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False

# the sections and the page are written by docs/_ext/sigtest_api.py (public
# names only: importable by the tests, which check that no internal helper
# of sigtest.utils is listed)
from sigtest_api import write_api  # noqa: E402

write_api(HERE / "api" / "index.rst")


def _write_cli(path):
    """Write the ``--help`` of ``sigtest`` and of each subcommand (included by cli.md)."""
    import argparse
    import contextlib
    import io

    from sigtest._cli.parser import build_parser

    parser = build_parser()
    parts = [("sigtest", parser)]
    for action in parser._actions:  # the subcommands, whatever they are
        if isinstance(action, argparse._SubParsersAction):
            parts += [(f"sigtest {name}", sub) for name, sub in action.choices.items()]
    chunks = []
    for title, sub in parts:
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            sub.print_help()
        chunks += [f"### `{title}`", "", "```text", text.getvalue().rstrip(), "```", ""]
    text = "\n".join(chunks)
    path.parent.mkdir(exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


os.environ.setdefault("COLUMNS", "88")  # argparse wraps the help at this width
_write_cli(HERE / "api" / "cli_reference.txt")

# ---------------------------------------------------------------- gallery

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # execute every example: a broken one breaks the build
    "ignore_pattern": r"__init__\.py",
    "reset_argv": "sigtest_gallery.example_argv",  # docs/_ext: --quick for the long one
    # warnings print as "Category: message", without the builder's absolute path
    "reset_modules": ("matplotlib", "sigtest_gallery.plain_warnings"),
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "write_computation_times": False,
    "min_reported_time": 10_000,
}

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"sigtest {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
}
html_static_path = []
# every page's left column lists the whole guide in reading order (the theme's
# default lists only a page's own sub-pages: empty for these one-page sections)
html_sidebars = {"**": ["sidebar-guide"], "index": []}
html_show_sourcelink = False
