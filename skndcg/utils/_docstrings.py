"""Filling shared text into docstrings."""


def with_references(block):
    """Decorator that puts ``block`` where a docstring says ``{references}``.

    ``block`` is a numpydoc References section indented like a docstring body;
    its first line takes the indentation of the placeholder.
    """

    def decorate(fn):
        fn.__doc__ = fn.__doc__.replace("{references}", block.strip())
        return fn

    return decorate
