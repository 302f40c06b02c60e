"""The workflows' folders and modules import one way: no back-and-forth between them.

An AST walk of every import (inside functions too) of ``sigtest._workflows``,
with each subfolder (``compare/``, ``power/``) one node and each module at
the folder's top (``cross_val.py``, ``runs.py``, ...) one node: the graph of
these nodes has no cycle, e.g. ``compare`` imports ``power`` (the minimum
detectable effects of a result) and ``power`` never imports ``compare``.
"""

import ast
from pathlib import Path

import sigtest

PACKAGE = "sigtest._workflows"


def _modules(root):
    """``{module name: path}`` of every module under ``root`` (a package directory)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([PACKAGE, *parts])] = path
    return out


def _node(module):
    """The folder node of a module: its subfolder of the package, else the module."""
    rest = module[len(PACKAGE) + 1:].split(".") if module != PACKAGE else []
    if len(rest) > 1:
        return f"{PACKAGE}.{rest[0]}"
    return module


def _imported(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def folder_graph(modules, sources):
    """``{node: set of nodes it imports}`` from ``{module: source text}``."""
    graph = {}
    for module, text in sources.items():
        src = _node(module)
        for name in _imported(ast.parse(text)):
            target = name
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != PACKAGE and _node(target) != src:
                graph.setdefault(src, set()).add(_node(target))
    return graph


def cycles(graph):
    """Every cycle of ``graph`` found by a depth-first walk, as node lists."""
    found, state = [], {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_workflow_folders_import_one_way():
    root = Path(sigtest.__file__).resolve().parent / "_workflows"
    modules = _modules(root)
    sources = {m: p.read_text() for m, p in modules.items()}
    graph = folder_graph(modules, sources)
    assert f"{PACKAGE}.power" in graph[f"{PACKAGE}.compare"]  # the walk sees the imports
    assert cycles(graph) == []


def test_a_back_and_forth_between_folders_is_found():
    w = PACKAGE
    modules = {w: None, f"{w}.a": None, f"{w}.a.x": None, f"{w}.a.y": None, f"{w}.b": None,
               f"{w}.b.z": None, f"{w}.top": None}
    sources = {
        f"{w}.a.x": f"from {w}.a.y import f\n",  # inside a folder: no edge
        f"{w}.a.y": f"def g():\n    from {w}.top import h\n",  # function-level counts
        f"{w}.top": f"import {w}.b.z\n",
        f"{w}.b.z": f"from {w}.a import x\n",
    }
    found = cycles(folder_graph(modules, sources))
    assert found == [[f"{w}.a", f"{w}.top", f"{w}.b", f"{w}.a"]]
    sources[f"{w}.b.z"] = "import numpy\n"
    assert cycles(folder_graph(modules, sources)) == []
