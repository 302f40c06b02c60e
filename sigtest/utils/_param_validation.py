"""The one place sigtest touches scikit-learn's private parameter validation.

scikit-learn's ``validate_params``, ``Interval`` and ``StrOptions`` give the
familiar message "The 'x' parameter of f must be ... Got ... instead." and
raise :class:`sklearn.utils._param_validation.InvalidParameterError`, a
subclass of both ``ValueError`` and ``TypeError``. Importing them here keeps
any future change of that private module to a single file.
"""

from sklearn.utils._param_validation import (  # noqa: F401
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)

__all__ = [
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "validate_parameter_constraints",
    "validate_params",
]
