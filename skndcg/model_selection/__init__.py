"""Cross-validation splitters for grouped, time-ordered ranking data.

The recommender protocols (:class:`LeaveLastNSplit`, :class:`UserFractionSplit`,
:class:`GlobalTimeSplit`) split an interaction log or a ranking task per user.
"""

from ._split import GroupTimeSeriesSplit
from ._user_split import GlobalTimeSplit, LeaveLastNSplit, UserFractionSplit

__all__ = [
    "GlobalTimeSplit",
    "GroupTimeSeriesSplit",
    "LeaveLastNSplit",
    "UserFractionSplit",
]
