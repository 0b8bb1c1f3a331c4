"""The beyond-accuracy measures as the registry lists them, and why a name such
as ``"novelty@10"`` is refused among the metrics of a call.

These measures read items, not labels alone: item popularity, item features or
categories, a user's history or the catalogue. The engine's calls take
``(y_true, y_score, qid)``, so each is computed by its own function; some are
means over queries (``per_query``), the others are one value for all the lists
together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BeyondAccuracy:
    """A beyond-accuracy measure: what computes it and what it needs.

    Attributes
    ----------
    name : str
        Its name (``"novelty"``).
    aliases : tuple of str
        Other names it is asked for by.
    function : str
        The function of :mod:`skndcg.metrics` that computes it.
    needs : tuple of str
        The inputs it reads beyond ``(y_score, qid)``.
    per_query : bool
        Whether it is a mean of one value per query (user), so that it has a
        per-query value to compare; otherwise it is one value for all the lists
        together.
    """

    name: str
    aliases: tuple
    function: str
    needs: tuple
    per_query: bool

    def refusal(self, asked: str) -> str:
        """Why ``asked`` cannot be one of the metrics of a call."""
        extra = [n for n in self.needs if n != "y_true" and "optional" not in n]
        needs = " and ".join(filter(None, (", ".join(extra[:-1]), extra[-1])))
        kind = (
            "a mean over queries of a per-query value"
            if self.per_query
            else "one value for all the lists together, not a mean over queries"
        )
        return (
            f"metric {asked!r} is a beyond-accuracy measure ({kind}): compute it "
            f"with skndcg.metrics.{self.function}. It needs {needs}, which "
            "(y_true, y_score, qid) do not carry, so it cannot be "
            "named among the metrics of a report, a scorer or the command line."
        )


_POPULARITY = ("item_id", "popularity")
_LABELLED = ("y_true", *_POPULARITY)
_CATALOG = ("item_id", "catalog (optional)")
BEYOND_ACCURACY = (
    BeyondAccuracy(
        "coverage", ("catalog_coverage",), "catalog_coverage_score", _CATALOG, False
    ),
    BeyondAccuracy(
        "ild",
        ("intra_list_diversity", "diversity"),
        "intra_list_diversity_score",
        ("item_id", "item_categories or item_features"),
        True,
    ),
    BeyondAccuracy("novelty", (), "novelty_score", _POPULARITY, True),
    BeyondAccuracy(
        "arp", ("average_popularity",), "average_popularity_score", _POPULARITY, True
    ),
    BeyondAccuracy(
        "aplt", (), "average_popularity_score(measure='aplt')", _POPULARITY, True
    ),
    BeyondAccuracy(
        "aclt", (), "average_popularity_score(measure='aclt')", _POPULARITY, True
    ),
    BeyondAccuracy("long_tail_recall", (), "long_tail_recall_score", _LABELLED, True),
    BeyondAccuracy("serendipity", (), "serendipity_score", _LABELLED, True),
    BeyondAccuracy(
        "calibration",
        ("miscalibration",),
        "calibration_score",
        ("item_id", "history", "categories"),
        True,
    ),
    BeyondAccuracy("exposure_gini", ("gini",), "exposure_gini_score", _CATALOG, False),
    BeyondAccuracy(
        "exposure_entropy", ("entropy",), "exposure_entropy_score", _CATALOG, False
    ),
    BeyondAccuracy(
        "distributional_coverage", (), "distributional_coverage_score", _CATALOG, False
    ),
)
_BY_NAME = {n: m for m in BEYOND_ACCURACY for n in (m.name, *m.aliases)}


def lookup(family: str) -> BeyondAccuracy | None:
    """The beyond-accuracy measure ``family`` names (any case), or None."""
    return _BY_NAME.get(family.strip().lower())
