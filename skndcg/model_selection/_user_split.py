"""Recommender protocols as splitters: per user, or at one moment for everyone
(one rule for an interaction log and a ranking task)."""

from itertools import pairwise
from numbers import Real

import numpy as np
import pandas as pd

from ..utils._args import check_flags
from ..utils._counts import check_integer
from ..utils._interactions import check_frame, check_no_duplicates, check_seconds
from ..utils._values import py
from ._split_data import check_epoch_day
from ._split_params import store_arguments

_COMMON_PARAMS = """
    user_col : str, default="user_id"
        Column holding the user.
    item_col : str, default="item_id"
        Column holding the item (read by the item filters).
    time_col : str, default="timestamp"
        Column holding the time: datetime64, or numbers taken as Unix seconds
        (values in the range of milliseconds are refused with a hint).
    group_col : str or None, default="qid"
        Column holding the query of a ranking task. When ``X`` has it, the
        rows of one query are one unit: all in train, all in test or all
        left out; the query's time is its first row's. Otherwise every row is
        a unit, and ``X`` must not repeat a (user, item, time) triple.
    filter_cold_users : bool, default=True
        Leave out of the test set the users without a training unit.
    filter_cold_items : bool, default=False
        Leave out of the test set the rows whose item is in no training row.
    filter_already_seen : bool, default=False
        Leave out of the test set the rows whose (user, item) pair is in a
        training row.
"""


def _with_common(cls):
    cls.__doc__ = cls.__doc__.replace("{common}", _COMMON_PARAMS.strip())
    return cls


class _UserProtocol:
    """Units, their users and times, and the filters every protocol shares."""

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of folds.

        Parameters
        ----------
        X, y, groups : object, default=None
            Ignored, present for scikit-learn.

        Returns
        -------
        n_splits : int
            The number of ``(train, test)`` pairs :meth:`split` yields.
        """
        return check_integer("n_splits", self.n_splits, 1)

    def split(self, X, y=None, groups=None):
        """Yield ``(train, test)`` row positions of ``X``, fold by fold.

        Parameters
        ----------
        X : pandas.DataFrame
            An interaction log or a ranking task with the user and time columns.
        y, groups : ignored
            Present for scikit-learn; the query comes from ``group_col``.

        Yields
        ------
        train, test : numpy.ndarray of int
            Row positions, sorted.
        """
        units = self._units(X)
        for fold in range(self.get_n_splits()):
            train_u, test_u = self._fold(units, fold)
            yield self._rows(X, units, train_u, test_u)

    def train_test_log(self, X):
        """The last fold as two frames: the training rows and the test rows.

        Parameters
        ----------
        X : pandas.DataFrame
            An interaction log or a ranking task, as in :meth:`split`.

        Returns
        -------
        train, test : pandas.DataFrame
            Rows of ``X`` (same columns, original index).
        """
        *_, (train, test) = self.split(X)
        return X.iloc[train], X.iloc[test]

    def _units(self, X):
        check_flags(
            filter_cold_users=self.filter_cold_users,
            filter_cold_items=self.filter_cold_items,
            filter_already_seen=self.filter_already_seen,
        )
        grouped = self.group_col is not None and self.group_col in getattr(
            X, "columns", ()
        )
        cols = [self.user_col, self.time_col] + ([self.group_col] if grouped else [])
        if self.filter_cold_items or self.filter_already_seen:
            cols.append(self.item_col)  # the item filters read it
        check_frame(X, "X", cols)
        if len(X) == 0:
            raise ValueError("X has no rows to split.")
        time = X[self.time_col]
        if pd.api.types.is_datetime64_any_dtype(time):
            t = pd.DatetimeIndex(time).as_unit("ns").asi8
            check_epoch_day(t)
            tz = getattr(time.dtype, "tz", None)
        elif pd.api.types.is_numeric_dtype(time) and not pd.api.types.is_bool_dtype(
            time
        ):
            check_seconds(time.to_numpy(), f"X[{self.time_col!r}]")
            t = np.round(time.to_numpy(np.float64) * 1e9).astype(np.int64)
            tz = False  # Unix seconds: any cut can be placed
        else:
            raise TypeError(
                f"X[{self.time_col!r}] must be datetime64 or Unix seconds, got "
                f"dtype {time.dtype}."
            )
        if grouped:
            unit = pd.factorize(X[self.group_col])[0]
            first = np.unique(unit, return_index=True)[1]
            user_of = X[self.user_col].to_numpy()[first]
            same = pd.Series(X[self.user_col].to_numpy()).groupby(unit).nunique()
            if (same > 1).any():
                q = py(X[self.group_col].to_numpy()[first][int(np.argmax(same > 1))])
                raise ValueError(
                    f"query {q!r} (column {self.group_col!r}) holds several users; "
                    "a query must belong to one user."
                )
            t_unit = t[first]
        else:
            if self.item_col in X.columns:
                check_no_duplicates(
                    X, "X", [self.user_col, self.item_col, self.time_col]
                )
            unit = np.arange(len(X))
            user_of, t_unit = X[self.user_col].to_numpy(), t
        user_code = pd.factorize(user_of)[0]
        # Position of each unit in its user's history, by (time, unit).
        order = np.lexsort((np.arange(user_code.size), t_unit, user_code))
        counts = np.bincount(user_code)
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        pos = np.empty(user_code.size, dtype=np.int64)
        pos[order] = np.arange(user_code.size) - starts[user_code[order]]
        return {
            "row_unit": unit,
            "user": user_code,
            "time": t_unit,
            "pos": pos,
            "length": counts[user_code],
            "tz": tz,
        }

    def _rows(self, X, units, train_u, test_u):
        row_unit = units["row_unit"]
        train = np.flatnonzero(train_u[row_unit])
        test_mask = test_u[row_unit]
        user = units["user"][row_unit]
        if self.filter_cold_users:
            warm = np.zeros(units["user"].max() + 1, dtype=bool)
            warm[user[train]] = True
            test_mask &= warm[user]
        if self.filter_cold_items or self.filter_already_seen:
            item = pd.factorize(X[self.item_col])[0]
            if self.filter_cold_items:
                test_mask &= np.isin(item, item[train])
            if self.filter_already_seen:
                n = item.max() + 1
                test_mask &= ~np.isin(user * n + item, user[train] * n + item[train])
        return train, np.flatnonzero(test_mask)


@_with_common
class LeaveLastNSplit(_UserProtocol):
    """Hold out each user's last ``n`` units; train on that user's earlier ones.

    Fold ``k`` of ``n_splits`` tests, for every user, the block of ``n``
    units that ends ``(n_splits - 1 - k) * n`` units before the user's last
    one, and trains on the units before that block; later units of the user
    are left out, so no training unit of a user comes after one of their
    test units. Other users' units may lie later in time: the protocol is per
    user (use :class:`GlobalTimeSplit` to forbid that).

    Parameters
    ----------
    n : int >= 1, default=1
        Units held out per user and fold.
    n_splits : int >= 1, default=1
        Number of folds, the last one holding out the last ``n`` units.
    {common}

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.model_selection import LeaveLastNSplit
    >>> log = pd.DataFrame({"user_id": [1, 1, 1, 2, 2],
    ...                     "item_id": [10, 11, 12, 10, 13],
    ...                     "timestamp": [5, 1, 3, 2, 4]})
    >>> train, test = next(LeaveLastNSplit(n=1).split(log))
    >>> train.tolist(), test.tolist()
    ([1, 2, 3], [0, 4])
    """

    def __init__(
        self,
        n=1,
        *,
        n_splits=1,
        user_col="user_id",
        item_col="item_id",
        time_col="timestamp",
        group_col="qid",
        filter_cold_users=True,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        store_arguments(self, locals())

    def _fold(self, units, fold):
        n = check_integer("n", self.n, 1)
        end = units["length"] - (self.n_splits - 1 - fold) * n
        start = end - n
        pos = units["pos"]
        return pos < start, (pos >= np.maximum(start, 0)) & (pos < end)


@_with_common
class UserFractionSplit(_UserProtocol):
    """Hold out the latest ``test_fraction`` of each user's units.

    A user with ``m`` units keeps the ``ceil(test_fraction * m)`` latest for
    the test set and trains on the others, all earlier. One fold.

    Parameters
    ----------
    test_fraction : float in (0, 1), default=0.2
        Share of each user's units held out (rounded up).
    {common}

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.model_selection import UserFractionSplit
    >>> log = pd.DataFrame({"user_id": [1] * 5, "item_id": [1, 2, 3, 4, 5],
    ...                     "timestamp": [1, 2, 3, 4, 5]})
    >>> train, test = next(UserFractionSplit(0.4).split(log))
    >>> train.tolist(), test.tolist()
    ([0, 1, 2], [3, 4])
    """

    n_splits = 1

    def __init__(
        self,
        test_fraction=0.2,
        *,
        user_col="user_id",
        item_col="item_id",
        time_col="timestamp",
        group_col="qid",
        filter_cold_users=True,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        store_arguments(self, locals())

    def _fold(self, units, fold):
        f = self.test_fraction
        if isinstance(f, bool) or not isinstance(f, Real) or not 0 < f < 1:
            raise ValueError(f"test_fraction must be a float in (0, 1), got {f!r}.")
        length = units["length"]
        n_test = np.maximum(np.ceil(f * length - 1e-9 * length).astype(np.int64), 1)
        start = length - n_test
        return units["pos"] < start, units["pos"] >= start


@_with_common
class GlobalTimeSplit(_UserProtocol):
    """One moment splits everybody: train before it, test from it on.

    With several ``cuts``, fold ``k`` trains on the units before ``cuts[k]``
    and tests those in ``[cuts[k], cuts[k + 1])`` (the last fold: from
    ``cuts[-1]`` on). No training unit comes after any test unit, of any
    user.

    Parameters
    ----------
    cuts : str, datetime-like, number or sequence of them
        Start(s) of the test period: datetimes (or strings pandas parses),
        timezone-aware exactly when a datetime time column is, or Unix seconds.
    {common}

    Examples
    --------
    >>> import pandas as pd
    >>> from skndcg.model_selection import GlobalTimeSplit
    >>> log = pd.DataFrame({"user_id": [1, 1, 2, 2, 3],
    ...                     "item_id": [10, 11, 10, 12, 11],
    ...                     "timestamp": pd.to_datetime(["2024-01-05", "2024-02-03",
    ...                         "2024-01-20", "2024-02-10", "2024-02-11"])})
    >>> cv = GlobalTimeSplit("2024-02-01")
    >>> train, test = next(cv.split(log))
    >>> train.tolist(), test.tolist()  # user 3 is cold: left out
    ([0, 2], [1, 3])
    """

    def __init__(
        self,
        cuts,
        *,
        user_col="user_id",
        item_col="item_id",
        time_col="timestamp",
        group_col="qid",
        filter_cold_users=True,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        store_arguments(self, locals())

    @property
    def n_splits(self):
        """Number of folds: one per cut."""
        return len(self._cuts_ns())

    def _cuts_ns(self, tz=False):
        """The cuts in nanoseconds since the epoch (UTC); ``tz`` is the time
        zone of a datetime time column (``None`` when naive), whose awareness
        each datetime cut must share (``False``: not checked)."""
        raw = self.cuts
        many = isinstance(raw, list | tuple | np.ndarray | pd.Index | pd.Series)
        values = list(raw) if many else [raw]
        if not values:
            raise ValueError("cuts must hold at least one time, got none.")
        out = []
        for v in values:
            if isinstance(v, Real) and not isinstance(v, bool):
                check_seconds(np.array([v]), "cuts")
                out.append(round(float(v) * 1e9))
                continue
            try:
                ts = pd.Timestamp(v)
                if ts is pd.NaT:
                    raise ValueError(v)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"cuts must be datetimes or Unix seconds, got {v!r}."
                ) from exc
            if tz is not False and (ts.tzinfo is None) != (tz is None):
                have, want = ("naive", "aware") if tz else ("aware", "naive")
                raise TypeError(
                    f"cut {v!r} is timezone-{have} but X[{self.time_col!r}] is "
                    f"timezone-{want}{f' ({tz})' if tz else ''}; give the cuts "
                    "in the same kind of time as the column."
                )
            if ts.tzinfo is not None:
                ts = ts.tz_convert("UTC").tz_localize(None)
            out.append(ts.as_unit("ns").value)
        if any(b <= a for a, b in pairwise(out)):
            raise ValueError(f"cuts must be strictly increasing, got {values!r}.")
        return out

    def _fold(self, units, fold):
        cuts = self._cuts_ns(units["tz"])
        t = units["time"]
        hi = cuts[fold + 1] if fold + 1 < len(cuts) else np.iinfo(np.int64).max
        return t < cuts[fold], (t >= cuts[fold]) & (t < hi)
