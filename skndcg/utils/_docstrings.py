"""Filling shared text into docstrings."""


def with_references(block):
    """Decorator that puts ``block``, a numpydoc References section indented
    like a docstring body, where a docstring says ``{references}``."""

    def decorate(fn):
        fn.__doc__ = fn.__doc__.replace("{references}", block.strip())
        return fn

    return decorate
