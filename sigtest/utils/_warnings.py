"""Warnings that point at the user's code, whatever the call path.

A hard-coded ``stacklevel`` is right for one call path only: the same helper
reached through ``compare``, a significance test or a metric sits at a
different depth each time. :func:`warn_external` instead attributes the
warning to the first frame outside the sigtest package (pandas'
``find_stack_level``; Python 3.12's ``skip_file_prefixes``), skipping also
scikit-learn's parameter-validation wrapper, which sits between a user and a
validated sigtest function.

Two kinds of frames are not the user's line although they lie outside or
inside the package differently from the rule above: ``sigtest/demo.py`` is
a user's program shipped with the package (``python -m sigtest.demo``), so
its frames count as the user's; and the interpreter's frozen start-up code
(``<frozen runpy>`` of ``python -m``) is nobody's line, so when the first
frame outside sigtest is frozen, the warning names the outermost sigtest
frame below it (the ``-m`` module's line) instead.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["find_stack_level", "warn_external"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SKLEARN_VALIDATION = "sklearn.utils._param_validation"
#: Modules of the package that are user programs, not library code.
_USER_FILES = (os.path.join(_PKG_DIR, "demo.py"),)


def _internal_prefixes():
    prefixes = [_PKG_DIR]
    module = sys.modules.get(_SKLEARN_VALIDATION)
    path = getattr(module, "__file__", None)
    if path:
        prefixes.append(os.path.abspath(path))
    return tuple(prefixes)


def find_stack_level():
    """Stack level of the first frame outside sigtest, seen from the caller.

    Returns
    -------
    stacklevel : int
        The value to pass as ``warnings.warn(..., stacklevel=...)`` from the
        function that calls ``find_stack_level``: the warning is then reported
        at the first frame (innermost first) whose file is neither in the
        sigtest package nor scikit-learn's parameter-validation wrapper
        (``sigtest/demo.py`` counts as outside). If that frame is the
        interpreter's frozen start-up code (``python -m sigtest.cli``), the
        level of the frame just inside it (the module run) is returned.

    Examples
    --------
    >>> import warnings
    >>> from sigtest.utils import find_stack_level
    >>> def user_code():
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         warnings.warn("hi", stacklevel=find_stack_level())
    ...     return caught[0].lineno
    >>> user_code() == user_code.__code__.co_firstlineno + 3
    True
    """
    prefixes = _internal_prefixes()
    frame = sys._getframe(1)  # the caller, which calls warnings.warn
    level = 1
    try:
        while frame is not None:
            raw = frame.f_code.co_filename
            if raw.startswith("<frozen"):
                # python -m: the frame below is the module that was run
                return max(1, level - 1)
            filename = os.path.abspath(raw)
            if filename in _USER_FILES or not filename.startswith(prefixes):
                return level
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return level


def warn_external(message, category=UserWarning):
    """Issue a warning attributed to the first frame outside sigtest.

    Use it instead of ``warnings.warn(..., stacklevel=<number>)`` anywhere in
    sigtest: the warning then names the user's line (their call of ``test``,
    ``compare``, a metric, ...) however deep inside sigtest it was raised, so
    that filters and the printed location stay right when a call path changes.

    Parameters
    ----------
    message : str or Warning
        The warning text, or a warning instance (its class is then the
        category, as for :func:`warnings.warn`; extra attributes travel with
        it).
    category : type of Warning, default=UserWarning
        The warning class.

    Examples
    --------
    >>> import warnings
    >>> from sigtest.utils import warn_external
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_external("careful", RuntimeWarning)
    >>> caught[0].category.__name__, str(caught[0].message)
    ('RuntimeWarning', 'careful')
    >>> caught[0].filename.endswith(".py")  # a doctest frame, not sigtest's file
    False
    """
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise TypeError(
            "The 'category' parameter of warn_external must be a Warning subclass. "
            f"Got {category!r} instead."
        )
    warnings.warn(message, category, stacklevel=find_stack_level())
