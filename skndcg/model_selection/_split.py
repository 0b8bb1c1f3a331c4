"""GroupTimeSeriesSplit: time-ordered cross-validation that keeps groups whole."""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.model_selection import BaseCrossValidator

from ._split_data import NO_TIME, resolve, rows_out_of_time_order
from ._split_params import parse_params, store_arguments
from ._split_plan import Formatter, group_table, plan_folds


class GroupTimeSeriesSplit(BaseCrossValidator):
    """Time-ordered cross-validator whose folds never cut a group.

    Each group (for ranking: a query) is treated as the time interval from its
    earliest to its latest row. Groups are ordered by ``(start, end, label)``;
    test folds are consecutive blocks of that order, the latest at the end of
    the data, and fold boundaries only fall between distinct start times. A
    group may train fold ``k`` only if it ends strictly before the fold's
    cutoff (the start of its test block) minus the gap. Groups that start
    before the cutoff but end at or after it span the cutoff and are purged
    (left out of the fold) or, with ``on_overlap="raise"``, reported.

    Groups and time come from the ``groups`` / ``time`` arguments (routed
    metadata: the splitter requests both) or from the DataFrame columns named
    by ``group_col`` / ``time_col`` (pandas or polars). Time may be numeric or
    datetime64, timezone-aware included. Without time, row order is used as
    time: errors and :meth:`split_info` say so, and a warning is raised when
    ``X`` shows that its rows are not in time order (an unsorted datetime
    column, or a shuffled pandas index).

    Parameters
    ----------
    n_splits : int >= 1 or None, default=5
        Number of folds; ``1`` is a temporal holdout. ``None`` makes as many
        folds as the data allow and requires ``test_size``.
    test_size : int, float, str, timedelta or None, default=None
        Size of each test fold; its type sets the unit. An int counts groups;
        a float in (0, 1) is a fraction of the ``balance`` unit; a duration
        (``"90D"``, ``"12h"``, :class:`pandas.Timedelta`, ...) makes fixed
        time windows anchored at the latest group start; a pandas period
        frequency (``"W-MON"``, ``"M"``, ``"Q"``, ``"Y"``) makes calendar
        periods. Strings are read as a duration first, so ``"7D"`` means
        7-day windows while ``"W"`` means calendar weeks. ``None`` splits the
        data into ``n_splits + 1`` equal parts by ``balance``, the first one
        only ever training. With ties in start time an int or float size is
        approximate: boundaries snap to the nearest tie-free position.
    gap : int >= 0 or duration, default=0
        Embargo between train and test: an int drops that many groups just
        before each test block; a duration keeps only groups that end more
        than that long before the cutoff.
    max_train_size : int >= 1, duration or None, default=None
        Rolling training window: keep the latest ``max_train_size`` eligible
        groups, or the groups that start within that duration before the
        cutoff minus the gap. ``None`` keeps an expanding window.
    min_train_size : int >= 1, default=1
        Minimum number of training groups per fold. A fold with fewer raises
        for an int ``n_splits``; with ``n_splits=None`` it ends the folds.
    balance : {"groups", "rows", "time"}, default="groups"
        Unit of fold sizes when ``test_size`` is ``None`` or a float: equal
        numbers of groups, of rows, or equal time spans.
    on_overlap : {"purge", "raise"}, default="purge"
        What to do with groups that span a cutoff.
    group_col : str, int or None, default=None
        Column of a DataFrame ``X`` holding the group labels, used when
        ``groups`` is not passed. ``None`` uses the column ``"qid"`` when ``X``
        has one: the query-id column that
        :class:`~skndcg.ranker.QueryRanker` and the scorers read by default.
    time_col : str, int or None, default=None
        Column of a DataFrame ``X`` holding the time, used when ``time`` is
        not passed (see Notes). ``None``: row order is time.

    See Also
    --------
    sklearn.model_selection.TimeSeriesSplit : Time-ordered splits of rows.
    sklearn.model_selection.GroupKFold : Group-disjoint, unordered folds.

    Notes
    -----
    ``split`` writes nothing to the object, so one instance can be reused on
    different data, cloned, pickled and nested. Permuting the rows of the
    input permutes the yielded indices and leaves each group's fold
    membership unchanged. With one row per group and distinct times the
    folds equal those of :class:`~sklearn.model_selection.TimeSeriesSplit`.
    Without metadata routing, ``GridSearchCV`` forwards only ``groups`` to
    the splitter, so supply time through ``time_col`` and declare the same
    column as ``QueryRanker(..., time_col=...)``, which keeps it away from
    the model. With routing, the splitter requests ``groups`` and ``time``;
    ``cv.set_split_request(groups="qid")`` makes it take the routed ``qid``
    as its groups, so ``search.fit(X, y, qid=qid, time=t)`` is enough.

    References
    ----------
    .. [1] M. López de Prado, "Advances in Financial Machine Learning", Wiley, 2018,
       chapter 7 (purged cross-validation and embargo).
    .. [2] scikit-learn issue #14257, "GroupTimeSeriesSplit", 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skndcg.model_selection import GroupTimeSeriesSplit
    >>> groups = np.array(["a", "b", "a", "c", "b", "d", "c", "e", "d", "e"])
    >>> time = np.array([0, 1, 1, 2, 3, 4, 5, 6, 7, 8])
    >>> X = np.zeros((10, 2))
    >>> cv = GroupTimeSeriesSplit(n_splits=2)
    >>> for train, test in cv.split(X, groups=groups, time=time):
    ...     print(train, test)
    [0 1 2 4] [5 8]
    [0 1 2 3 4 6] [7 9]

    Group ``"c"`` runs from time 2 to 5, across the first cutoff (4), so it
    is purged from the first fold:

    >>> cv.split_info(X, groups=groups, time=time)[
    ...     ["fold", "cutoff", "n_train_groups", "n_test_groups", "n_purged_groups"]]
       fold  cutoff  n_train_groups  n_test_groups  n_purged_groups
    0     0       4               2              1                1
    1     1       6               3              1                1
    """

    __metadata_request__split: ClassVar[dict] = {"groups": True, "time": True}

    def __init__(
        self,
        n_splits=5,
        *,
        test_size=None,
        gap=0,
        max_train_size=None,
        min_train_size=1,
        balance="groups",
        on_overlap="purge",
        group_col=None,
        time_col=None,
    ):
        store_arguments(self, locals())
        parse_params(self)

    def _plan(self, X, groups, time):
        """Resolve the data and plan every fold at group level."""
        params = parse_params(self)
        data = resolve(X, groups, time, params)
        if data.n_rows == 0:
            raise ValueError("cannot split X with 0 rows")
        if data.time_source == NO_TIME:
            evidence = rows_out_of_time_order(X)
            if evidence is not None:
                warnings.warn(
                    f"GroupTimeSeriesSplit: {NO_TIME}, but the rows of X are not "
                    f"in time order: {evidence}. Pass time= or set time_col.",
                    UserWarning,
                    stacklevel=3,
                )
        table = group_table(data)
        fmt = Formatter(data)
        return data, table, plan_folds(params, table, fmt), fmt

    def split(self, X, y=None, groups=None, time=None):
        """Generate train/test row indices for each fold, earliest fold first.

        The folds are planned before the first one is yielded, so invalid
        input raises here rather than midway.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Data to split; a pandas or polars DataFrame when ``group_col`` or
            ``time_col`` is set.
        y : array-like of shape (n_samples,), default=None
            Ignored; present for API consistency.
        groups : array-like of shape (n_samples,), default=None
            Group label of every row. Required unless ``group_col`` is set.
        time : array-like of shape (n_samples,), default=None
            Numeric or datetime64 time of every row. Defaults to the
            ``time_col`` column, else row order.

        Returns
        -------
        folds : iterator of (train, test) tuples
            Sorted, disjoint ``np.intp`` arrays of row positions.
        """
        _, table, folds, _ = self._plan(X, groups, time)
        return self._iter_folds(table, folds)

    @staticmethod
    def _iter_folds(table, folds):
        row_pos = table.row_pos
        for fold in folds:
            in_train = np.zeros(table.start.size, dtype=bool)
            in_train[fold.train] = True
            train = np.flatnonzero(in_train[row_pos]).astype(np.intp, copy=False)
            in_test = (row_pos >= fold.test_lo) & (row_pos < fold.test_hi)
            yield train, np.flatnonzero(in_test).astype(np.intp, copy=False)

    def get_n_splits(self, X=None, y=None, groups=None, time=None):
        """Return the number of folds ``split`` yields.

        Parameters
        ----------
        X, y, groups, time : see :meth:`split`
            Only needed when ``n_splits=None``; otherwise ignored.

        Returns
        -------
        n_splits : int
            The number of folds.
        """
        params = parse_params(self)
        if params.n_splits is not None:
            return params.n_splits
        if X is None:
            raise ValueError(
                "n_splits=None: the number of folds depends on the data; pass X "
                "and groups (and time)"
            )
        return len(self._plan(X, groups, time)[2])

    def split_info(self, X, y=None, groups=None, time=None):
        """Describe every fold: cutoff, time ranges and group and row counts.

        Parameters
        ----------
        X, y, groups, time : see :meth:`split`

        Returns
        -------
        info : pandas.DataFrame
            One row per fold with columns ``fold``, ``cutoff``,
            ``test_start``, ``test_end`` (first start and last end among the
            test groups), ``train_start``, ``train_end``, ``n_train_groups``,
            ``n_test_groups``, ``n_gap_groups``, ``n_purged_groups``,
            ``n_train_rows``, ``n_test_rows``, ``n_gap_rows``,
            ``n_purged_rows`` and ``time_source`` (``"metadata"``,
            ``"column"`` or ``"no time given; row order is used as time"``). Times are
            :class:`pandas.Timestamp` for datetime time, numbers otherwise.

        Examples
        --------
        >>> import pandas as pd
        >>> from skndcg.model_selection import GroupTimeSeriesSplit
        >>> df = pd.DataFrame({
        ...     "qid": [1, 1, 2, 3, 4, 5],
        ...     "ts": pd.to_datetime(["2024-01-01", "2024-01-05", "2024-01-02",
        ...                           "2024-01-03", "2024-01-04", "2024-01-06"]),
        ... })
        >>> cv = GroupTimeSeriesSplit(2, group_col="qid", time_col="ts")
        >>> info = cv.split_info(df)
        >>> info[["fold", "cutoff", "n_train_groups", "n_purged_groups"]]
           fold     cutoff  n_train_groups  n_purged_groups
        0     0 2024-01-04               2                1
        1     1 2024-01-06               4                0
        """
        data, table, folds, fmt = self._plan(X, groups, time)
        rows = [
            {
                "fold": k,
                "cutoff": fmt.value(fold.cutoff),
                "test_start": fmt.value(table.start[fold.test_lo]),
                "test_end": fmt.value(table.end[fold.test_lo : fold.test_hi].max()),
                "train_start": fmt.value(table.start[fold.train].min()),
                "train_end": fmt.value(table.end[fold.train].max()),
                "n_train_groups": int(fold.train.size),
                "n_test_groups": fold.test_hi - fold.test_lo,
                "n_gap_groups": int(fold.gap.size),
                "n_purged_groups": int(fold.purged.size),
                "n_train_rows": int(table.n_rows[fold.train].sum()),
                "n_test_rows": int(table.n_rows[fold.test_lo : fold.test_hi].sum()),
                "n_gap_rows": int(table.n_rows[fold.gap].sum()),
                "n_purged_rows": int(table.n_rows[fold.purged].sum()),
                "time_source": data.time_source,
            }
            for k, fold in enumerate(folds)
        ]
        return pd.DataFrame(rows)  # columns in key order: plan_folds gives a fold
