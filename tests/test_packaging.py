"""Packaging: the sdist and the wheel build, pass ``twine check``, and the wheel works installed.

The slow test builds both with ``python -m build`` (an isolated build: the
build backend comes from the package index, as for any user), checks their
contents, installs the wheel with ``pip --no-deps`` into a new venv whose
dependencies come from this environment (a ``.pth`` line; the project's own
editable install is not visible there), and runs the installed ``sigtest``
command from a directory outside the clone. The fast tests check that the
project files agree with each other.
"""

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_license_changelog_citation_agree_with_pyproject():
    project = _pyproject()["project"]
    license_text = (ROOT / "LICENSE").read_text()
    assert project["license"] == "BSD-3-Clause"
    assert license_text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, The sigtest developers" in license_text
    assert "Neither the name of the copyright holder" in license_text  # clause 3
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    assert f"## [{project['version']}] - " in changelog
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "license", "type"):
        assert cff[key], key
    assert cff["version"] == project["version"]
    assert cff["license"] == project["license"]
    assert cff["authors"] == [{"name": a["name"]} for a in project["authors"]]


def _run(args, **kwargs):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.slow  # about 30 s: an isolated build, a venv and a first test in it
def test_build_check_and_install_wheel(tmp_path):
    pytest.importorskip("build")
    pytest.importorskip("twine")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], env=env,
         cwd=tmp_path)
    version = _pyproject()["project"]["version"]
    sdist = dist / f"sigtest-{version}.tar.gz"
    wheel = dist / f"sigtest-{version}-py3-none-any.whl"
    assert sdist.exists() and wheel.exists(), sorted(p.name for p in dist.iterdir())
    _run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)])

    # the sdist: the package and the project files, no tests, venvs or caches
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    for needed in ("README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff", "pyproject.toml",
                   "sigtest/__init__.py", "sigtest/cli.py"):
        assert needed in names, needed
    junk = [n for n in names if re.match(r"(tests|docs|examples|benchmarks|\.venv|build)/", n)
            or "__pycache__" in n or n.endswith((".pyc", ".nbi", ".nbc"))]
    assert not junk, junk[:10]

    # the wheel: every module of the package, the license, the command
    with zipfile.ZipFile(wheel) as zf:
        members = set(zf.namelist())
        metadata = zf.read(f"sigtest-{version}.dist-info/METADATA").decode()
        entry_points = zf.read(f"sigtest-{version}.dist-info/entry_points.txt").decode()
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "sigtest").rglob("*.py")}
    assert modules <= members, sorted(modules - members)[:10]
    assert not [m for m in members if m.startswith("tests/") or "__pycache__" in m]
    assert f"sigtest-{version}.dist-info/licenses/LICENSE" in members
    assert "sigtest = sigtest.cli:main" in entry_points
    assert "License-Expression: BSD-3-Clause" in metadata
    for dep in ("numpy", "scipy", "pandas", "scikit-learn", "numba", "joblib", "tqdm"):
        assert re.search(rf"^Requires-Dist: {dep}\b", metadata, re.M), dep

    # a clean venv: only the wheel, the dependencies seen through a .pth line
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    vpy = target / "bin" / "python"
    site = _run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                env=env).stdout.strip()
    Path(site, "project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(vpy), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
         env=env)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = _run([str(vpy), "-c", "import sigtest; print(sigtest.__file__, sigtest.__version__)"],
                 env=env, cwd=outside).stdout.split()
    assert Path(where[0]).is_relative_to(Path(site)), where  # the wheel, not the clone
    assert where[1] == version
    help_text = _run([str(target / "bin" / "sigtest"), "--help"], env=env, cwd=outside).stdout
    assert help_text.startswith("usage: sigtest")
    # and the installed command computes: a comparison of two small files
    (outside / "gold.txt").write_text("".join(f"{i % 3}\n" for i in range(60)))
    (outside / "a.txt").write_text("".join(f"{i % 3}\n" for i in range(60)))
    (outside / "b.txt").write_text("".join(f"{(i % 3) if i % 4 else 0}\n" for i in range(60)))
    out = _run([str(target / "bin" / "sigtest"), "compare", "gold.txt", "a.txt", "b.txt",
                "-m", "accuracy", "-B", "999", "--format", "csv"], env=env, cwd=outside).stdout
    assert out.splitlines()[0].startswith("system_a,system_b,metric")
    assert "a,b,accuracy" in out
