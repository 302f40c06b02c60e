"""Sphinx configuration of sigtest's documentation site.

Build with ``make docs`` (warnings are errors) and open
``docs/_build/html/index.html``. The guides are the Markdown pages of this
folder (myst-parser), picked up by a glob toctree in ``index.md``; the API
reference is generated here, at build time, from ``__all__`` of ``sigtest``,
``sigtest.metrics``, ``sigtest.cv``, ``sigtest.plotting`` and
``sigtest.utils`` (autosummary), so a new page or a new public name appears
without editing the site; the gallery is built by sphinx-gallery from
``examples/``, whose scripts it executes.
"""

import inspect
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
import sigtest.cv  # noqa: E402
import sigtest.metrics  # noqa: E402
import sigtest.plotting  # noqa: E402
import sigtest.utils  # noqa: E402

project = "sigtest"
author = "The sigtest developers"
copyright = "2026, The sigtest developers"
release = sigtest.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]

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

#: Sections of the API page: (title, module, names). A name of a submodule
#: that ``sigtest`` re-exports is listed once, under ``sigtest``.
_MODULES = [
    ("Top level: ``sigtest``", sigtest),
    ("Metrics: ``sigtest.metrics``", sigtest.metrics),
    ("Cross-validation tests: ``sigtest.cv``", sigtest.cv),
    ("Plots: ``sigtest.plotting``", sigtest.plotting),
    ("Utilities: ``sigtest.utils``", sigtest.utils),
]


def _api_sections():
    top = {name: getattr(sigtest, name) for name in sigtest.__all__}
    sections = []
    for title, module in _MODULES:
        names = []
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue  # sigtest.metrics, sigtest.cv: sections of their own
            if module is not sigtest and any(obj is o for o in top.values()):
                continue  # documented as sigtest.<name>
            names.append(name)
        kinds = {"classes": [n for n in names if inspect.isclass(getattr(module, n))]}
        kinds["functions"] = [n for n in names if n not in kinds["classes"]]
        sections.append((title, module.__name__, kinds))
    return sections


def _write_api(path):
    """Write ``api/index.rst``: one autosummary table per module and kind."""
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name of sigtest, generated from the ``__all__`` of each public",
        "module when the site is built. Classes list their public methods and",
        "properties; every page shows the numpydoc docstring with its formula,",
        "references and seeded example.",
        "",
    ]
    for title, module, kinds in _api_sections():
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module}", ""]
        for kind, names in kinds.items():
            if not names:
                continue
            lines += [
                f".. rubric:: {kind.capitalize()}",
                "",
                ".. autosummary::",
                "   :toctree: generated",
                "   :nosignatures:",
                "",
            ]
            lines += [f"   {name}" for name in sorted(names, key=str.lower)]
            lines.append("")
    text = "\n".join(lines)
    path.parent.mkdir(exist_ok=True)
    if not path.exists() or path.read_text() != text:  # keep the mtime: no rebuild
        path.write_text(text)
    # a stub of a name no longer public would still be built (and fail to import)
    expected = {f"{module}.{name}.rst" for _, module, kinds in _api_sections()
                for names in kinds.values() for name in names}
    for stub in (path.parent / "generated").glob("*.rst"):
        if stub.name not in expected:
            stub.unlink()


_write_api(HERE / "api" / "index.rst")


def _write_cli(path):
    """Write the ``--help`` of ``sigtest`` and of each subcommand (included by cli.md)."""
    import argparse
    import contextlib
    import io

    from sigtest.cli import _build_parser

    parser = _build_parser()
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
sys.path.insert(0, str(HERE / "_ext"))

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # execute every example: a broken one breaks the build
    "ignore_pattern": r"__init__\.py",
    "reset_argv": "sigtest_gallery.example_argv",  # docs/_ext: --quick for the long one
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
html_show_sourcelink = False
