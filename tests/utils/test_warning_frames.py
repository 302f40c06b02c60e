"""The frame a sigtest warning names when the call comes through ``python -m``.

``python -m sigtest.demo`` runs the module from the interpreter's frozen
``runpy``: every frame between the warning and ``<frozen runpy>`` is in the
sigtest package, so the first frame outside it was the frozen start-up code
and the warning read ``<frozen runpy>:88:``. Frames are faked here by
compiling small functions under the file names of those frames (a code
object's ``co_filename`` is what the warning machinery reads).
"""

import os
import warnings

import sigtest
from sigtest.utils import warn_external

_PKG = os.path.dirname(os.path.abspath(sigtest.__file__))


def _function(filename, source, name, namespace):
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert len(caught) == 1
    return caught[0]


def test_module_run_with_dash_m_is_named_not_frozen_runpy():
    namespace = {"warn_external": warn_external}
    library = os.path.join(_PKG, "_fake_library.py")
    main = os.path.join(_PKG, "_fake_main.py")
    _function(library, "def deep():\n    warn_external('careful')\n", "deep", namespace)
    _function(main, "\n\ndef entry():\n    deep()\n", "entry", namespace)
    runner = _function("<frozen runpy>", "def run():\n    entry()\n", "run", namespace)
    w = _caught(runner)
    assert (w.filename, w.lineno) == (main, 4)


def test_demo_module_counts_as_the_users_code():
    namespace = {"warn_external": warn_external}
    library = os.path.join(_PKG, "_fake_library.py")
    demo = os.path.join(_PKG, "demo.py")
    _function(library, "def deep():\n    warn_external('careful')\n", "deep", namespace)
    main = _function(demo, "\n\n\ndef main():\n    deep()\n", "main", namespace)
    w = _caught(lambda: main())
    assert (w.filename, w.lineno) == (demo, 5)
