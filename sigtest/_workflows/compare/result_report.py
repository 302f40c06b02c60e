"""The exports of a :class:`~sigtest.ComparisonResult`: CSV, LaTeX, report, signature, MDE.

A mixin of :class:`~sigtest._workflows.compare.result.ComparisonResult`
(its methods render the result's stored frame and options); the class is
documented as one.
"""

from sigtest._report.format import csv_safe
from sigtest._report.latex import comparison_latex
from sigtest._report.signature import signature as _signature

__all__ = ["ReportViews"]


class ReportViews:
    """CSV and LaTeX tables, the report, the signature and the planning table (a mixin)."""

    __slots__ = ()

    # ----------------------------------------------------------------- exports
    def to_csv(self, path_or_buf=None, **kwargs):
        """Write :meth:`to_frame` as CSV (``pandas.DataFrame.to_csv``, no index).

        Text cells that a spreadsheet would run as a formula (a system name
        starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return)
        are written with a leading single quote (:func:`sigtest._report.format.csv_safe`,
        the OWASP advice against CSV injection); numbers are unchanged.

        Parameters
        ----------
        path_or_buf : str, path or file-like, optional
            Where to write; the CSV text is returned when None.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_csv` (``index=False`` unless
            given).

        Returns
        -------
        csv : str or None
            The CSV text when ``path_or_buf`` is None, else None.
        """
        kwargs.setdefault("index", False)
        return csv_safe(self._frame).to_csv(path_or_buf, **kwargs)

    def to_latex(self, buf=None, *, float_format="%.4f", **kwargs):
        """LaTeX table of :meth:`to_frame` (``pandas.DataFrame.to_latex``).

        p-values print as ``<0.0001`` rather than ``0.0000``; adjusted
        p-values carry stars (``*`` <= .05, ``**`` <= .01); the columns are
        named ``p (raw)``, ``p (<correction>)`` and ``resamples (p-test)``.
        Needs ``jinja2`` (a pandas requirement for LaTeX output).

        Parameters
        ----------
        buf : str, path or file-like, optional
            Where to write; the LaTeX text is returned when None.
        float_format : str, default="%.4f"
            Format of the other float columns.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_latex`.

        Returns
        -------
        latex : str or None
            The LaTeX text when ``buf`` is None, else None.
        """
        return comparison_latex(self._frame, self.correction, buf, float_format=float_format,
                                **kwargs)

    # ---------------------------------------------------------------- planning
    def minimum_detectable_effects(self, power=0.8, *, alpha=None, test=None,
                                   n_simulations=1000, random_state=None, **kwargs):
        r"""The minimum detectable effect of every non-significant row (opt-in: it simulates).

        For a row that is not significant, "not significant" says little
        unless the test set could have detected a relevant improvement: this
        gives the smallest improvement over ``system_a`` that ``test``
        detects with probability ``power`` on a test set like this one
        (:func:`sigtest.minimum_detectable_effect`, with ``system_a``'s
        predictions on the comparison's items as the pilot) — "not
        significant, and this test set could not have detected less than
        +1.9 F1". One search per distinct (``system_a``, metric).

        Parameters
        ----------
        power : float, default=0.8
            Target power, in (0, 1).
        alpha : float, default=None
            Level of the test; ``None``: the comparison's ``alpha`` (not
            corrected for multiple comparisons: pass a smaller one to plan
            for a corrected test).
        test : None, str or SignificanceTest, default=None
            ``None``: ``PairedPermutation(n_resamples=1000)``.
        n_simulations : int, default=1000
            Simulations per evaluated effect (the default of
            :func:`sigtest.minimum_detectable_effect`: the same question gets
            the same precision by either route).
        random_state : None, int, SeedSequence or Generator, default=None
            Seed; each (system, metric) gets a child seed derived from its
            names, so the table does not depend on the order of the systems.
        **kwargs
            ``discordance``, ``step``, ``n_jobs``, ``verbose``, ``tol`` of
            :func:`sigtest.minimum_detectable_effect`.

        Returns
        -------
        table : pandas.DataFrame
            One row per non-significant row of :meth:`to_frame`: ``system_a,
            system_b, metric, test, delta, pvalue, mde, mde_low, mde_high,
            mde_power, power_target, alpha, n_items, n_simulations,
            statement`` (``mde`` NaN when no reachable effect has the target
            power; ``mde_low, mde_high`` its Monte Carlo interval, 95 %,
            ``PowerResult.effect_interval``; ``statement`` the sentence to
            report, with that interval).

        Raises
        ------
        ValueError
            For several runs tested separately, clustered comparisons
            (``groups=``) and ``sample_weight`` (the simulation resamples
            independent items), or bad parameters (naming them).
        """
        # on first use: the power simulations are not needed to build a result
        # (compare imports power, never the reverse)
        from sigtest._workflows.power.table import comparison_mde_table

        return comparison_mde_table(
            self._frame, targets=self._data.targets, runs=self._data.runs,
            classes=self._data.classes, options=self._options,
            alpha=self._alpha if alpha is None else alpha,
            n_runs=self._n_runs, n_groups=self._n_groups, power=power, test=test,
            n_simulations=n_simulations, random_state=random_state, **kwargs)

    # ------------------------------------------------------------------ report
    def report(self, format="markdown", path=None, *, sections=None):
        """A report of the comparison to paste into a paper: Markdown, HTML or LaTeX.

        The report holds a generated methods paragraph (systems, items,
        tests with their resamples and seed, correction, letters), per
        metric each system's score with its interval (:meth:`scores`) and
        letters (:meth:`letters`, when every pair was tested in one run),
        the pairwise differences with their intervals, raw and adjusted
        p-values and stars, the references to cite for the tests and the
        correction used, and the reproducibility signature
        (:meth:`signature`). System and metric names are escaped for each
        format: they print literally.

        * ``"markdown"``: pipe tables (GitHub/CommonMark), no dependency.
        * ``"html"``: one self-contained page (inline CSS, the charts of
          the scores and of the differences as inline SVG; no external
          resource), checked in headless Chromium by the test suite. For
          more than 20 systems it is the interactive leaderboard
          (section ``"leaderboard_page"``: the leaderboard sortable and
          filterable by clicking, tiers coloured, the interval chart, the
          pairs folded, at most 2,000 of them, those closest in the
          ranking; a small inline script, no other), then the methods,
          references and signature.
        * ``"latex"``: a standalone ``article`` with ``booktabs`` tables
          (``\\usepackage{booktabs}``), whose tables can be pasted into a
          paper; each is placed ``[H]`` (``\\usepackage{float}``), so it
          stays under its heading.

        Parameters
        ----------
        format : {"markdown", "html", "latex"}, default="markdown"
            Output format.
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        sections : list of str, optional
            Sections to include, among ``"methods"``, ``"scores"``,
            ``"pairs"``, ``"ranks"`` (when the result has a ``ranks``
            method), ``"leaderboard_page"`` (HTML only: the interactive
            leaderboard, at any number of systems; Markdown and LaTeX
            leave it out), ``"cv_tests"`` (a :func:`sigtest.cross_val_compare`
            result with per-fold tests), ``"references"`` and
            ``"signature"``; default: every section this result has, in
            that order.

        Returns
        -------
        text : str
            The report.

        Raises
        ------
        ValueError
            An unknown format or section, or a section this result does
            not have.

        See Also
        --------
        signature : The reproducibility signature alone.

        Notes
        -----
        The score intervals come from :meth:`scores` (computed on the first
        call, then kept). A difference is significant when its adjusted
        p-value is at most :attr:`alpha`; stars mark adjusted
        :math:`p \\le .05` (``*``) and :math:`p \\le .01` (``**``).

        References
        ----------
        Y. Bestgen (2022). Please, don't forget the difference and the
        confidence interval when seeking for the state-of-the-art status.
        LREC.
        M. Post (2018). A call for clarity in reporting BLEU scores. WMT (the
        signature).

        Examples
        --------
        >>> import numpy as np
        >>> from sigtest import compare
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 200)
        >>> preds = {s: np.where(rng.random(200) < p, y, 1 - y)
        ...          for s, p in [("base", 0.7), ("new", 0.8)]}
        >>> result = compare(y, preds, metrics="accuracy", random_state=0)
        >>> text = result.report("markdown")
        >>> text.splitlines()[0]
        '# Comparison of 2 systems'
        """
        # the report layer on first use: a result needs no report builder until asked
        from sigtest._report.build import build_report

        return build_report(self, format, path, sections)

    def signature(self):
        """The reproducibility signature of the comparison, in the spirit of sacrebleu's.

        ``|``-separated ``key:value`` fields: ``sigtest`` (version),
        ``test`` (the :attr:`tests`), ``B`` (resamples of each p-value
        test), ``B_ci`` (of each interval test, when there is one), ``seed``
        (``random_state``: an int, ``none``, or the type of a generator),
        ``metric``, ``corr`` (correction or ``none``), ``alpha``, ``pairs``
        (``all`` or ``baseline:<names>``), ``alt`` (alternatives), ``ci``
        (marginal or simultaneous), ``n`` (items), ``k`` (systems), ``y``
        and ``pred`` (the first 8 hex digits of sha256 digests of the gold
        and of every system's predictions, by name), then, when they apply,
        ``margin``, ``runs`` (the runs mode), ``cv`` (folds x repeats),
        ``groups`` and ``strata`` (count and digest of the partition of the
        items they define, whatever the id labels) and
        ``weights`` (digest). Digests hash the values, shape and kind (text
        or number) of each array, so the signature does not depend on the
        order in which the systems are listed or on integer widths.

        Returns
        -------
        signature : str
            E.g. ``sigtest:0.1.0|test:permutation+bca|B:9999|B_ci:9999|
            seed:0|metric:accuracy|corr:holm|alpha:0.05|pairs:all|
            alt:two-sided|ci:marginal|n:200|k:2|y:...|pred:...`` (one line).

        References
        ----------
        M. Post (2018). A call for clarity in reporting BLEU scores. WMT.
        """
        return _signature(self)

    def _repr_html_(self):
        """The HTML report as a fragment, for Jupyter (see :meth:`report`)."""
        # the report layer on first use (see report())
        from sigtest._report.build import report_html_fragment

        return report_html_fragment(self)
