"""Run the ``>>>`` examples of the user-guide pages as doctests.

Building the documentation is too slow for the unit suite, but the code shown
in the guide must still run and print what the page says. Each page is run as
one doctest file, so its examples share a namespace, top to bottom.
"""

import doctest
from pathlib import Path

import matplotlib
import pytest

# The splitting page draws figures; no display is needed.
matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

PAGES = [
    "getting_started.rst",
    "user_guide/metrics.rst",
    "user_guide/adding_a_measure.rst",
    "user_guide/conventions.rst",
    # Scores with nan_score=, queries= and doc_id=.
    "user_guide/judgments.rst",
    "user_guide/scoring.rst",
    "user_guide/query_ids.rst",
    "user_guide/splitting.rst",
    "user_guide/ranker.rst",
    "user_guide/comparing.rst",
    "user_guide/judges.rst",
    "user_guide/beyond_accuracy.rst",
    "user_guide/recommenders.rst",
]

NAMES = [getattr(p, "values", (p,))[0] for p in PAGES]

# Pages whose examples another test file runs.
TESTED_ELSEWHERE = {"user_guide/pitfalls.rst": "tests/test_recipes.py"}

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _n_examples(path):
    parser = doctest.DocTestParser()
    return len(parser.get_examples(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page):
    path = DOCS / page
    assert path.is_file(), f"{page} is listed here but missing from docs/"
    result = doctest.testfile(
        str(path),
        module_relative=False,
        optionflags=FLAGS,
        raise_on_error=False,
        verbose=False,
        report=True,
    )
    assert result.failed == 0, f"{result.failed} example(s) of {page} failed"
    assert result.attempted == _n_examples(path)


def test_every_page_with_examples_is_checked():
    """A page with ``>>>`` examples is run here or by another test file."""
    pages = sorted(
        path.relative_to(DOCS).as_posix()
        for path in DOCS.rglob("*.rst")
        if not path.relative_to(DOCS).parts[0].startswith(("_", "auto_", "generated"))
    )
    unchecked = [
        page
        for page in pages
        if page not in NAMES
        and page not in TESTED_ELSEWHERE
        and _n_examples(DOCS / page)
    ]
    assert unchecked == [], "add these pages to PAGES"
    for page, test_file in TESTED_ELSEWHERE.items():
        assert Path(page).name in (ROOT / test_file).read_text(encoding="utf-8")
