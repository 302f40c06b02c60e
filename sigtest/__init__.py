"""sigtest: is system B really better than system A, or is it luck?

Fast, statistically correct significance tests for comparing machine-learning
and NLP systems, with metrics registered as scikit-learn scorers.

Every public name is imported on first use (PEP 562), so ``import sigtest``
loads neither scikit-learn, SciPy, pandas nor numba; ``from sigtest import
X`` and ``sigtest.X`` work for every name of ``__all__``.
"""

from sigtest._version import __version__

# public name -> module that defines it
_LAZY = {
    "metrics": "sigtest.metrics",
    "cv": "sigtest.cv",
    "AntiConservativeWarning": "sigtest.exceptions",
    "DegenerateDistributionWarning": "sigtest.exceptions",
    "ProbabilityRoundingWarning": "sigtest.exceptions",
    "SlowPathWarning": "sigtest.exceptions",
    "SmallSampleWarning": "sigtest.exceptions",
    "as_metric": "sigtest.metrics",
    "get_metric": "sigtest.metrics",
    "get_metric_names": "sigtest.metrics",
    "get_scorer": "sigtest.metrics",
    "get_scorer_names": "sigtest.metrics",
    "register_metric": "sigtest.metrics",
    "ConfidenceInterval": "sigtest._results",
    "ScoreResult": "sigtest.tests_._score",
    "score": "sigtest.tests_._score",
    "SignificanceResult": "sigtest._results",
    "TestOutcome": "sigtest._results",
    "PairedData": "sigtest._engine.paired",
    "ComparisonResult": "sigtest._workflows.compare.result",
    "CompareOptions": "sigtest._workflows.compare.options",
    "compare": "sigtest._workflows.compare.api",
    "cross_val_compare": "sigtest._workflows.cross_val",
    "compare_datasets": "sigtest._workflows.datasets",
    "read_scores": "sigtest._workflows.scores_table",
    "ScoreTable": "sigtest._workflows.scores_table",
    "DatasetComparisonResult": "sigtest._workflows.datasets_result",
    "Experiment": "sigtest.experiment",
    "BCaInterval": "sigtest.tests_",
    "BayesianBootstrap": "sigtest.tests_",
    "BergKirkpatrickBootstrap": "sigtest.tests_",
    "DeLong": "sigtest.tests_",
    "McNemar": "sigtest.tests_",
    "PairedPermutation": "sigtest.tests_",
    "PairedTTest": "sigtest.tests_",
    "SignificanceTest": "sigtest.tests_",
    "SignTest": "sigtest.tests_",
    "WilcoxonSignedRank": "sigtest.tests_",
    "get_test": "sigtest.tests_",
    "get_test_names": "sigtest.tests_",
    "register_test": "sigtest.tests_",
    "power": "sigtest._workflows.power.api",
    "minimum_detectable_effect": "sigtest._workflows.power.api",
    "sample_size": "sigtest._workflows.power.api",
    "PowerResult": "sigtest._workflows.power.result",
    "HierarchicalBootstrap": "sigtest.tests_",
    "almost_stochastic_order": "sigtest.tests_._aso",
    "aso_matrix": "sigtest.tests_._aso",
    "ASOResult": "sigtest.tests_._aso",
    "bayesian_signed_rank": "sigtest.tests_._bayes_datasets",
    "hierarchical_bayes": "sigtest.tests_._bayes_datasets",
    "DatasetPosterior": "sigtest.tests_._bayes_datasets",
    "adjust_pvalues": "sigtest.tests_._corrections",  # the statistician's toolbox
    "cochrans_q": "sigtest.tests_._cochran",
    "CochranQResult": "sigtest.tests_._cochran",
    "compact_letters": "sigtest._report.letters",
}

__all__ = [
    "HierarchicalBootstrap",
    "almost_stochastic_order",
    "aso_matrix",
    "ASOResult",
    "ComparisonResult",
    "CompareOptions",
    "compare",
    "score",
    "ScoreResult",
    "cross_val_compare",
    "compare_datasets",
    "DatasetComparisonResult",
    "read_scores",
    "ScoreTable",
    "bayesian_signed_rank",
    "hierarchical_bayes",
    "DatasetPosterior",
    "adjust_pvalues",
    "cochrans_q",
    "CochranQResult",
    "compact_letters",
    "Experiment",
    "BCaInterval",
    "BayesianBootstrap",
    "BergKirkpatrickBootstrap",
    "ConfidenceInterval",
    "PairedData",
    "TestOutcome",
    "DeLong",
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
    "SlowPathWarning",
    "SmallSampleWarning",
    "as_metric",
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
