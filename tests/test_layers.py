"""The import contract of sigtest (issue 9 section 1): layers that run one way.

An AST check over every module of the package, imports inside functions
included:

* layers, bottom to top, one folder each: base (``metrics``, ``utils``,
  ``exceptions``, ``_version``, ``_constants``) -> ``_engine`` -> ``_results``
  -> ``tests_`` (with the thin ``cv``) -> ``_report`` -> ``_workflows`` ->
  ``_store`` -> top (``cli``, ``_cli``, the thin ``experiment`` and
  ``plotting``, ``demo``, ``__main__``, the package ``__init__``);
  a module never imports a module of a higher layer;
* a module never imports an underscore name (``from x import _y``) from a
  module of another layer;
* the module import graph has no cycle, and the folders' graph of the
  imports at the top of the modules has none (no back-and-forth between a
  folder and its subfolder);
* every module belongs to a layer (a new module must be placed);
* an import of the package's own modules inside a function says why it is
  not at the top of the module (an import cycle, import time, an optional
  path): a comment on its line or the line above (above a block of
  consecutive imports, for the block);
* the public modules are exactly ``PUBLIC_MODULES`` (scipy's rule: a dotted
  name with an underscore part is private), every module declares
  ``__all__``, every folder's ``__init__`` says what lives there, and the
  package root holds at most ``ROOT_MODULES_MAX`` modules (issue 21).

The checker is exercised on a synthetic package with deliberately bad imports.
"""

from __future__ import annotations

import ast
import fnmatch
import io
import tokenize
from pathlib import Path

import pytest

import sigtest

#: (layer, module patterns), bottom first; a pattern matches the module and
#: its submodules.
LAYERS = [
    ("base", ["sigtest.metrics", "sigtest.utils", "sigtest.exceptions", "sigtest._version",
              "sigtest._constants"]),
    ("engine", ["sigtest._engine"]),
    ("results", ["sigtest._results"]),
    ("tests", ["sigtest.tests_", "sigtest.cv"]),
    ("report", ["sigtest._report"]),
    ("workflows", ["sigtest._workflows"]),
    ("store", ["sigtest._store"]),
    ("top", ["sigtest", "sigtest.cli", "sigtest._cli", "sigtest.experiment", "sigtest.plotting",
             "sigtest.demo", "sigtest.__main__"]),
]

#: Cycles tolerated, each with its reason (none today: keep it that way).
KNOWN_CYCLES = []


# ------------------------------------------------------------------ checker
def _modules(root, package):
    """``{module name: path}`` of every ``.py`` file under ``root/package``."""
    out = {}
    for path in sorted((Path(root) / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _layer_of(module, layers):
    """Index of the layer of ``module`` (the most specific pattern wins), or None.

    A pattern matches the module and its submodules, except the root package
    (a pattern without a dot), which matches only itself.
    """
    best, best_len = None, -1
    for rank, (_, patterns) in enumerate(layers):
        for pattern in patterns:
            if fnmatch.fnmatchcase(module, pattern) or (
                    "." in pattern and fnmatch.fnmatchcase(module, pattern + ".*")):
                if len(pattern) > best_len:
                    best, best_len = rank, len(pattern)
    return best


def _imports(module, path, modules):
    """``(target module, imported names, line)`` for every import of the package.

    Relative imports are resolved; ``from pkg import sub`` targets the
    submodule ``pkg.sub`` when it exists, else ``pkg``.
    """
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = module.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == top:
                    yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.split(".")[0] != top:
                continue
            plain = []
            for alias in node.names:
                sub = f"{name}.{alias.name}"
                if sub in modules:
                    yield sub, [], node.lineno
                else:
                    plain.append(alias.name)
            if plain or not node.names:
                yield name, plain, node.lineno


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_layers(root, package, layers, known_cycles=()):
    """Every violation of the import contract, as readable strings (empty: none).

    ``known_cycles`` lists (sorted) cycles that are reported only if they grow.
    """
    modules = _modules(root, package)
    names = [name for name, _ in layers]
    problems, graph = [], {m: set() for m in modules}
    for module, path in modules.items():
        rank = _layer_of(module, layers)
        if rank is None:
            problems.append(f"{module}: in no layer (add it to LAYERS)")
            continue
        for target, imported, line in _imports(module, path, modules):
            if target not in modules:
                # e.g. a name of a package that is not a module: the package itself
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target:
                    continue
            if target != module:
                graph[module].add(target)
            trank = _layer_of(target, layers)
            if trank is None:
                continue
            where = f"{path.relative_to(root)}:{line}"
            if trank > rank:
                problems.append(f"{where}: {module} ({names[rank]}) imports {target} "
                                f"({names[trank]}), a higher layer")
            if trank != rank:
                private = [n for n in imported if n.startswith("_") and not n.startswith("__")]
                if private:
                    problems.append(f"{where}: {module} imports private name(s) {private} "
                                    f"of {target} (layer {names[trank]})")
    for comp in _cycles(graph):
        if comp not in [sorted(c) for c in known_cycles]:
            problems.append("import cycle: " + " <-> ".join(comp))
    return problems


# ----------------------------------------------- function-level imports say why
def _comment_lines(text):
    """Line numbers that hold a ``#`` comment."""
    return {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type == tokenize.COMMENT}


def _statement_lists(func):
    """The statement lists of ``func``'s body (nested functions and classes excluded)."""
    stack = [func.body]
    while stack:
        body = stack.pop()
        yield body
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            stack.extend(handler.body for handler in getattr(stmt, "handlers", ()))
            stack.extend(case.body for case in getattr(stmt, "cases", ()))


def _is_own(node, top):
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == top for alias in node.names)
    return bool(node.level) or (node.module or "").split(".")[0] == top


def uncommented_function_imports(root, package, skip=()):
    """``path:line`` of every import of ``package`` inside a function without a comment.

    A comment counts on any line of the import statement, on the line above
    it, or on the line above the first of a run of consecutive import
    statements that holds it. Files under a folder of ``skip`` (paths
    relative to ``root``) are not read.
    """
    problems = []
    for path in sorted((Path(root) / package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(folder.rstrip("/") + "/") for folder in skip):
            continue
        text = path.read_text(encoding="utf-8")
        comments = _comment_lines(text)
        for func in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for body in _statement_lists(func):
                run = []
                for stmt in body + [None]:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                        run.append(stmt)
                        continue
                    if run and run[0].lineno - 1 not in comments:
                        problems += [f"{rel}:{node.lineno}" for node in run
                                     if _is_own(node, package) and not comments.intersection(
                                         range(node.lineno - 1, node.end_lineno + 1))]
                    run = []
    return problems


# ------------------------------------------------------ folders import one way
def folder_cycles(root, package):
    """Cycles of the folder graph of the imports at the top of the modules.

    A folder imports another when one of its modules (a folder's
    ``__init__`` belongs to the folder) imports one of the other's at module
    level; a cycle is a back-and-forth such as ``_engine/rank_metrics.py``
    -> ``_engine/resampling/rows.py`` -> ``_engine``. The package root, which
    holds modules of several layers, is left out.
    """
    modules = _modules(root, package)

    def folder(module):
        return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]

    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {node.lineno for stmt in tree.body for node in ast.walk(stmt)
               if isinstance(node, (ast.Import, ast.ImportFrom))
               and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for target, _, line in _imports(module, path, modules):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if not target or line not in top:
                continue
            a, b = folder(module), folder(target)
            if a != b and package not in (a, b):
                graph.setdefault(a, set()).add(b)
    return _cycles(graph)


# ------------------------------------------------------------------- the real package
def test_sigtest_respects_its_layers():
    root = Path(sigtest.__file__).resolve().parents[1]
    problems = check_layers(root, "sigtest", LAYERS, KNOWN_CYCLES)
    assert not problems, "\n".join(problems)


#: Folders whose function-level imports are not yet checked, each with the
#: number of uncommented imports it holds (it may only go down). Empty: every
#: function-level import of sigtest says why.
UNCOMMENTED_ALLOWED = {}


def test_function_level_imports_say_why():
    root = Path(sigtest.__file__).resolve().parents[1]
    problems = uncommented_function_imports(root, "sigtest", skip=UNCOMMENTED_ALLOWED)
    assert not problems, ("an import of sigtest inside a function needs a comment saying why "
                          "it is not at the top of the module: " + ", ".join(problems))
    for folder, ceiling in UNCOMMENTED_ALLOWED.items():
        found = [p for p in uncommented_function_imports(root, "sigtest")
                 if p.startswith(folder + "/")]
        assert found, f"{folder} has no uncommented function-level import: remove it from the list"
        assert len(found) <= ceiling, found


#: Folder cycles tolerated, each with its reason: compare imports the
#: workflows' ``runs`` (run modes, splitting and combining runs), and the
#: workflows ``cross_val`` and ``datasets`` are built on compare (the old
#: ``_workflows/ranks.py`` leg went with its move to ``compare/ranks.py``).
KNOWN_FOLDER_CYCLES = [["sigtest._workflows", "sigtest._workflows.compare"]]


def test_folders_import_one_way():
    root = Path(sigtest.__file__).resolve().parents[1]
    cycles = [c for c in folder_cycles(root, "sigtest") if c not in KNOWN_FOLDER_CYCLES]
    assert not cycles, cycles


def test_the_check_sees_the_whole_package():
    root = Path(sigtest.__file__).resolve().parents[1]
    modules = _modules(root, "sigtest")
    for name in ("sigtest._engine.paired", "sigtest._engine.kernels", "sigtest.tests_._base",
                 "sigtest._workflows.compare.api", "sigtest.cli", "sigtest"):
        assert name in modules
    ranks = {m: _layer_of(m, LAYERS) for m in modules}
    assert ranks["sigtest._engine.paired"] < ranks["sigtest._results"] \
        < ranks["sigtest.tests_._base"] < ranks["sigtest._workflows.compare.api"] < ranks["sigtest.cli"]
    assert ranks["sigtest.metrics._registry"] == ranks["sigtest.exceptions"] == 0


#: The public modules (scipy's ``test_public_api`` rule): a module is private
#: when any part of its dotted name starts with an underscore.
PUBLIC_MODULES = {"sigtest", "sigtest.cli", "sigtest.cv", "sigtest.demo", "sigtest.exceptions",
                  "sigtest.experiment", "sigtest.metrics", "sigtest.plotting", "sigtest.tests_",
                  "sigtest.utils", "sigtest.utils.validation"}
#: Module files that declare no ``__all__`` (nothing to export).
WITHOUT_ALL = {"sigtest.__main__", "sigtest._version"}
#: At most this many modules in the package root; the rest live in the layer folders.
ROOT_MODULES_MAX = 12


def _sigtest_modules():
    root = Path(sigtest.__file__).resolve().parents[1]
    return _modules(root, "sigtest")


def test_public_modules_are_exactly_the_listed_ones():
    public = {m for m in _sigtest_modules()
              if not any(part.startswith("_") for part in m.split(".")[1:])}
    assert public == PUBLIC_MODULES


def test_every_module_declares_all():
    missing = []
    for module, path in _sigtest_modules().items():
        if module in WITHOUT_ALL:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                 for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                 if isinstance(t, ast.Name)}
        if "__all__" not in names:
            missing.append(module)
    assert not missing, missing


def test_every_folder_says_what_lives_there():
    for module, path in _sigtest_modules().items():
        if path.name == "__init__.py":
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            assert doc and len(doc.split()) >= 8, f"{module}: its __init__ needs a docstring"


def test_the_root_holds_few_modules():
    root = [m for m, path in _sigtest_modules().items()
            if m.count(".") == 1 and path.name != "__init__.py"]
    assert len(root) <= ROOT_MODULES_MAX, sorted(root)


def test_every_layer_folder_exists():
    modules = _sigtest_modules()
    for _, patterns in LAYERS:
        for pattern in patterns:
            assert pattern in modules, f"{pattern} is in LAYERS but not in the package"


# --------------------------------------------------------- the checker can fail
def _tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return [("base", ["pkg.metrics"]), ("engine", ["pkg._engine"]),
            ("tests", ["pkg.tests_"]), ("workflows", ["pkg._compare", "pkg._result"]),
            ("top", ["pkg", "pkg.cli"])]


CLEAN = {
    "__init__.py": "from ._compare import compare\n",
    "metrics/__init__.py": "def _helper():\n    pass\n\ndef score():\n    pass\n",
    "_engine/__init__.py": "",
    "_engine/paired.py": "from ..metrics import score\nfrom . import rng\n",
    "_engine/rng.py": "from .. import metrics\n",
    "tests_/__init__.py": "from .._engine.paired import score\n",
    "_compare.py": "from .tests_ import score\nfrom ._result import Result\n",
    "_result.py": "class Result:\n    pass\n",
    "cli.py": "from . import __version__\nfrom ._compare import compare\n",
}


def test_checker_accepts_a_clean_tree(tmp_path):
    layers = _tree(tmp_path, CLEAN)
    assert check_layers(tmp_path, "pkg", layers) == []


@pytest.mark.parametrize("rel, line, expected", [
    # upward import, even inside a function
    ("metrics/__init__.py", "def f():\n    from .._engine import paired\n", "a higher layer"),
    ("_engine/paired.py", "import pkg.cli\n", "a higher layer"),
    # private name of another layer
    ("_engine/paired.py", "from ..metrics import _helper\n", "private name"),
    # a cycle through a function-level import (as _compare <-> _comparison_result was)
    ("_result.py", "def recompare():\n    from ._compare import run\n", "import cycle"),
    # the package and a module importing it back (as sigtest <-> experiment was)
    ("_compare.py", "from . import __version__\n", "import cycle"),
])
def test_checker_rejects_a_bad_import(tmp_path, rel, line, expected):
    files = dict(CLEAN)
    files[rel] = files.get(rel, "") + line
    layers = _tree(tmp_path, files)
    problems = check_layers(tmp_path, "pkg", layers)
    assert any(expected in p for p in problems), problems


def test_checker_rejects_a_module_in_no_layer(tmp_path):
    files = dict(CLEAN)
    files["stray.py"] = ""
    problems = check_layers(tmp_path, "pkg", _tree(tmp_path, files))
    assert problems == ["pkg.stray: in no layer (add it to LAYERS)"]


@pytest.mark.parametrize("body, ok", [
    ("def f():\n    from .metrics import score\n", False),
    ("def f():\n    import pkg.metrics\n", False),
    ("def f():\n    if True:\n        from . import metrics\n", False),
    ("def f():\n    # a cycle: metrics imports this module\n    from .metrics import score\n", True),
    ("def f():\n    from .metrics import score  # import time\n", True),
    ("def f():\n    # the block: import time\n    import json\n\n    from .metrics import score\n"
     "    from . import metrics\n", True),
    ("def f():\n    x = 1  # a comment two lines above does not count\n\n"
     "    from .metrics import score\n", False),
    ("def f():\n    import json\n", True),  # not the package's own module
    ("from .metrics import score\n", True),  # module level
])
def test_checker_wants_a_reason_for_a_function_level_import(tmp_path, body, ok):
    files = dict(CLEAN)
    files["_engine/paired.py"] = body
    _tree(tmp_path, files)
    problems = uncommented_function_imports(tmp_path, "pkg")
    assert problems == ([] if ok else [p for p in problems if p.startswith("pkg/_engine/paired.py:")])
    assert bool(problems) is not ok, problems


def test_folder_check_sees_a_back_and_forth(tmp_path):
    files = dict(CLEAN)
    files["_engine/resampling/__init__.py"] = ""
    files["_engine/resampling/rows.py"] = "from .. import rng\n"
    files["_engine/rng.py"] = "from ..metrics import score\n"
    _tree(tmp_path, files)
    assert folder_cycles(tmp_path, "pkg") == []
    files["_engine/rng.py"] += "from .resampling import rows\n"
    _tree(tmp_path, files)
    assert folder_cycles(tmp_path, "pkg") == [["pkg._engine", "pkg._engine.resampling"]]
