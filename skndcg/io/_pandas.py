"""pandas, imported on first use: reading a small TREC run needs no DataFrame."""

import importlib


class _Lazy:
    """The ``pandas`` module, imported when an attribute is first read."""

    def __getattr__(self, name):
        return getattr(importlib.import_module("pandas"), name)


pd = _Lazy()
