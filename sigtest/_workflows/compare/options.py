"""The options of a comparison, validated once into one frozen object.

scipy's ``_bootstrap_iv`` pattern: :func:`sigtest.compare` checks its
keyword arguments once (the types by its ``validate_params`` decorator, the
values that need the data here) and hands the normalised
:class:`CompareOptions` down (``compare_inputs`` -> ``plan_inputs`` ->
``plan_comparison`` -> the result), instead of relaying some twenty names
through every function. :func:`sigtest.cross_val_compare`,
:meth:`sigtest.Experiment.run` and :meth:`ComparisonResult.recompare` build
the same object with the same checks. The result exposes it as
:attr:`ComparisonResult.options`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from sigtest._constants import BOOTSTRAP_OPTIONS
from sigtest._engine.design import check_ids
from sigtest._workflows.compare.maxt import COMPARE_CORRECTIONS
from sigtest._workflows.compare.packed import read_only_copy, unpack_runs
from sigtest._workflows.overall import OVERALL_OPTIONS
from sigtest._workflows.runs import RUNS_MODES
from sigtest.metrics import Metric
from sigtest.utils._param_validation import lazy, validate_parameter_constraints

__all__ = ["COMPARE_OPTIONS", "CompareOptions", "ComparisonData", "check_item_ids", "compare_options",
           "check_option_types", "recompare_options"]


#: Lazy recipes of scikit-learn's constraints (see
#: :mod:`sigtest.utils._param_validation`) of the options that
#: :meth:`ComparisonResult.recompare` may change: valid arguments are
#: recognised without importing scikit-learn, anything else gets its
#: validator and error. :func:`sigtest.compare` adds ``sample_weight``.
COMPARE_OPTIONS = {
    "metrics": [str, Metric, callable, list, tuple],
    "test": [lazy.HasMethods(["test"]), str, list, tuple, None],
    "pairs": [lazy.StrOptions({"all", "baseline", "adjacent"})],
    "baseline": [str, list, tuple, None],
    "correction": [lazy.StrOptions(set(COMPARE_CORRECTIONS)), None],
    "alpha": [lazy.Interval(Real, 0, 1, closed="neither")],
    "n_jobs": [Integral, None],
    "random_state": [None, Integral, np.random.SeedSequence, np.random.Generator,
                     np.random.RandomState],
    "verbose": ["boolean"],
    "runs": [lazy.StrOptions(set(RUNS_MODES))],
    "labels": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "ci": [lazy.StrOptions({"marginal", "simultaneous"})],
    "groups": ["array-like", None],
    "strata": ["array-like", None],
    "bootstrap": [lazy.StrOptions(set(BOOTSTRAP_OPTIONS))],
    "overall": [lazy.StrOptions(set(OVERALL_OPTIONS)), None],
}


@dataclass(frozen=True, eq=False)
class CompareOptions:
    """The options of one comparison, as :func:`sigtest.compare` validated them.

    One field per keyword argument of :func:`sigtest.compare`, with the same
    name, meaning and default: scipy's ``BootstrapMethod`` idea, the settings
    of a call as one object. Built once per call by
    :func:`compare_options` (:func:`sigtest.compare`,
    :func:`sigtest.cross_val_compare`, :meth:`sigtest.Experiment.run` and
    :meth:`ComparisonResult.recompare` all go through it) and read by every
    stage of the comparison. Frozen: ``groups``, ``strata`` and
    ``sample_weight`` are read-only copies, so a caller reusing its buffers
    changes nothing; :meth:`ComparisonResult.recompare` runs the comparison
    again with some options changed. Compared by identity (its arrays have
    no single truth value); compare :meth:`asdict` field by field.

    ``test`` and ``correction`` are the values given (``None``, ``"auto"``):
    the correction applied is :attr:`ComparisonResult.correction`, the tests
    as run :attr:`ComparisonResult.test_specs`. For
    :func:`sigtest.cross_val_compare`, ``runs`` is ``"each"`` (one run per
    CV repeat) and ``random_state`` is the child seed its tests use (the seed
    given to it is :attr:`ComparisonResult.random_state`). With ``overall``,
    the result's ``sample_weight`` holds the item weights the comparison
    used (for ``"macro"``, those derived from the tasks and the weights
    given, :func:`sigtest._workflows.overall.overall_weights`);
    :meth:`ComparisonResult.recompare` starts again from the weights given.

    Parameters
    ----------
    metrics : str, Metric, callable, scorer or sequence, default=("accuracy", "f1_macro")
        As in :func:`sigtest.compare`.
    test : SignificanceTest, str, tuple or list, optional
        As in :func:`sigtest.compare`.
    pairs : {"all", "baseline", "adjacent"}, default="all"
        As in :func:`sigtest.compare`.
    baseline : str or list of str, optional
        As in :func:`sigtest.compare`.
    correction : str or None, default="auto"
        As in :func:`sigtest.compare`.
    alpha : float, default=0.05
        As in :func:`sigtest.compare`.
    n_jobs : int, optional
        As in :func:`sigtest.compare`.
    random_state : None, int, SeedSequence or Generator
        As in :func:`sigtest.compare`.
    verbose : bool, default=False
        As in :func:`sigtest.compare`.
    runs : {"average", "each", "mean", "pool", "nested"}, default="average"
        As in :func:`sigtest.compare`.
    labels : array-like, optional
        As in :func:`sigtest.compare`.
    pos_label : int, str or bool, optional
        As in :func:`sigtest.compare`.
    ci : {"marginal", "simultaneous"}, default="marginal"
        As in :func:`sigtest.compare`.
    sample_weight : array-like of shape (n_samples,), optional
        As in :func:`sigtest.compare` (a numeric array is kept as a
        read-only copy).
    groups : array-like of shape (n_samples,), optional
        As in :func:`sigtest.compare` (kept as a read-only copy).
    strata : array-like of shape (n_samples,), optional
        As in :func:`sigtest.compare` (kept as a read-only copy).
    bootstrap : {"auto", "resample", "multiplier"}, default="auto"
        As in :func:`sigtest.compare`.
    overall : {"macro", "micro"} or None, default=None
        As in :func:`sigtest.compare`.

    See Also
    --------
    sigtest.compare : Runs a comparison of these options.
    ComparisonResult.recompare : Runs it again with some options changed.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> preds = {s: np.where(rng.random(200) < p, y, 1 - y)
    ...          for s, p in [("base", 0.7), ("new", 0.8)]}
    >>> result = compare(y, preds, metrics="accuracy", random_state=0)
    >>> result.options.metrics, result.options.correction, result.options.alpha
    ('accuracy', 'auto', 0.05)
    >>> result.recompare(alpha=0.01).options.alpha
    0.01
    """

    metrics: Any = ("accuracy", "f1_macro")
    test: Any = None
    pairs: str = "all"
    baseline: Any = None
    correction: Any = "auto"
    alpha: float = 0.05
    n_jobs: Any = None
    random_state: Any = None
    verbose: bool = False
    runs: str = "average"
    labels: Any = None
    pos_label: Any = None
    ci: str = "marginal"
    sample_weight: Any = None
    groups: Any = None
    strata: Any = None
    bootstrap: str = "auto"
    overall: Any = None

    def asdict(self):
        """The options as a dict (shallow: the arrays are not copied).

        Returns
        -------
        options : dict
            ``{name: value}`` in the order of :func:`sigtest.compare`'s
            keyword arguments; ``compare(y_true, predictions,
            **options.asdict())`` repeats the comparison.
        """
        # dataclasses.asdict deep-copies (scipy's BootstrapMethod avoids it too)
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class ComparisonData:
    """What a :class:`ComparisonResult` keeps to recompute from its inputs (private).

    ``targets`` (``{input type: gold}``), ``stored_runs`` (``{system:
    [stored run]}``, :func:`~sigtest._workflows.compare.packed.pack_runs`;
    read back as ``runs``) and ``classes`` as the comparison checked them;
    ``score_settings``, the method, resamples, level and root ``seed`` of
    the per-system score intervals (:func:`sigtest._workflows.compare.plan.score_settings`);
    ``random_state``, the seed the user gave (``cross_val_compare``'s, not
    its tests' child seed); ``rerun``, the function that runs a comparison
    of these inputs again (``compare_inputs``, bound to the CV folds for
    :func:`sigtest.cross_val_compare`: handed over, since the result does not
    import the module that builds it); ``kept_scores``, every system's
    shared bootstrap scores per metric that the comparison drew (its tests'
    or its max-T correction's; :func:`sigtest._workflows.compare.draws.kept_scores`),
    which :meth:`ComparisonResult.ranks` reads instead of drawing again.
    """

    targets: dict
    stored_runs: dict
    classes: Any
    score_settings: dict
    random_state: Any
    rerun: Any
    kept_scores: Any = None

    @property
    def runs(self):
        """``{system: [read-only run, ...]}``: the stored runs read back
        (:func:`~sigtest._workflows.compare.packed.unpack_runs`; new arrays
        where they are stored narrow)."""
        return unpack_runs(self.stored_runs)


def check_item_ids(ids, name, n_samples):
    """One id per item (``groups`` or ``strata``) as a read-only 1-D array, or None.

    Only the shape is checked here (the message names the parameter); the
    engine's input path checks the values (missing ids, a single cluster, a
    cluster in two strata) before any test runs.
    """
    if ids is None:
        return None
    arr = check_ids(ids, name, n_samples)
    return read_only_copy(arr)


def _numeric_array(arr):
    return isinstance(arr, np.ndarray) and arr.dtype.kind in "biuf"


def _checked(options, n_samples):
    """``options`` with the checks that need the data done (``n_samples`` items)."""
    n_jobs = options.n_jobs
    if isinstance(n_jobs, (bool, np.bool_)) or n_jobs == 0:
        raise ValueError(
            "The 'n_jobs' parameter must be None, an int >= 1 or <= -1 (joblib's rule), "
            f"not a bool or 0. Got {n_jobs!r} instead."
        )
    weights = options.sample_weight
    return dataclasses.replace(
        options,
        groups=check_item_ids(options.groups, "groups", n_samples),
        strata=check_item_ids(options.strata, "strata", n_samples),
        # the engine checks the weights (values, length) with its own messages:
        # only a numeric array is copied here (its values unchanged)
        sample_weight=read_only_copy(weights) if _numeric_array(weights) else weights)


def compare_options(n_samples, **options):
    """Input validation and standardisation of :func:`sigtest.compare`'s options.

    The keyword types are checked by the entry point's ``validate_params``
    decorator (or by :meth:`CompareOptions.replace`); this checks what needs
    the data (``n_samples`` items): ``n_jobs`` (joblib's rule), ``groups``
    and ``strata`` (one id per item, the message naming the parameter), and
    copies the arrays read-only.

    Parameters
    ----------
    n_samples : int
        Number of items of the comparison.
    **options
        Keyword arguments of :func:`sigtest.compare` (those not given keep
        its defaults).

    Returns
    -------
    options : CompareOptions
    """
    return _checked(CompareOptions(**options), n_samples)


def check_option_types(options, caller_name):
    """Check ``options`` (a dict of compare's options) as :func:`sigtest.compare` checks them.

    Against :data:`COMPARE_OPTIONS` (the options of :func:`sigtest.compare`
    but ``sample_weight``, which belongs to the data): an unknown keyword is
    a ``TypeError``, a bad value the ``ValueError``/``TypeError`` of
    ``compare``'s own check, naming the parameter and ``caller_name``.
    """
    unknown = set(options) - set(COMPARE_OPTIONS)
    if unknown:
        raise TypeError(f"{caller_name}() got unexpected arguments {sorted(unknown)}.")
    validate_parameter_constraints(
        {k: COMPARE_OPTIONS[k] for k in options}, options, caller_name=caller_name)


def recompare_options(options, changes, n_samples):
    """The options of :meth:`ComparisonResult.recompare`: ``options`` updated by ``changes``.

    ``changes`` are checked by :func:`check_option_types`, then with the
    data (``n_samples`` items) as :func:`compare_options` checks them.
    """
    check_option_types(changes, "recompare")
    return _checked(dataclasses.replace(options, **changes), n_samples)
