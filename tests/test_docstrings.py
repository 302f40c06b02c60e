"""Every public name has a numpydoc docstring that documents its parameters and returns."""

import inspect

import pytest

import sigtest
import sigtest.metrics
import sigtest.plotting

validate = pytest.importorskip("numpydoc.validate").validate

# Checked codes: no docstring (GL08), summary (SS01), undocumented or unknown
# parameters (PR01, PR02), no Returns section (RT01).
CODES = {"GL08", "SS01", "PR01", "PR02", "RT01"}
# Result containers are built by sigtest, never by users: their fields are
# documented as Attributes, not as constructor Parameters.
RESULT_CONTAINERS = {"ComparisonResult", "ConfidenceInterval", "SignificanceResult"}


def _public():
    seen = {}
    for mod in (sigtest, sigtest.metrics, sigtest.plotting):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not hasattr(obj, "__qualname__"):
                continue
            seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return sorted(seen)


@pytest.mark.parametrize("name", _public())
def test_numpydoc(name):
    errors = [(code, msg) for code, msg in validate(name)["errors"] if code in CODES]
    if name.rsplit(".", 1)[-1] in RESULT_CONTAINERS:
        errors = [(c, m) for c, m in errors if c != "PR01"]
    assert not errors, errors
