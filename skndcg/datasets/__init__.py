"""MovieLens-style ratings: generated, loaded from the real files, or fetched.

- :func:`make_movielens_like`: seeded synthetic ratings with the structure of
  the real data (the default data of the demo and the tests).
- :func:`load_movielens`: read the files of an official MovieLens release.
- :func:`fetch_movielens`: download, verify, extract and cache a release.
- :func:`get_data_home`: the cache folder.
- :func:`make_ranking_task`: queries, candidates and point-in-time features for
  learning to rank, from any of the above.
- :class:`CandidateFeatures`: the task's features for any users x items of a
  window (full-catalogue evaluation of a model trained on the task).
- :func:`train_test_ranking_task`: the task split by a protocol splitter.

The first three return the same layout: ``user_id``, ``item_id``, ``rating``,
``timestamp`` (Unix seconds) and pipe-separated ``genres``.
"""

from ._candidates import CandidateFeatures, train_test_ranking_task
from ._fetch import fetch_movielens, get_data_home
from ._movielens import load_movielens
from ._ranking_task import make_ranking_task
from ._synthetic import make_movielens_like

__all__ = [
    "CandidateFeatures",
    "fetch_movielens",
    "get_data_home",
    "load_movielens",
    "make_movielens_like",
    "make_ranking_task",
    "train_test_ranking_task",
]
