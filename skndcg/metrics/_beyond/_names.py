"""The beyond-accuracy measures as the registry lists them: which are named
among the metrics of a call (``_by_name.py``), and why the others are refused."""

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
    by_name : str
        How it is named among the metrics of a call, given ``item_id`` and
        ``popularity`` (``"novelty(n_users=N)@k"``); empty when it is not.
    why : str
        Why it cannot be named, when it cannot.
    """

    name: str
    aliases: tuple
    function: str
    needs: tuple
    per_query: bool
    by_name: str = ""
    why: str = ""

    def refusal(self, asked: str, carried: str = "(y_true, y_score, qid)") -> str:
        """Why ``asked`` cannot be one of the metrics of a call whose inputs
        are ``carried``."""
        extra = [n for n in self.needs if n != "y_true" and "optional" not in n]
        needs = " and ".join(filter(None, (", ".join(extra[:-1]), extra[-1])))
        if self.by_name:  # (named in a call that carries what it needs)
            return (
                f"metric {asked!r} needs {needs}, which {carried} do not carry: "
                f"name it in grouped_ranking_scores or ranking_report with "
                f"{', '.join(f'{n}=' for n in extra)}, or compute it with "
                f"skndcg.metrics.{self.function}."
            )
        kind = (
            "a mean over queries of a per-query value"
            if self.per_query
            else "one value for all the lists together, not a mean over queries"
        )
        return (
            f"metric {asked!r} is a beyond-accuracy measure ({kind}) that cannot "
            f"be named among the metrics of a call: {self.why}. Compute it with "
            f"skndcg.metrics.{self.function}. It needs {needs}, which "
            f"{carried} do not carry."
        )


_POPULARITY = ("item_id", "popularity")
_LABELLED = ("y_true", *_POPULARITY)
_CATALOG = ("item_id", "catalog (optional)")
_TAIL = "(long_tail=0.2)@k"
_TOTAL = (
    "it is one value for all the lists together (how the items spread over "
    "them), not a mean of one value per query"
)
BEYOND_ACCURACY = (
    BeyondAccuracy(
        "coverage", ("catalog_coverage",), "catalog_coverage_score", _CATALOG, False,
        why=_TOTAL,
    ),
    BeyondAccuracy(
        "ild",
        ("intra_list_diversity", "diversity"),
        "intra_list_diversity_score",
        ("item_id", "item_categories or item_features"),
        True,
        why="a list's value is a mean over its pairs of items, not a sum of one "
        "value per rank, and reads item categories or features",
    ),
    BeyondAccuracy("novelty", (), "novelty_score", _POPULARITY, True,
                   "novelty(n_users=N)@k"),
    BeyondAccuracy(
        "arp", ("average_popularity",), "average_popularity_score", _POPULARITY, True,
        "arp@k",
    ),
    BeyondAccuracy(
        "aplt", (), "average_popularity_score(measure='aplt')", _POPULARITY, True,
        "aplt" + _TAIL,
    ),
    BeyondAccuracy(
        "aclt", (), "average_popularity_score(measure='aclt')", _POPULARITY, True,
        "aclt" + _TAIL,
    ),
    BeyondAccuracy("long_tail_recall", (), "long_tail_recall_score", _LABELLED, True,
                   "long_tail_recall" + _TAIL),
    BeyondAccuracy("serendipity", (), "serendipity_score", _LABELLED, True,
                   "serendipity@k"),
    BeyondAccuracy(
        "calibration",
        ("miscalibration",),
        "calibration_score",
        ("item_id", "history", "categories"),
        True,
        why="a list's value is a divergence between its category distribution "
        "and the user's history, not a sum of one value per rank",
    ),
    BeyondAccuracy("exposure_gini", ("gini",), "exposure_gini_score", _CATALOG, False,
                   why=_TOTAL),
    BeyondAccuracy(
        "exposure_entropy", ("entropy",), "exposure_entropy_score", _CATALOG, False,
        why=_TOTAL,
    ),
    BeyondAccuracy(
        "distributional_coverage", (), "distributional_coverage_score", _CATALOG, False,
        why=_TOTAL,
    ),
)  # fmt: skip
_BY_NAME = {n: m for m in BEYOND_ACCURACY for n in (m.name, *m.aliases)}


def lookup(family: str) -> BeyondAccuracy | None:
    """The beyond-accuracy measure ``family`` names (any case), or None."""
    return _BY_NAME.get(family.strip().lower())
