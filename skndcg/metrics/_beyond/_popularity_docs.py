"""The parameters the popularity-based measures share, written once."""

_COMMON_PARAMS = """
    k : int or None, default=10
        Cut-off: the top ``k`` rows of each query form its list; ``None``
        takes every row.
    ties : {"average", "stable", "reverse"}, default="average"
        Which equally scored rows enter the top ``k``; ``"average"`` counts a
        row of a tied block straddling the cut-off with its probability of
        entering (the exact expectation over random orders of the tie).
    {missing}
    per_query : bool, default=False
        Return a DataFrame with ``qid`` and one value per query (user) instead
        of the mean; pass it to :func:`~skndcg.evaluation.compare`."""

_MISSING = """missing : {"error", "zero"}, default="error"
        A recommended item absent from ``popularity``: an error, or counted
        with popularity 0 (a warning gives how many)."""

_NOVELTY_MISSING = """missing : {"error", "one", "zero"}, default="error"
        A recommended item absent from ``popularity``: an error, or counted as
        seen once (``"one"``; the total stays the log's), or with popularity 0
        (``"zero"``, which novelty refuses: its self-information is infinite);
        a warning gives how many."""


def popularity_doc(f):
    missing = _NOVELTY_MISSING if f.__name__ == "novelty_score" else _MISSING
    common = _COMMON_PARAMS.strip("\n").replace("{missing}", missing)
    f.__doc__ = f.__doc__.replace("    {common}", common)
    return f
