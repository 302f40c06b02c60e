"""sigtest: is system B really better than system A, or is it luck?

Fast, statistically correct significance tests for comparing machine-learning
and NLP systems, with metrics registered as scikit-learn scorers.

Every public name is imported on first use (PEP 562), so ``import sigtest``
loads neither scikit-learn, SciPy, pandas nor numba; ``from sigtest import
X`` and ``sigtest.X`` work for every name of ``__all__``.
"""

from ._version import __version__

# public name -> module (relative to this package) that defines it
_LAZY = {
    "metrics": ".metrics",
    "cv": ".cv",
    "AntiConservativeWarning": ".exceptions",
    "DegenerateDistributionWarning": ".exceptions",
    "ProbabilityRoundingWarning": ".exceptions",
    "SmallSampleWarning": ".exceptions",
    "get_metric": ".metrics",
    "get_metric_names": ".metrics",
    "get_scorer": ".metrics",
    "get_scorer_names": ".metrics",
    "register_metric": ".metrics",
    "ConfidenceInterval": "._results",
    "ScoreResult": "._results",
    "score": "._score",
    "SignificanceResult": "._results",
    "TestOutcome": "._results",
    "PairedData": "._engine.paired",
    "ComparisonResult": "._comparison_result",
    "compare": "._compare",
    "cross_val_compare": "._cross_val",
    "compare_datasets": "._datasets",
    "DatasetComparisonResult": "._datasets",
    "Experiment": ".experiment",
    "BCaInterval": ".tests_",
    "BayesianBootstrap": ".tests_",
    "BergKirkpatrickBootstrap": ".tests_",
    "McNemar": ".tests_",
    "PairedPermutation": ".tests_",
    "PairedTTest": ".tests_",
    "SignificanceTest": ".tests_",
    "SignTest": ".tests_",
    "WilcoxonSignedRank": ".tests_",
    "get_test": ".tests_",
    "get_test_names": ".tests_",
    "register_test": ".tests_",
    "power": "._power",
    "minimum_detectable_effect": "._power",
    "sample_size": "._power",
    "PowerResult": "._power",
    "HierarchicalBootstrap": ".tests_",
    "almost_stochastic_order": "._aso",
    "aso_matrix": "._aso",
    "ASOResult": "._aso",
    "adjust_pvalues": "._corrections",  # issue 24: the statistician's toolbox
    "cochrans_q": ".tests_._cochran",
    "CochranQResult": ".tests_._cochran",
    "compact_letters": "._letters",
}

__all__ = [
    "HierarchicalBootstrap",
    "almost_stochastic_order",
    "aso_matrix",
    "ASOResult",
    "ComparisonResult",
    "compare",
    "score",
    "ScoreResult",
    "cross_val_compare",
    "compare_datasets",
    "DatasetComparisonResult",
    "Experiment",
    "BCaInterval",
    "BayesianBootstrap",
    "BergKirkpatrickBootstrap",
    "ConfidenceInterval",
    "PairedData",
    "TestOutcome",
    "McNemar",
    "PairedPermutation",
    "PairedTTest",
    "SignTest",
    "WilcoxonSignedRank",
    "SignificanceResult",
    "SignificanceTest",
    "get_test",
    "get_test_names",
    "register_test",
    "AntiConservativeWarning",
    "DegenerateDistributionWarning",
    "ProbabilityRoundingWarning",
    "SmallSampleWarning",
    "get_metric",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "metrics",
    "cv",
    "register_metric",
    "power",
    "minimum_detectable_effect",
    "sample_size",
    "PowerResult",
    "adjust_pvalues",
    "cochrans_q",
    "CochranQResult",
    "compact_letters",
]


def __getattr__(name):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(module_name, __name__)
    value = module if name in ("metrics", "cv") else getattr(module, name)
    globals()[name] = value  # later accesses do not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
