"""The one place sigtest touches scikit-learn's private parameter validation.

scikit-learn's ``validate_params``, ``Interval`` and ``StrOptions`` give the
familiar message "The 'x' parameter of f must be ... Got ... instead." and
raise :class:`sklearn.utils._param_validation.InvalidParameterError`, a
subclass of both ``ValueError`` and ``TypeError``. Importing them here keeps
any future change of that private module to a single file.

Importing scikit-learn costs about a second, so nothing here imports it
before it is needed:

* :func:`validate_params` decorates at once but builds scikit-learn's
  validating wrapper on the first call of the decorated function; while
  scikit-learn is not imported, a call whose arguments are all surely valid
  (:func:`_surely_valid`) runs without it;
* the constraint classes (``Interval``, ``StrOptions``, ...) and
  ``InvalidParameterError`` are scikit-learn's own, loaded on first access
  of the attribute (PEP 562), so constraint dictionaries built from them are
  what scikit-learn's tools (``make_constraint``) expect;
* modules that must import without scikit-learn (``sigtest.metrics``) write
  their constraints with :data:`lazy` (``lazy.Interval(Real, 0, 1,
  closed="both")``), a recipe that :func:`validate_params` turns into the
  scikit-learn object when it builds the wrapper.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
import inspect
import re
import sys

from sigtest.utils._names import without_numpy_reprs

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "lazy",
    "validate_parameter_constraints",
    "validate_params",
]

_SKLEARN = "sklearn.utils._param_validation"
#: Names served from scikit-learn's module on first access.
_FORWARDED = frozenset(
    {"HasMethods", "Hidden", "Interval", "InvalidParameterError", "Options", "RealNotInt",
     "StrOptions"}
)


#: Set while a function decorated by :func:`validate_params` with
#: ``prefer_skip_nested_validation=True`` runs without scikit-learn: the
#: functions it calls skip their validation, as scikit-learn's
#: ``config_context(skip_parameter_validation=True)`` makes them do.
_SKIP_NESTED = contextvars.ContextVar("sigtest_skip_nested_validation", default=False)


def _sklearn():
    return importlib.import_module(_SKLEARN)


def __getattr__(name):
    if name in _FORWARDED:
        value = getattr(_sklearn(), name)
        globals()[name] = value  # later accesses skip this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _FORWARDED)


class _Deferred:
    """A scikit-learn constraint to build later: class name and arguments."""

    __slots__ = ("name", "args", "kwargs")

    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def build(self):
        return getattr(_sklearn(), self.name)(
            *[_resolve_one(a) for a in self.args], **self.kwargs
        )

    def __repr__(self):
        args = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"lazy.{self.name}({', '.join(args)})"


class _LazyConstraints:
    """``lazy.Interval(...)`` records an ``Interval(...)`` to build on first use."""

    def __getattr__(self, name):
        if name not in _FORWARDED or name == "InvalidParameterError":
            raise AttributeError(f"no constraint class named {name!r}")

        def recipe(*args, **kwargs):
            return _Deferred(name, args, kwargs)

        recipe.__name__ = name
        return recipe

    def __repr__(self):
        return "<sigtest lazy scikit-learn constraints>"


#: Recipes of scikit-learn constraints that do not import scikit-learn yet.
lazy = _LazyConstraints()


def _resolve_one(value):
    return value.build() if isinstance(value, _Deferred) else value


def _resolve(constraints):
    """A copy of a constraint dict with every lazy recipe built."""
    if constraints == "no_validation":
        return constraints
    return {
        name: c if isinstance(c, str) else [_resolve_one(x) for x in c]
        for name, c in constraints.items()
    }


def validate_params(parameter_constraints, *, prefer_skip_nested_validation):
    """Validate the arguments of a function against constraints, as scikit-learn does.

    Same contract, configuration (``sklearn.set_config(
    skip_parameter_validation=...)``) and messages as
    ``sklearn.utils._param_validation.validate_params``, whose wrapper this
    reproduces with three differences: scikit-learn is imported and the
    constraints are built on the first call (decorating imports nothing); as
    long as scikit-learn is not imported (so its configuration is the
    default, validation on), a call whose arguments all pass the
    import-free check of :func:`_surely_valid` runs without importing it
    (anything else goes to scikit-learn's validator, which decides and words
    the error); and the wrapper adds one frame to the stack, as
    scikit-learn's does.

    Parameters
    ----------
    parameter_constraints : dict
        ``{parameter name: list of constraints}``; constraints may be
        scikit-learn's objects, its strings (``"array-like"``, ``"boolean"``,
        ...), types, ``None``, or :data:`lazy` recipes.
    prefer_skip_nested_validation : bool
        Whether functions called by the decorated one skip their own
        validation (scikit-learn's meaning).

    Returns
    -------
    decorator : callable
        Turns a function into its validating wrapper
        (``functools.wraps``-style: name, docstring and signature kept).
    """

    def decorator(func):
        state = {}
        fast = {}

        def bind(args, kwargs):
            if not fast:
                signature = inspect.signature(func)
                fast["signature"] = signature
                fast["ignore"] = {
                    p.name for p in signature.parameters.values()
                    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                } | {"self", "cls"}
            bound = fast["signature"].bind(*args, **kwargs)
            bound.apply_defaults()
            return {k: v for k, v in bound.arguments.items() if k not in fast["ignore"]}

        def surely_valid(args, kwargs):
            if parameter_constraints == "no_validation":
                return True
            params = bind(args, kwargs)
            return all(
                _surely_valid(parameter_constraints[name], value)
                for name, value in params.items() if name in parameter_constraints
            )

        def rename(exc):
            # a wrapper delegating validation names itself, not the callee
            sk = sys.modules.get(_SKLEARN)
            if sk is None or not isinstance(exc, sk.InvalidParameterError):
                return None
            msg = re.sub(r"parameter of \w+ must be",
                         f"parameter of {func.__qualname__} must be", str(exc))
            return sk.InvalidParameterError(without_numpy_reprs(msg))

        def setup():
            sk = _sklearn()
            import sklearn

            state["constraints"] = _resolve(parameter_constraints)
            state["signature"] = inspect.signature(func)
            state["ignore"] = {
                p.name for p in state["signature"].parameters.values()
                if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            } | {"self", "cls"}
            state["sk"], state["sklearn"] = sk, sklearn
            return state

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _SKIP_NESTED.get():
                return func(*args, **kwargs)
            if "sklearn" not in sys.modules and surely_valid(args, kwargs):
                token = _SKIP_NESTED.set(bool(prefer_skip_nested_validation))
                try:
                    return func(*args, **kwargs)
                except Exception as e:
                    renamed = rename(e)
                    if renamed is None:
                        raise
                    raise renamed from e
                finally:
                    _SKIP_NESTED.reset(token)
            st = state or setup()
            sklearn = st["sklearn"]
            global_skip = sklearn.get_config()["skip_parameter_validation"]
            if global_skip:
                return func(*args, **kwargs)
            bound = st["signature"].bind(*args, **kwargs)
            bound.apply_defaults()
            params = {k: v for k, v in bound.arguments.items() if k not in st["ignore"]}
            _plain_errors(st["sk"], st["sk"].validate_parameter_constraints,
                          st["constraints"], params, caller_name=func.__qualname__)
            try:
                with sklearn.config_context(
                    skip_parameter_validation=prefer_skip_nested_validation or global_skip
                ):
                    return func(*args, **kwargs)
            except st["sk"].InvalidParameterError as e:
                # a wrapper delegating validation names itself, not the callee
                msg = re.sub(
                    r"parameter of \w+ must be",
                    f"parameter of {func.__qualname__} must be",
                    str(e),
                )
                raise st["sk"].InvalidParameterError(without_numpy_reprs(msg)) from e

        wrapper._skl_parameter_constraints = parameter_constraints
        return wrapper

    return decorator


def validate_parameter_constraints(parameter_constraints, params, caller_name):
    """Validate ``params`` against constraints (scikit-learn's function).

    Parameters
    ----------
    parameter_constraints : dict or "no_validation"
        As for :func:`validate_params`; :data:`lazy` recipes are allowed.
    params : dict
        ``{parameter name: value}``.
    caller_name : str
        Name used in the error message.

    Raises
    ------
    InvalidParameterError
        If a value satisfies none of its constraints.
    """
    if parameter_constraints == "no_validation" or all(
        _surely_valid(parameter_constraints[name], value)
        for name, value in params.items() if name in parameter_constraints
    ):
        return
    sk = _sklearn()
    _plain_errors(sk, sk.validate_parameter_constraints, _resolve(parameter_constraints),
                  params, caller_name)


def _plain_errors(sk, check, *args, **kwargs):
    """``check(*args, **kwargs)``, its error message without numpy reprs."""
    try:
        check(*args, **kwargs)
    except sk.InvalidParameterError as exc:
        raise sk.InvalidParameterError(without_numpy_reprs(str(exc))) from None


def _surely_valid(constraints, value):
    """True only if scikit-learn would surely accept ``value`` (no import).

    Valid values, the common case, are recognised here without importing
    scikit-learn for the simple constraints (``None``, a type, ``callable``,
    ``"boolean"``, lazy ``Interval`` of ``Integral``/``Real`` and lazy
    ``StrOptions``); anything else, and every invalid value, goes to
    scikit-learn's validator, which decides and words the error.
    """
    if constraints == "no_validation":
        return True
    return any(_satisfies(c, value) for c in constraints)


def _surely_array_like(value):
    """A list, tuple, NumPy array or pandas object (scikit-learn's "array-like").

    scikit-learn accepts any non-scalar with ``__len__``, ``shape`` or
    ``__array__`` that is not a SciPy sparse matrix; these types are such
    (checked against modules already imported: none is imported here).
    """
    if isinstance(value, (list, tuple)):
        return True
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, (pd.Series, pd.DataFrame, pd.Index))


def _satisfies_methods(constraint, value):
    """``HasMethods(names)``: every named attribute of ``value`` is callable."""
    methods = constraint.args[0]
    methods = [methods] if isinstance(methods, str) else methods
    if not isinstance(methods, (list, tuple)) or not all(isinstance(m, str) for m in methods):
        return False
    return all(callable(getattr(value, m, None)) for m in methods)


def _satisfies_interval(constraint, value):
    """``Interval(kind, left, right, closed=...)``: a finite number of ``kind`` inside it."""
    import math
    from numbers import Integral, Real

    kind, left, right = constraint.args
    closed = constraint.kwargs.get("closed")
    if kind not in (Integral, Real) or not isinstance(value, kind) \
            or closed not in ("left", "right", "both", "neither"):
        return False
    if isinstance(value, Integral):
        x = int(value)  # exact, however large
    else:
        x = float(value)
        if not math.isfinite(x):
            return False
    if left is not None and not (x >= left if closed in ("left", "both") else x > left):
        return False
    return right is None or (x <= right if closed in ("right", "both") else x < right)


def _satisfies(constraint, value):
    if constraint is None:
        return value is None
    if constraint is callable:
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    if isinstance(constraint, str):
        if constraint == "array-like":
            return _surely_array_like(value)
        return constraint == "boolean" and isinstance(value, bool)
    if not isinstance(constraint, _Deferred):
        return False
    if constraint.name == "HasMethods" and len(constraint.args) == 1 and not constraint.kwargs:
        return _satisfies_methods(constraint, value)
    if constraint.name == "StrOptions" and len(constraint.args) == 1:
        return isinstance(value, str) and value in constraint.args[0]
    if constraint.name == "Interval" and len(constraint.args) == 3:
        return _satisfies_interval(constraint, value)
    return False
