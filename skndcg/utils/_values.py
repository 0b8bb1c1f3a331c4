"""A numpy scalar as the plain Python value it holds, for readable messages."""

import numpy as np


def py(value):
    """A numpy scalar as the Python value it holds (``3``, not ``np.int64(3)``);
    anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value
