"""The API reference page of the docs site (``docs/api/index.rst``), written by ``conf.py``.

Every public name of sigtest: the ``__all__`` of each public module, one
autosummary table per module and kind. ``sigtest.utils`` is not a public
module (its ``check_random_state_seed``, ``find_stack_level`` and
``warn_external`` are internal helpers shared by sigtest's own modules), so
it has no section, and :func:`api_sections` refuses any name that is
private (``_name``) or defined in ``sigtest.utils``.
"""

import inspect

import sigtest
import sigtest.cv
import sigtest.metrics
import sigtest.plotting

#: Sections of the API page: (title, module). A name of a submodule that
#: ``sigtest`` re-exports is listed once, under ``sigtest``.
MODULES = [
    ("Top level: ``sigtest``", sigtest),
    ("Metrics: ``sigtest.metrics``", sigtest.metrics),
    ("Cross-validation tests: ``sigtest.cv``", sigtest.cv),
    ("Plots: ``sigtest.plotting``", sigtest.plotting),
]

#: Packages whose objects are internal, whatever ``__all__`` re-exports them.
INTERNAL = ("sigtest.utils",)


def is_internal(name, obj):
    """Whether ``obj`` (exported as ``name``) is a private or internal helper."""
    module = getattr(obj, "__module__", None) or ""
    return name.startswith("_") or any(
        module == p or module.startswith(p + ".") for p in INTERNAL)


def api_sections():
    """``[(title, module name, {"classes": [...], "functions": [...]})]`` of the API page.

    Raises
    ------
    RuntimeError
        If a public module exports a private or internal helper.
    """
    top = {name: getattr(sigtest, name) for name in sigtest.__all__}
    sections = []
    for title, module in MODULES:
        names = []
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue  # sigtest.metrics, sigtest.cv: sections of their own
            if module is not sigtest and any(obj is o for o in top.values()):
                continue  # documented as sigtest.<name>
            if is_internal(name, obj):
                raise RuntimeError(f"{module.__name__}.__all__ exports the internal helper "
                                   f"{name!r} ({obj.__module__}): it is not public API.")
            names.append(name)
        kinds = {"classes": [n for n in names if inspect.isclass(getattr(module, n))]}
        kinds["functions"] = [n for n in names if n not in kinds["classes"]]
        sections.append((title, module.__name__, kinds))
    return sections


def write_api(path):
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
    sections = api_sections()
    for title, module, kinds in sections:
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
    expected = {f"{module}.{name}.rst" for _, module, kinds in sections
                for names in kinds.values() for name in names}
    for stub in (path.parent / "generated").glob("*.rst"):
        if stub.name not in expected:
            stub.unlink()
