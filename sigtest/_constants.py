"""Choices shared by several layers, importable without numpy (bottom layer).

The command-line interface builds its parser (``sigtest --help``) from these
without importing the modules that compute, which load numpy and pandas.
"""

__all__ = ["BOOTSTRAP_OPTIONS", "CORRECTION_ALIASES", "CORRECTIONS", "HARNESSES", "MAXT_ALIASES",
           "MAXT_CORRECTIONS", "N_RESAMPLES", "RUNS_MODES", "TWO_STAGE_CORRECTIONS"]

#: The default number of resamples of every bootstrap, permutation and
#: Monte-Carlo computation (scipy's ``bootstrap`` and ``permutation_test``):
#: with B = 9999 the Monte-Carlo p-value (c + 1)/(B + 1) is a multiple of
#: 1/10000. A method whose source fixes another value keeps it and says so in
#: its docstring (``BooStSaBootstrap``: 1000).
N_RESAMPLES = 9999

#: How several runs (seeds) per system are used by ``compare``,
#: ``cross_val_compare`` and ``Experiment.run``: see ``sigtest._workflows.runs``.
RUNS_MODES = ("average", "each", "mean", "pool", "nested")

#: Other names accepted for a multiple-comparison correction: R's spellings
#: (``bh``, ``by``) and every other name statsmodels' ``multipletests`` accepts.
CORRECTION_ALIASES = {
    "bh": "fdr_bh", "by": "fdr_by",
    "b": "bonferroni", "bonf": "bonferroni", "s": "sidak", "h": "holm", "hs": "holm-sidak",
    "sh": "hochberg", "simes-hochberg": "hochberg", "ho": "hommel",
    "fdr_i": "fdr_bh", "fdr_p": "fdr_bh", "fdri": "fdr_bh", "fdrp": "fdr_bh",
    "fdr_n": "fdr_by", "fdr_c": "fdr_by", "fdrn": "fdr_by", "fdrcorr": "fdr_by",
    "fdr_2sbh": "fdr_tsbh", "fdr_2sbky": "fdr_tsbky", "fdr_twostage": "fdr_tsbky",
}

#: The corrections whose adjusted p-values depend on the level ``alpha``
#: (two-stage FDR: the first stage's rejections estimate the number of nulls).
TWO_STAGE_CORRECTIONS = ("fdr_tsbh", "fdr_tsbky")

#: Every accepted ``adjust_pvalues(method=)`` / ``compare(correction=)`` name:
#: the methods of ``sigtest.tests_._corrections``, then their aliases.
CORRECTIONS = ("holm", "bonferroni", "sidak", "holm-sidak", "hochberg", "hommel", "fdr_bh",
               "fdr_by", *TWO_STAGE_CORRECTIONS, "fdr_gbs") + tuple(CORRECTION_ALIASES)

#: ``compare``'s max-T corrections (Romano-Wolf step-down, Westfall-Young
#: single-step on the shared bootstrap) and the alias of the step-down.
MAXT_CORRECTIONS = ("max-t", "max-t-single-step")
MAXT_ALIASES = {"romano-wolf": "max-t"}

#: ``compare(bootstrap=)`` / ``ranks(bootstrap=)``: the source of the shared draws.
BOOTSTRAP_OPTIONS = ("auto", "resample", "multiplier")

#: ``read_scores(harness=)`` / ``compare --harness``: the evaluation harnesses whose
#: files are read (lm-evaluation-harness' --log_samples files, inspect_ai's logs).
HARNESSES = ("lm-eval", "inspect")
