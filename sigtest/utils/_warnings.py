"""Warnings that point at the user's code, whatever the call path.

A hard-coded ``stacklevel`` is right for one call path only: the same helper
reached through ``compare``, a significance test or a metric sits at a
different depth each time. :func:`warn_external` instead attributes the
warning to the first frame outside the sigtest package (pandas'
``find_stack_level``; Python 3.12's ``skip_file_prefixes``), skipping also
scikit-learn's parameter-validation wrapper, which sits between a user and a
validated sigtest function.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["find_stack_level", "warn_external"]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SKLEARN_VALIDATION = "sklearn.utils._param_validation"


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
        sigtest package nor scikit-learn's parameter-validation wrapper.

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
            filename = os.path.abspath(frame.f_code.co_filename)
            if not filename.startswith(prefixes):
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
    message : str
        The warning text.
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
