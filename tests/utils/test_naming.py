"""The naming table of docs/design.md against the signatures of the public API.

Walks :func:`inspect.signature` of every public callable (``sigtest.__all__``,
``sigtest.cv``, ``sigtest.plotting``, ``sigtest.experiment``, the constructors
and public methods of the public classes) and checks, for every concept of
the table: one name (the old names are gone), one default (the exceptions are
listed with the callable and must still exist), and that every renamed
keyword raises a ``TypeError`` naming the new one through the one shared
mechanism (``sigtest.utils.renamed_keywords``).
"""

import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest

import sigtest
from sigtest._constants import N_RESAMPLES

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"
_EMPTY = inspect.Parameter.empty

# name -> (default, {callable: (its default, why)}); the first name and default of
# each row of the table in docs/design.md.
DEFAULTS = {
    "n_resamples": (N_RESAMPLES, {
        "BooStSaBootstrap": (1000, "the BooStSa tool's setting, in its docstring")}),
    "alternative": ("two-sided", {
        "BooStSaBootstrap": ("greater", "reproduces the tool's one-sided test")}),
    "confidence_level": (0.95, {
        "ScoreResult.ci": (None, "the result's own level"),
        "SignificanceResult.ci": (None, "the result's own level")}),
    "alpha": (0.05, {
        "ComparisonResult.minimum_detectable_effects": (None, "the result's alpha"),
        "DatasetComparisonResult.replicability": (None, "the result's alpha"),
        "plot_critical_difference": (None, "the result's alpha"),
        "adjust_pvalues": (None, "only the two-stage FDR methods have a level")}),
    "correction": ("auto", {
        "cross_val_compare": ("holm", "no max-T over folds"),
        "DatasetComparisonResult.pairwise": ("holm", "no max-T over datasets"),
        "aso_matrix": ("bonferroni", "a bound without p-value: a level adjustment")}),
    "continuity": (False, {"McNemar": (True, "Edwards' correction, statsmodels' default")}),
    "n_draws": (50_000, {"hierarchical_bayes": (10_000, "a Gibbs sweep per draw")}),
    "n_repeats": (1, {}),
    "runs": ("average", {}),
    "rope": (0.0, {"cross_val_compare": (None, "routed to cv_test='bayesian' only")}),
    "random_state": (None, {"Experiment.run": (0, "a stored experiment repeats")}),
    "n_jobs": (None, {}),
    "n_simulations": (1000, {}),
    "combine": ("bonferroni", {}),
}

# rows of the table whose parameter has no default (data) or a per-callable one
NO_DEFAULT = {"n_samples", "y_pred_a", "scores_a", "method"}

# concepts that must be keyword-only wherever they appear
KEYWORD_ONLY = {"rope", "n_draws", "n_repeats", "continuity", "n_jobs"}

# where each of these names may appear, and what it means there
ALLOWED_WHERE = {
    # the result fields that count items (scikit-learn's n_samples)
    "n_samples": {"ScoreResult", "SignificanceResult", "PairedData", "CochranQResult"},
    # how the main output is computed (scipy); adjust_pvalues: statsmodels' name;
    # the fields ScoreResult.method (the interval method) and DatasetPosterior.method
    # (the model: result shapes)
    "method": {"score", "ScoreResult.ci", "SignificanceResult.ci", "BCaInterval", "McNemar",
               "WilcoxonSignedRank", "adjust_pvalues", "ScoreResult", "DatasetPosterior"},
}

# old keyword -> new keyword, per renamed callable
RENAMES = {
    "power": {"pred_a": "y_pred_a", "interval_level": "confidence_level"},
    "minimum_detectable_effect": {"pred_a": "y_pred_a", "interval_level": "confidence_level"},
    "sample_size": {"pred_a": "y_pred_a", "interval_level": "confidence_level"},
    "bayesian_signed_rank": {"x": "scores_a", "y": "scores_b", "n_samples": "n_draws"},
    "hierarchical_bayes": {"x": "scores_a", "y": "scores_b", "n_samples": "n_draws",
                           "runs": "n_repeats"},
    "DatasetComparisonResult.bayesian": {"n_samples": "n_draws"},
    "DatasetComparisonResult.pairwise": {"method": "test"},
    "DatasetComparisonResult.replicability": {"method": "combine"},
    "McNemar": {"correction": "continuity"},
    "WilcoxonSignedRank": {"correction": "continuity"},
    "aso_matrix": {"use_bonferroni": "correction"},
    "cross_val_compare": {"method": "response_method"},
}

# old names that no public signature may use at all (result fields renamed by
# the result-shape work are listed with the class, and must still be there)
GONE = {"pred_a", "interval_level", "use_bonferroni"}
PENDING_FIELDS = {}


def _public_objects():
    """(qualified name, object) of every public function and class."""
    seen, out = set(), []
    modules = [(sigtest, sigtest.__all__)]
    for name in ("sigtest.cv", "sigtest.plotting", "sigtest.experiment"):
        mod = importlib.import_module(name)
        modules.append((mod, mod.__all__))
    for mod, names in modules:
        for name in names:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or id(obj) in seen or not callable(obj):
                continue
            seen.add(id(obj))
            out.append((name, obj))
    for test_name in sigtest.get_test_names():  # every registered test (BooStSaBootstrap)
        cls = type(sigtest.get_test(test_name))
        if id(cls) not in seen:
            seen.add(id(cls))
            out.append((cls.__name__, cls))
    return out


def _is_record(obj):
    """A result or data class: its constructor takes fields, not options."""
    return dataclasses.is_dataclass(obj) or obj.__name__.endswith("Result") or \
        obj.__name__ in ("ScoreTable",)


RECORDS = set()


def public_signatures():
    """{qualified name: Signature} of the public functions, classes and their methods."""
    sigs = {}
    for name, obj in _public_objects():
        if inspect.isclass(obj):
            if issubclass(obj, Warning):
                continue
            sigs[name] = inspect.signature(obj)
            if _is_record(obj):
                RECORDS.add(name)
            for klass in obj.__mro__:
                if not klass.__module__.startswith("sigtest"):
                    continue
                for attr, value in vars(klass).items():
                    if attr.startswith("_") or f"{name}.{attr}" in sigs:
                        continue
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if inspect.isfunction(value):
                        sigs[f"{name}.{attr}"] = inspect.signature(value)
        else:
            sigs[name] = inspect.signature(obj)
    return sigs


SIGS = public_signatures()


def _uses(param, *, options=False):
    """{callable: Parameter} of every public signature with a parameter ``param``.

    ``options=True``: only options, i.e. parameters with a default, of the
    functions, the tests' constructors and the methods (not the fields of a
    result's constructor, nor a required argument such as ``evaluate``'s seed).
    """
    return {where: sig.parameters[param] for where, sig in SIGS.items()
            if param in sig.parameters and not (options and (
                where in RECORDS or sig.parameters[param].default is _EMPTY))}


def _resolve(where):
    """The function (or class) of a qualified public name."""
    head, _, attr = where.partition(".")
    obj = getattr(sigtest, head, None)
    if obj is None:
        obj = getattr(importlib.import_module("sigtest.plotting"), head)
    return getattr(obj, attr) if attr else obj


def test_the_walk_covers_the_public_api():
    # sanity of the walk itself: classes, methods and the submodules are in
    assert len(SIGS) > 140
    for where in ("compare", "BCaInterval", "BCaInterval.test", "ComparisonResult.ranks",
                  "DatasetComparisonResult.bayesian", "bayesian_correlated_ttest",
                  "plot_simplex", "Experiment.run", "score"):
        assert where in SIGS, where


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_one_default_per_concept(name):
    default, exceptions = DEFAULTS[name]
    uses = _uses(name, options=True)
    assert uses, f"no public callable has {name!r}"
    for where, param in uses.items():
        want = exceptions[where][0] if where in exceptions else default
        assert param.default == want, (
            f"{where}({name}={param.default!r}): the naming table says {want!r}")
    for where in exceptions:  # an exception that no longer applies is removed
        assert where in uses, f"stale exception: {where} has no {name!r}"


def test_the_default_number_of_resamples_is_defined_once():
    # scipy's bootstrap / permutation_test default: p-values are multiples of 1/10000
    assert N_RESAMPLES == 9999
    uses = _uses("n_resamples", options=True)
    assert sum(p.default == N_RESAMPLES for p in uses.values()) >= 8


@pytest.mark.parametrize("name", sorted(KEYWORD_ONLY))
def test_keyword_only_concepts(name):
    for where, param in _uses(name, options=True).items():
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, f"{where}: {name} is positional"


@pytest.mark.parametrize("name", sorted(ALLOWED_WHERE))
def test_no_concept_under_another_meaning(name):
    # a new use of `method` or `n_samples` means a new row (or a new name)
    assert set(_uses(name)) <= ALLOWED_WHERE[name], set(_uses(name)) - ALLOWED_WHERE[name]


def test_old_names_are_gone():
    for name in GONE:
        uses = set(_uses(name)) - {w for (w, n) in PENDING_FIELDS if n == name}
        assert not uses, f"old name {name!r} still in {sorted(uses)}"
    for (where, name), why in PENDING_FIELDS.items():
        assert name in SIGS[where].parameters, f"stale pending field {where}.{name} ({why})"
    # `runs` is the runs mode (a string), never a count; `correction` never a bool
    assert {p.default for p in _uses("runs").values()} == {"average"}
    assert not [w for w, p in _uses("correction").items() if isinstance(p.default, bool)]
    # posterior draws are not n_samples (that counts items)
    assert not {"bayesian_signed_rank", "hierarchical_bayes"} & set(_uses("n_samples"))


def test_the_predictions_and_scores_of_two_systems_have_one_name_each():
    for where, sig in SIGS.items():
        params = list(sig.parameters)
        if "y_pred_a" in params and not where.startswith(("power", "minimum_detectable",
                                                           "sample_size")):
            assert "y_pred_b" in params, where
        if "scores_a" in params:
            assert params[params.index("scores_a") + 1] == "scores_b", where


RENAME_CASES = [(where, old, new) for where, pairs in RENAMES.items()
                for old, new in pairs.items()]


@pytest.mark.parametrize("where, old, new", RENAME_CASES)
def test_old_keyword_raises_type_error_naming_the_new_one(where, old, new):
    func = _resolve(where)
    # the shared mechanism, recorded on the callable (a class: on its __init__)
    target = func.__init__ if inspect.isclass(func) else func
    assert target.__renamed_keywords__[old] == new
    sig = inspect.signature(func)
    assert new in sig.parameters and old not in sig.parameters
    args = (None,) if "." in where else ()  # a method: any self, it fails first
    message = f"{where}() got the old keyword '{old}'; it is now '{new}'."
    with pytest.raises(TypeError, match=re.escape(message)):
        func(*args, **{old: 1})


def test_renamed_keywords_through_the_registry_and_set_params():
    with pytest.raises(TypeError, match="McNemar\\(\\) got the old keyword 'correction'"):
        sigtest.get_test("mcnemar", correction=False)
    assert sigtest.get_test("mcnemar", continuity=False).continuity is False


def test_cross_val_compare_prediction_method_is_response_method():
    params = inspect.signature(sigtest.cross_val_compare).parameters
    assert "response_method" in params and "method" not in params


def test_the_design_page_table_is_this_table():
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index("## Naming table")
    end = text.find("\n## ", start + 1)
    section = text[start:] if end < 0 else text[start:end]
    rows = re.findall(r"^\|([^|]+)\| `(\w+)` \|([^|]*)\|", section, re.M)
    names = {name: default.strip() for concept, name, default in rows}
    for name, (default, _) in DEFAULTS.items():
        assert name in names, name
        shown = re.fullmatch(r"`([^`]*)`", names[name])
        assert shown and shown.group(1) == repr(default).replace("'", '"'), (name, names[name])
    assert set(names) == set(DEFAULTS) | NO_DEFAULT | {"response_method", "test"}
