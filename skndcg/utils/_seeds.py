"""The one check of a ``random_state`` argument."""

from numbers import Integral

import numpy as np


def check_seed(random_state):
    """scikit-learn's ``check_random_state`` of ``random_state`` (a numpy
    ``Generator`` as it is), refusing anything else by name: a bool too,
    which is an int to Python (``True`` is not the seed 1)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if not (
        random_state is None
        or isinstance(random_state, np.random.RandomState)
        or (
            isinstance(random_state, Integral)
            and not isinstance(random_state, bool)
            and 0 <= random_state < 2**32
        )
    ):
        raise ValueError(
            "random_state must be None, an integer in [0, 2**32 - 1], a numpy "
            f"RandomState or a numpy Generator, got {random_state!r}."
        )
    from sklearn.utils import check_random_state

    return check_random_state(random_state)


def integer_draw(random_state):
    """The integer draw of ``check_seed(random_state)``: a RandomState's
    ``randint``, a Generator's ``integers`` (the same arguments, ``high``
    excluded), so that an int or a RandomState draws as ``randint`` does."""
    rs = check_seed(random_state)
    return rs.integers if isinstance(rs, np.random.Generator) else rs.randint
