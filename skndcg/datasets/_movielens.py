"""Readers for the real MovieLens files (ml-100k, ml-1m, ml-latest family)."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..utils._args import as_path, check_flags
from ._synthetic import as_text, genre_strings

# The genre columns of ml-100k ``u.item``, in file order (also listed in
# ``u.genre``, which is used instead when present).
ML100K_GENRES = (
    "unknown",
    "Action",
    "Adventure",
    "Animation",
    "Children's",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
)

# Ratings file name -> (format, movie file name next to it).
_LAYOUTS = {
    "u.data": ("ml-100k", "u.item"),
    "ratings.dat": ("ml-1m", "movies.dat"),
    "ratings.csv": ("ml-latest", "movies.csv"),
}
_CSV_COLUMNS = {
    "userId": "user_id",
    "movieId": "item_id",
    "rating": "rating",
    "timestamp": "timestamp",
}
_COLUMNS = ["user_id", "item_id", "rating", "timestamp"]


def _sniff(path):
    """Format of a ratings file with an unusual name, from its first line."""
    if zipfile.is_zipfile(path):
        raise ValueError(
            f"unknown MovieLens format for file {path}: it is a zip archive; "
            "extract it first, or let fetch_movielens download and extract it."
        )
    with open(path, "rb") as fh:
        head = fh.read(4096).split(b"\n", 1)[0].strip()
    if head.lstrip(b"\xef\xbb\xbf").startswith(b"userId,"):
        return "ml-latest"
    if b"::" in head:
        return "ml-1m"
    if head.count(b"\t") == 3:
        return "ml-100k"
    raise ValueError(
        f"unknown MovieLens format for file {path}: its first line {head[:80]!r} "
        "is neither a ratings.csv header (userId,movieId,rating,timestamp), "
        "'::'-separated (ratings.dat) nor tab-separated (u.data)."
    )


def _locate(path):
    """Resolve a file or directory to (ratings file, format, movie file)."""
    path = Path(as_path(path, "path")).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"MovieLens path {path} does not exist.")
    if path.is_dir():
        found = [path / name for name in _LAYOUTS if (path / name).is_file()]
        if not found:
            # An archive extracts to a single folder such as ml-100k/.
            subdirs = [p for p in sorted(path.iterdir()) if p.is_dir()]
            inner = [s / n for s in subdirs for n in _LAYOUTS if (s / n).is_file()]
            if len(inner) == 1:
                found = inner
            elif inner:
                raise ValueError(
                    f"several MovieLens ratings files under directory {path}: "
                    f"{[str(p) for p in inner]}; pass one of them."
                )
        if not found:
            raise ValueError(
                f"unknown MovieLens format in directory {path}: no ratings file "
                f"found; expected one of {sorted(_LAYOUTS)}."
            )
        path = found[0]
    fmt, movie_name = _LAYOUTS.get(path.name, (None, None))
    if fmt is None:
        fmt = _sniff(path)
        movie_name = next(m for f, m in _LAYOUTS.values() if f == fmt)
    return path, fmt, path.parent / movie_name


def _read_table(path, what, **kwargs):
    """pandas.read_csv with the C parser; any parse failure names the file."""
    try:
        return pd.read_csv(path, engine="c", **kwargs)
    except ValueError as exc:  # ParserError, EmptyDataError, decoding errors
        raise ValueError(f"could not read {path} as {what}: {exc}") from exc


def _read_u_data(path):
    dtype = {0: np.int64, 1: np.int64, 2: np.float64, 3: np.int64}
    df = _read_table(
        path, "ml-100k u.data", sep="\t", header=None, dtype=dtype, quoting=3
    )
    if df.shape[1] != 4:
        raise ValueError(
            f"could not read {path} as ml-100k u.data: expected 4 tab-separated "
            f"fields (user item rating timestamp), found {df.shape[1]}."
        )
    df.columns = _COLUMNS
    return df


def _read_ratings_dat(path):
    # '::' is read as ':' so the fast C parser applies; the empty fields in
    # between must stay empty.
    dtype = {0: np.int64, 2: np.int64, 4: np.float64, 6: np.int64}
    dtype.update({1: np.float64, 3: np.float64, 5: np.float64})
    df = _read_table(path, "ml-1m ratings.dat", sep=":", header=None, dtype=dtype)
    if df.shape[1] != 7 or not df[[1, 3, 5]].isna().all(axis=None):
        raise ValueError(
            f"could not read {path} as ml-1m ratings.dat: expected lines "
            "UserID::MovieID::Rating::Timestamp."
        )
    df = df[[0, 2, 4, 6]]
    df.columns = _COLUMNS
    return df


def _read_ratings_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        header = fh.readline().strip().split(",")
    missing = [c for c in _CSV_COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"{path} is missing column(s) {missing}: expected a header with "
            f"{','.join(_CSV_COLUMNS)}, found {','.join(header)!r}."
        )
    dtype = {"userId": np.int64, "movieId": np.int64}
    dtype.update({"rating": np.float64, "timestamp": np.int64})
    df = _read_table(
        path,
        "ratings.csv",
        usecols=list(_CSV_COLUMNS),
        dtype=dtype,
        encoding="utf-8-sig",
    )
    return df.rename(columns=_CSV_COLUMNS)[_COLUMNS]


_RATING_READERS = {
    "ml-100k": _read_u_data,
    "ml-1m": _read_ratings_dat,
    "ml-latest": _read_ratings_csv,
}


def _check_ratings(df, path, header_lines):
    """Refuse empty files and ratings off the 0.5-5 half-star scale."""
    if len(df) == 0:
        raise ValueError(f"{path} contains no ratings.")
    r = df["rating"].to_numpy()
    bad = ~((r >= 0.5) & (r <= 5.0) & (r * 2 == np.round(r * 2)))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{path} has {int(bad.sum())} rating(s) out of range: expected "
            f"0.5 to 5 stars in steps of 0.5, found {float(r[row])} on line "
            f"{row + 1 + header_lines}."
        )


def _items_frame(ids, titles, genres, path):
    items = pd.DataFrame(
        {
            "item_id": np.asarray(ids, dtype=np.int64),
            "title": as_text(titles),
            "genres": as_text(genres),
        }
    )
    dup = items["item_id"].duplicated()
    if dup.any():
        raise ValueError(
            f"{path} lists item id {int(items['item_id'][dup].iloc[0])} more than once."
        )
    return items


def _read_u_item(path):
    genre_file = path.parent / "u.genre"
    names = ML100K_GENRES
    if genre_file.is_file():
        lines = genre_file.read_text(encoding="latin-1").splitlines()
        listed = [ln.split("|")[0] for ln in lines if ln.strip()]
        if len(listed) == len(ML100K_GENRES):
            names = tuple(listed)
    df = _read_table(
        path,
        "ml-100k u.item",
        sep="|",
        header=None,
        encoding="latin-1",
        quoting=csv.QUOTE_NONE,
        dtype={0: np.int64, 1: object},
    )
    flags = df.iloc[:, 5:].to_numpy()
    if df.shape[1] != 5 + len(names) or not np.isin(flags, (0, 1)).all():
        raise ValueError(
            f"could not read {path} as ml-100k u.item: expected 24 '|'-separated "
            f"fields ending in {len(names)} genre flags of 0 or 1."
        )
    return _items_frame(df[0], df[1], genre_strings(flags == 1, names), path)


def _read_movies_dat(path):
    ids, titles, genres = [], [], []
    text = path.read_bytes().decode("latin-1")
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("::")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            raise ValueError(
                f"could not read {path} as ml-1m movies.dat: line {lineno} is not "
                f"MovieID::Title::Genres: {line[:80]!r}."
            )
        ids.append(int(parts[0]))
        titles.append(parts[1])
        genres.append(parts[2].strip())
    return _items_frame(ids, titles, genres, path)


def _read_movies_csv(path):
    df = _read_table(
        path,
        "movies.csv",
        dtype={"movieId": np.int64, "title": object, "genres": object},
        encoding="utf-8-sig",
        keep_default_na=False,
    )
    missing = [c for c in ("movieId", "title", "genres") if c not in df.columns]
    if missing:
        raise ValueError(
            f"{path} is missing column(s) {missing}: expected a header "
            "movieId,title,genres."
        )
    return _items_frame(df["movieId"], df["title"], df["genres"], path)


_ITEM_READERS = {
    "ml-100k": _read_u_item,
    "ml-1m": _read_movies_dat,
    "ml-latest": _read_movies_csv,
}


def _lookup(item_id, items):
    """Genres of each rated item, NaN for items the movie file does not list."""
    ids = items["item_id"].to_numpy()
    values = np.append(items["genres"].to_numpy(dtype=object), np.nan)
    top = max(int(ids.max(initial=0)), int(item_id.max(initial=0)))
    if item_id.min(initial=0) >= 0 and ids.min(initial=0) >= 0 and top < 2**27:
        table = np.full(top + 1, -1, dtype=np.int64)
        table[ids] = np.arange(ids.size)
        codes = table[item_id]
    else:
        codes = pd.Index(ids).get_indexer(item_id)
    return as_text(values[codes])


def load_movielens(path, *, return_items=False):
    """Load MovieLens ratings from the files of an official release.

    The format is detected from the file name, or from the first line of a
    file with another name:

    =================================  ===============  ===========================
    release                            ratings file     movie file (genres)
    =================================  ===============  ===========================
    ml-100k                            ``u.data``       ``u.item`` (19 genre flags)
    ml-1m (also ml-10m)                ``ratings.dat``  ``movies.dat``
    ml-latest(-small), ml-20m/25m/32m  ``ratings.csv``  ``movies.csv``
    =================================  ===============  ===========================

    The MovieLens data sets are published by GroupLens Research [1]_. Their
    licence forbids redistribution, so they are never shipped with this
    package: download them with :func:`fetch_movielens` or by hand.

    Parameters
    ----------
    path : str or path-like
        A ratings file, or a directory holding one (such as the extracted
        ``ml-100k`` folder, or the folder an archive was extracted into).
    return_items : bool, default=False
        If True, also return the item table.

    Returns
    -------
    ratings : pandas.DataFrame
        One row per rating in file order, with the columns of
        :func:`make_movielens_like`: ``user_id`` (int64), ``item_id`` (int64),
        ``rating`` (float64; whole stars in ml-100k and ml-1m, half stars in
        the later releases), ``timestamp`` (int64, Unix seconds) and
        ``genres`` (str, pipe-separated). ml-100k genre flags are joined in
        file order, and an item without any is ``"(no genres listed)"``.
        When the movie file is not next to the ratings file, ``genres`` is
        missing (NaN) on every row; it is also missing for an item the movie
        file does not list.
    items : pandas.DataFrame
        Only when ``return_items=True``: the movie file as ``item_id``,
        ``title`` and ``genres``; without a movie file, the rated item ids with
        missing title and genres.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the format is unknown, a file cannot be parsed, a column is
        missing, the file is empty or a rating is off the 0.5-5 star scale.
        The message names the file.

    See Also
    --------
    fetch_movielens : Download, verify and cache an official archive.
    make_movielens_like : Synthetic data in the same layout.

    References
    ----------
    .. [1] F. M. Harper and J. A. Konstan, "The MovieLens datasets: history and
       context", ACM Transactions on Interactive Intelligent Systems 5(4), 2015.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from skndcg.datasets import load_movielens
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ratings.csv").write_text(
    ...     "userId,movieId,rating,timestamp\\n1,10,4.5,964982703\\n"
    ...     "1,20,3.0,964981247\\n2,10,5.0,964982224\\n"
    ... )
    >>> _ = (folder / "movies.csv").write_text(
    ...     "movieId,title,genres\\n10,Heat (1995),Action|Crime|Thriller\\n"
    ...     "20,Sabrina (1995),Comedy|Romance\\n"
    ... )
    >>> load_movielens(folder)
       user_id  item_id  rating  timestamp                 genres
    0        1       10     4.5  964982703  Action|Crime|Thriller
    1        1       20     3.0  964981247         Comedy|Romance
    2        2       10     5.0  964982224  Action|Crime|Thriller
    >>> import shutil
    >>> shutil.rmtree(folder)
    """
    check_flags(return_items=return_items)
    ratings_path, fmt, movies_path = _locate(path)
    ratings = _RATING_READERS[fmt](ratings_path)
    _check_ratings(ratings, ratings_path, int(fmt == "ml-latest"))
    ratings = ratings.reset_index(drop=True)
    if movies_path.is_file():
        items = _ITEM_READERS[fmt](movies_path)
        ratings["genres"] = _lookup(ratings["item_id"].to_numpy(), items)
    else:
        ids = np.unique(ratings["item_id"].to_numpy())
        missing = np.full(ids.size, np.nan, dtype=object)
        items = _items_frame(ids, missing, missing, movies_path)
        ratings["genres"] = as_text(np.full(len(ratings), np.nan), ratings.index)
    return (ratings, items) if return_items else ratings
