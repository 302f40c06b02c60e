"""The :class:`~sigtest.experiment.Experiment` object over a store.

Its public page, with the store layout and the guarantees of the files,
is the docstring of :mod:`sigtest.experiment`; the on-disk format is
described in :mod:`sigtest._store`.
"""

import datetime
import platform
from numbers import Integral

import numpy as np
import pandas as pd

from sigtest._store.store import ExperimentStore
from sigtest._version import __version__
from sigtest.utils._renamed import refused_keywords

__all__ = ["Experiment"]

_MISSING = ("error", "intersect")

#: How :func:`sigtest.compare` derives its seeds (``outcomes.json``,
#: ``seeds.scheme``); it describes ``sigtest._workflows.compare.plan.plan_comparison``.
SEED_SCHEME = (
    "compare: seeds = spawn_seeds(random_state, n_runs * n_pairs * n_roles), taken in the "
    "order run -> pair -> test role; pairs in canonical order (sorted by system names, the "
    "names sorted within a pair for pairs='all' and 'adjacent', the baseline first for "
    "pairs='baseline'); "
    "for each test in the order given, one seed for its p-value test, then one for its "
    "interval test if it has one (n_roles counts them); every metric of a pair uses the "
    "pair's seeds (the same resamples); each pair is tested in its canonical orientation "
    "and its row re-oriented to the order given; one more child after the pairs' seeds is "
    "the root of the per-system score intervals (ComparisonResult.scores): it spawns one "
    "seed per (run, system sorted by name), shared by the system's metrics"
)


def _describe_test(test):
    if test is None:
        return None
    if isinstance(test, str):
        return test
    if isinstance(test, (list, tuple)):
        return [_describe_test(t) for t in test]
    params = test.get_params(deep=False) if hasattr(test, "get_params") else {}
    return {"class": type(test).__name__, "params": params}


def _n_distinct(ids):
    """Number of distinct ids (``None`` for no ids)."""
    return None if ids is None else int(len(np.unique(ids)))


def _versions():
    import numba
    import scipy
    import sklearn

    return {"sigtest": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "scipy": scipy.__version__, "pandas": pd.__version__,
            "scikit-learn": sklearn.__version__, "numba": numba.__version__}


# --------------------------------------------------------------------- store
class Experiment:
    """A directory that stores predictions run by run and tests them.

    Feed each run of each system as soon as it is produced (:meth:`feed`),
    possibly from several processes and sessions, then compare all of them
    at once (:meth:`run`), which aligns every run to the gold labels by item
    id and calls :func:`sigtest.compare`. The store keeps the gold labels
    and item ids in ``manifest.json``, the predictions as ``.npy`` files,
    and the last results in ``results.tsv`` and ``outcomes.json``.

    Parameters
    ----------
    path : str or os.PathLike
        Directory of the store; created by the first :meth:`feed` if needed.

    See Also
    --------
    sigtest.compare : The comparison that :meth:`run` performs.

    Notes
    -----
    Systems keep the order of their first feed: with ``pairs="all"``
    system A of each pair is the one fed first (choose another order with
    ``run(systems=[...])``). Runs are numbered ``0, 1, ...`` per system
    unless ``run=`` is given; ``runs="each"`` pairs runs by number.

    References
    ----------
    T. Fornaciari, A. Uma, M. Poesio and D. Hovy (2022). Hard and soft
    evaluation of NLP models with BOOtSTrap SAmpling - BooStSa. ACL System
    Demonstrations, sec. 4.4.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from sigtest import Experiment, PairedPermutation
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> exp = Experiment(tmp.name)
    >>> exp.feed("h0", np.where(rng.random(200) < 0.6, y, 1 - y), y_true=y)
    0
    >>> order = rng.permutation(200)        # h1 predicted the items shuffled
    >>> h1 = np.where(rng.random(200) < 0.9, y, 1 - y)
    >>> exp.feed("h1", h1[order], ids=order)
    0
    >>> res = exp.run(metrics="accuracy", test=PairedPermutation(n_resamples=999))
    >>> res.to_frame()[["system_a", "system_b", "score_a", "score_b"]]
      system_a system_b  score_a  score_b
    0       h0       h1    0.565     0.94
    >>> bool(exp.load_results()["significant"][0])
    True
    >>> tmp.cleanup()
    """

    def __init__(self, path):
        self._store = ExperimentStore(path)
        self.path = self._store.path

    @classmethod
    def load(cls, path):
        """Open an existing store (``ValueError`` if ``path`` holds none).

        Parameters
        ----------
        path : str or os.PathLike
            Directory of a store written by :meth:`feed`.

        Returns
        -------
        experiment : Experiment
            The store, its manifest read and its format checked.

        Raises
        ------
        ValueError
            ``path`` holds no ``manifest.json``, one of another format, or
            a corrupt one (the message says how to :meth:`recover`).

        Notes
        -----
        Opening tidies what killed writers left behind (when the store is
        writable): an interrupted publication of :meth:`run`'s outputs is
        completed, and the store's own temporary files (``.*.tmp``) and
        prediction files that the manifest does not reference are deleted.
        No other file is touched.
        """
        exp = cls(path)
        if not exp._store.exists():
            if (exp.path / "manifest.json.bak").is_file():
                exp._store.read()  # raises: missing manifest, with the way to recover
            raise ValueError(f"No sigtest experiment at {str(exp.path)!r} (no manifest.json).")
        exp._store.open()
        return exp

    def recover(self):
        """Restore the previous manifest when ``manifest.json`` is corrupt or missing.

        Every feed and remove keeps the manifest it replaces as
        ``manifest.json.bak``. A manifest that is damaged (truncated, not
        JSON, hand-edited into something invalid, a path outside the store)
        is never repaired silently: reading the store raises a
        ``ValueError`` pointing here. ``recover`` then puts the backup in
        place, keeping the damaged file as ``manifest.json.corrupt``; runs
        of the backup whose prediction file is missing or damaged are
        dropped with a warning. The last feed or remove before the damage
        is lost (feed it again). A valid manifest is left as it is.

        Returns
        -------
        report : dict
            ``restored`` (bool: whether the backup was put back),
            ``dropped`` (list of ``[system, run]`` removed for want of
            their file) and ``corrupt_copy`` (path of the damaged manifest
            kept, or None).

        Raises
        ------
        ValueError
            The manifest is damaged and the backup is missing or damaged too.

        Examples
        --------
        >>> import tempfile
        >>> from sigtest import Experiment
        >>> tmp = tempfile.TemporaryDirectory()
        >>> exp = Experiment(tmp.name)
        >>> exp.feed("a", [0, 1, 1, 0], y_true=[0, 1, 0, 0])
        0
        >>> exp.feed("b", [0, 1, 0, 0])
        0
        >>> with open(exp.path / "manifest.json", "r+b") as fh:  # damage it
        ...     _ = fh.truncate(40)
        >>> try:
        ...     exp.systems
        ... except ValueError as exc:
        ...     print("is corrupt" in str(exc), "recover()" in str(exc))
        True True
        >>> exp.recover()["restored"]
        True
        >>> exp.systems  # the state before the last feed
        ['a']
        >>> tmp.cleanup()
        """
        return self._store.recover()

    def __repr__(self):
        return f"Experiment({str(self.path)!r})"

    @property
    def systems(self):
        """Names of the systems fed so far, in order of first feed."""
        return self._store.systems()

    def runs(self, system):
        """Sorted run numbers of ``system``.

        Parameters
        ----------
        system : str
            Name of a stored system.

        Returns
        -------
        runs : list of int
            Its run numbers, in increasing order.
        """
        return self._store.runs(system)

    def gold(self):
        """Return every item id with its gold label, in store order.

        Returns
        -------
        ids : numpy.ndarray of shape (n_items,)
            Item identifiers.
        y_true : numpy.ndarray of shape (n_items,) or (n_items, n_classes)
            Gold label (or distribution) of each id.

        Raises
        ------
        ValueError
            Nothing has been fed yet.
        """
        return self._store.gold()

    def design(self):
        """Return every item id with its stored cluster and stratum id, in store order.

        Returns
        -------
        ids : numpy.ndarray of shape (n_items,)
            Item identifiers (as :meth:`gold`).
        groups : numpy.ndarray of shape (n_items,) or None
            Cluster id of each item (``None`` if no ``groups`` were fed; an
            item fed without one holds ``None``).
        strata : numpy.ndarray of shape (n_items,) or None
            Stratum id of each item, likewise.

        Raises
        ------
        ValueError
            Nothing has been fed yet.
        """
        return self._store.design()

    def load_run(self, system, run):
        """Return the item ids and predictions of one run, as fed.

        Parameters
        ----------
        system : str
            Name of a stored system.
        run : int
            One of its run numbers (see :meth:`runs`).

        Returns
        -------
        ids : numpy.ndarray of shape (n_items,)
            Item identifiers, in feed order.
        predictions : numpy.ndarray of shape (n_items,) or (n_items, n_classes)
            The predictions fed for these ids.

        Raises
        ------
        ValueError
            An unknown system or run (the message lists what exists).
        """
        return self._store.load_run(system, run)

    def feed(self, system, predictions, *, y_true=None, ids=None, groups=None, strata=None,
             run=None, overwrite=False):
        """Store one run of one system.

        Parameters
        ----------
        system : str
            System (condition) name, e.g. ``"h0"`` or ``"mtl"``.
        predictions : array-like of shape (n_items,) or (n_items, n_classes)
            Hard labels or probabilities for the items ``ids``, in that order.
        y_true : array-like of shape (n_items,) or (n_items, n_classes), optional
            Gold labels (or distributions) of the items ``ids``. Required on
            the first feed. Later values must equal the stored ones on the
            ids they share; new ids extend the gold.
        ids : array-like of int or str, optional
            Item identifiers (e.g. dataset indexes after shuffling), unique.
            Default ``0 .. n_items - 1`` (the items by position): a feed
            without ``ids`` nor ``y_true`` must then have one row per stored
            gold item, else it is refused (a missing row would misalign
            every later item). Every id must have a gold label.
        groups : array-like of int or str, optional
            Cluster id of each of the items ``ids`` (e.g. the document of a
            sentence), stored with the gold like ``y_true``: give it once
            (usually with the first feed); later feeds may repeat it (it
            must agree on the ids they share) and must give it for the ids
            they add to the gold. :meth:`run` then tests with whole clusters
            resampled (``groups=`` of :func:`sigtest.compare`).
        strata : array-like of int or str, optional
            Stratum id of each of the items ``ids`` (e.g. a domain), stored
            like ``groups``; :meth:`run` passes it as ``strata=``. With
            ``groups``, each cluster must lie in one stratum.
        run : int, optional
            Run number (>= 0); default: one more than the system's largest.
        overwrite : bool, default=False
            Replace an existing ``(system, run)`` instead of raising.

        Returns
        -------
        run : int
            The run number stored.

        Raises
        ------
        ValueError
            No gold yet, gold disagreeing with the stored gold, ids without
            gold, duplicate ids, lengths that differ (also a feed without
            ``ids`` nor ``y_true`` whose length differs from the stored
            gold's), an existing run
            without ``overwrite=True``, or a feed the store could not be
            run with: hard labels of another type than the gold's (strings
            vs numbers), 1-D predictions holding non-integer numbers
            (probabilities belong in an ``(n_items, n_classes)`` array),
            probability columns that do not match the gold's classes,
            values outside [0, 1], ids of another type than the store's, or
            new gold ids that add a class while probability runs of the old
            class count are stored; ``groups`` / ``strata`` that are not
            1-D ints or strings of the length of the predictions, disagree
            with the stored ones, are missing for new gold ids of a store
            that holds them, or put a cluster in two strata. Nothing is
            written when a feed is
            refused (a failed first feed leaves no directory behind). Also
            a corrupt manifest (see :meth:`recover`).
        RuntimeError
            Another live process holds the store's lock for more than 60 s
            (a process that died holds none).

        Notes
        -----
        With 1-D gold labels, column ``k`` of a probability array is the
        ``k``-th class of the sorted gold labels (as in
        :func:`sigtest.compare`); with 2-D gold distributions, the classes
        are its columns and hard predictions are column indices.
        """
        return self._store.feed(system, predictions, y_true=y_true, ids=ids, groups=groups,
                                strata=strata, run=run, overwrite=overwrite)

    def remove(self, system, run=None):
        """Remove one run of a system, or the whole system, from the store.

        The manifest is rewritten atomically (under the feed lock) before
        the prediction files are deleted, so a crash never leaves the
        manifest pointing at a missing file. Removing the last run of a
        system removes the system. The gold is kept, and so are
        ``results.tsv`` and ``outcomes.json`` of the last :meth:`run`.

        Parameters
        ----------
        system : str
            Name of a stored system.
        run : int, optional
            Run number to remove; default: every run of ``system``.

        Returns
        -------
        removed : list of int
            The run numbers removed.

        Raises
        ------
        ValueError
            No store at ``path``, an unknown system, or a run the system
            does not have (the message names it and lists what exists).
        """
        return self._store.remove(system, run)

    @refused_keywords(
        sample_weight=("the store keeps the gold without item weights; test weighted items "
                       "with sigtest.compare(..., sample_weight=) on gold() and load_run()."),
        groups="the groups are data: store them with the gold by feed(groups=).",
        strata="the strata are data: store them with the gold by feed(strata=).")
    def run(self, *, metrics=("accuracy", "f1_macro"), test=None, pairs="all", baseline=None,
            correction="auto", runs="average", alpha=0.05, systems=None, on_missing="error",
            n_jobs=None, random_state=0, verbose=False, labels=None, pos_label=None,
            bootstrap="auto", overall=None):
        """Compare every stored system and save ``results.tsv`` and ``outcomes.json``.

        The two files are published as one unit: a process killed during
        ``run`` leaves the previous pair or the new one, never a mix.

        Every run is aligned to the gold by its item ids (not by feed order),
        the items taken in sorted-id order (so the order in which the gold
        was fed does not matter either), then :func:`sigtest.compare` tests
        the systems, with the stored cluster and stratum ids of the same
        items as its ``groups`` and ``strata`` (see :meth:`feed`); see it for
        ``metrics``, ``test``, ``pairs``, ``baseline``, ``correction``,
        ``runs``, ``alpha``, ``n_jobs``, ``verbose``, ``labels``,
        ``pos_label``, ``bootstrap`` and ``overall``, which are checked as
        it checks them
        (:func:`~sigtest._workflows.compare.options.check_option_types`)
        before the store is read.

        ``groups`` and ``strata`` are not parameters: they are data, stored
        with the gold by :meth:`feed` and passed to :func:`sigtest.compare`
        from the store. There is no ``sample_weight`` either: an item weight
        belongs with the gold, which the store keeps without weights; test
        weighted items with ``sigtest.compare(..., sample_weight=)`` on
        :meth:`gold` and :meth:`load_run`. ``ci`` keeps
        :func:`sigtest.compare`'s default (marginal intervals);
        ``result.recompare(ci="simultaneous")`` gives the other one.

        Parameters
        ----------
        metrics : str, Metric or sequence, default=("accuracy", "f1_macro")
            As in :func:`sigtest.compare`.
        test : SignificanceTest, str, tuple or list, optional
            As in :func:`sigtest.compare`; a str is a registry name
            (:func:`sigtest.get_test`).
        pairs : {"all", "baseline", "adjacent"}, default="all"
            As in :func:`sigtest.compare`.
        baseline : str or list of str, optional
            As in :func:`sigtest.compare`.
        correction : str or None, default="auto"
            As in :func:`sigtest.compare` (whose default this follows: Holm,
            or max-T for a large family on 10^4 items or more); the
            correction applied is recorded as ``correction_applied``.
        runs : {"average", "each", "mean", "pool"}, default="average"
            How several runs per system are used, as in
            :func:`sigtest.compare` (whose default this follows): the
            per-item statistics averaged over runs; ``"pool"`` is BooStSa's
            mode and warns.
        alpha : float, default=0.05
            As in :func:`sigtest.compare`.
        systems : list of str, optional
            Systems to compare, in this order; default: all, in feed order.
        on_missing : {"error", "intersect"}, default="error"
            A run that lacks some gold ids raises a ``ValueError`` naming the
            system and run, or (``"intersect"``) every run is tested on the
            ids that all of them have, with a warning.
        n_jobs : int, optional
            As in :func:`sigtest.compare`.
        random_state : int or None, default=0
            Seed of :func:`sigtest.compare`; ``None`` draws one from the OS
            and records it in ``outcomes.json`` so the run can be repeated.
        verbose : bool, default=False
            As in :func:`sigtest.compare`.
        labels : array-like, optional
            Class set of the label metrics (e.g. the classes macro-F1
            averages over), passed to :func:`sigtest.compare`; recorded in
            ``outcomes.json``.
        pos_label : int or str, optional
            Positive class of one-class scores, passed to
            :func:`sigtest.compare`.
        bootstrap : {"auto", "resample", "multiplier"}, default="auto"
            Source of the shared bootstrap draws, as in
            :func:`sigtest.compare`; the source used is recorded as
            ``bootstrap_applied``.
        overall : {"macro", "micro"} or None, default=None
            An overall comparison across the stored strata (the task of
            every item, given to :meth:`feed`), as in
            :func:`sigtest.compare`; recorded in ``outcomes.json``.

        Returns
        -------
        result : ComparisonResult
            With ``runs="each"``, its ``run`` column is the position of the
            run among the sorted run numbers (``outcomes.json`` lists them
            under ``data.runs``); it equals the run number for runs fed with
            the default numbering. Clustered or stratified (stored
            ``groups`` / ``strata``): its ``n_groups`` / ``n_strata`` say
            so, and ``outcomes.json`` records them under ``data``.

        Raises
        ------
        ValueError
            Nothing fed, an unknown system, a run lacking gold ids (with
            ``on_missing="error"``), an item to test without a stored
            cluster or stratum id while others have one, a damaged store (a
            corrupt manifest, or a prediction file that is missing, not a
            ``.npy`` array, truncated or of another shape than its ids: the
            message names the file), ``overall`` without stored strata, or
            an error of :func:`sigtest.compare`.
        RuntimeError
            Another live process holds the store's lock for more than 60 s.
        """
        if on_missing not in _MISSING:
            raise ValueError(f"The 'on_missing' parameter must be one of {_MISSING}; got "
                             f"{on_missing!r} instead.")
        if random_state is not None and (not isinstance(random_state, Integral)
                                         or isinstance(random_state, bool)):
            raise TypeError("The 'random_state' parameter of Experiment.run must be an int "
                            f"or None (it is saved in outcomes.json); got {random_state!r}.")
        # compare and the tests load numba and scipy: imported when a run needs them
        from sigtest._workflows.compare.api import compare
        from sigtest._workflows.compare.options import check_option_types
        from sigtest.tests_ import get_test

        check_option_types(dict(metrics=metrics, test=test, pairs=pairs, baseline=baseline,
                                correction=correction, runs=runs, alpha=alpha, n_jobs=n_jobs,
                                verbose=verbose, labels=labels, pos_label=pos_label,
                                bootstrap=bootstrap, overall=overall), "Experiment.run")

        store = self._store
        manifest = store.read()
        if manifest["gold"] is None:
            raise ValueError("Nothing has been fed to this experiment yet.")
        if isinstance(systems, str):
            raise TypeError("The 'systems' parameter must be a list of system names, not a str.")
        names = list(manifest["systems"]) if systems is None else list(systems)
        if len(set(names)) != len(names):
            raise ValueError(f"The 'systems' parameter names a system twice: {names}.")
        for name in names:
            store.system(manifest, name)
        with store.lock():  # no feed may replace a file while it is read
            manifest = store.read()
            y, common, preds, run_numbers = store.aligned(manifest, names, on_missing)
            design = store.aligned_design(manifest, common)
            files = {n: {str(r): store.digest(manifest, n, r) for r in rs}
                     for n, rs in run_numbers.items()}
        several = any(len(v) > 1 for v in run_numbers.values())
        if runs == "each" and several and len({tuple(v) for v in run_numbers.values()}) > 1:
            raise ValueError(f"runs='each' pairs runs by number, so every system needs the "
                             f"same run numbers; got {run_numbers}.")
        seed = (int(np.random.SeedSequence().generate_state(1)[0]) if random_state is None
                else int(random_state))
        if overall is not None and design.get("strata") is None:
            raise ValueError(
                f"The 'overall' parameter of Experiment.run ({overall!r}) averages over the "
                "stored strata (the task of every item), but none are stored: feed the gold "
                "with strata=.")
        test_obj = get_test(test) if isinstance(test, str) else test
        extra = {k: v for k, v in (("labels", labels), ("pos_label", pos_label),
                                   *design.items()) if v is not None}
        result = compare(y, preds, metrics=metrics, test=test_obj, pairs=pairs,
                         baseline=baseline, correction=correction, alpha=alpha, n_jobs=n_jobs,
                         random_state=seed, verbose=verbose, runs=runs, bootstrap=bootstrap,
                         overall=overall, **extra)
        frame = result.to_frame()
        params = dict(metrics=result.metrics, test=_describe_test(test), tests=result.tests,
                      pairs=pairs, baseline=baseline, correction=correction,
                      correction_applied=result.correction, bootstrap=bootstrap,
                      bootstrap_applied=result.bootstrap, runs=runs,
                      alpha=alpha, systems=names, on_missing=on_missing, n_jobs=n_jobs,
                      labels=None if labels is None else np.asarray(labels).tolist(),
                      pos_label=pos_label, overall=overall)
        outcomes = {
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "parameters": params,
            "seeds": {"random_state": seed, "drawn": random_state is None,
                      "scheme": SEED_SCHEME},
            "versions": _versions(),
            "data": {"n_items": len(common), "n_gold": len(manifest["gold"]["ids"]),
                     "n_groups": _n_distinct(design["groups"]),
                     "n_strata": _n_distinct(design["strata"]),
                     "runs": run_numbers,
                     "files": files},
            "records": frame.to_dict(orient="records"),
            "summary": result.system_table().to_dict(orient="index"),
            "letters": self._letters(result, run_numbers),
        }
        if result.n_runs > 1:
            outcomes["runs_summary"] = result.runs_summary().to_dict(orient="records")
        store.publish(frame, outcomes)  # results.tsv and outcomes.json as one unit
        return result

    @staticmethod
    def _letters(result, run_numbers):
        """``{metric: {system: letters}}`` (per run number with several runs), or None."""
        if result.pairs != "all":
            return None
        out = {}
        for metric in result.metrics:
            if result.n_runs == 1:
                out[metric] = result.letters(metric)["letters"].to_dict()
            else:
                numbers = next(v for v in run_numbers.values() if len(v) > 1)
                out[metric] = {str(numbers[r]): result.letters(metric, run=r)["letters"].to_dict()
                               for r in range(result.n_runs)}
        return out

    # ----------------------------------------------------------------- results
    def load_results(self):
        """The table of the last :meth:`run`, read from ``results.tsv``.

        Returns
        -------
        frame : pandas.DataFrame
            The columns of :meth:`ComparisonResult.to_frame`; system and
            metric names are read as text.

        Raises
        ------
        ValueError
            :meth:`run` has not written results yet, or ``results.tsv`` is
            truncated, edited or from another run than ``outcomes.json``
            (its sha256 is recorded there; older stores: an incomplete
            table), naming the file.
        """
        return self._store.load_results()

    def load_outcomes(self):
        """The ``outcomes.json`` of the last :meth:`run`, as a dict.

        Returns
        -------
        outcomes : dict
            Parameters, seeds and seed scheme, versions, data digests,
            records, summary and letters of the last :meth:`run` (NaN and
            infinities stored as None), and ``outputs``: the sha256 and
            size of its ``results.tsv``.

        Raises
        ------
        ValueError
            :meth:`run` has not written outcomes yet, ``outcomes.json`` is
            damaged, or ``results.tsv`` does not match it (the message
            names the file).
        """
        return self._store.load_outcomes()
