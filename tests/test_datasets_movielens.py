"""Tests of load_movielens on small files written in the real formats."""

import zipfile

import numpy as np
import pandas as pd
import pytest

from skndcg.datasets import load_movielens, make_movielens_like
from skndcg.datasets._movielens import ML100K_GENRES

COLUMNS = ["user_id", "item_id", "rating", "timestamp", "genres"]


def flags(*on):
    return "|".join("1" if ML100K_GENRES[j] in on else "0" for j in range(19))


def write_ml100k(folder, with_items=True, with_genre_file=False):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "u.data").write_text(
        "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n"
        "196\t377\t5\t881250950\n"
    )
    if with_items:
        lines = [
            f"242|Kolya (1996)|24-Jan-1997||http://imdb/x|{flags('Comedy')}",
            "302|L.A. Confidential (1997)|01-Jan-1997||http://imdb/y|"
            + flags("Crime", "Film-Noir", "Thriller"),
            f"377|Caf\xe9 Society (1995)|01-Jan-1995||http://imdb/z|{flags()}",
        ]
        (folder / "u.item").write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    if with_genre_file:
        names = [g.upper() for g in ML100K_GENRES]
        text = "".join(f"{g}|{i}\n" for i, g in enumerate(names)) + "\n"
        (folder / "u.genre").write_text(text)
    return folder


def write_ml1m(folder):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ratings.dat").write_text(
        "1::1193::5::978300760\n1::661::3::978302109\n2::1193::4::978298413\n"
    )
    (folder / "movies.dat").write_bytes(
        "1193::One Flew Over the Cuckoo's Nest (1975)::Drama\n"
        "661::James and the Giant Peach: The Movie (1996)::Animation|Children's\n"
        "3::Les Mis\xe9rables (1995)::Drama|Musical\n".encode("latin-1")
    )
    return folder


def write_ml_latest(folder, ratings=None, movies=None, newline="\r\n"):
    folder.mkdir(parents=True, exist_ok=True)
    ratings = ratings or [
        "userId,movieId,rating,timestamp",
        "1,1,4.0,964982703",
        "1,3,4.5,964981247",
        "2,1,0.5,1445714835",
    ]
    movies = movies or [
        "movieId,title,genres",
        '1,"American President, The (1995)",Comedy|Drama|Romance',
        "3,Amélie (2001),(no genres listed)",
    ]
    (folder / "ratings.csv").write_bytes(newline.join([*ratings, ""]).encode())
    (folder / "movies.csv").write_bytes(newline.join([*movies, ""]).encode())
    return folder


def check_layout(df):
    assert list(df.columns) == COLUMNS
    assert [str(t) for t in df.dtypes[:4]] == ["int64", "int64", "float64", "int64"]
    assert pd.api.types.is_string_dtype(df["genres"])


def test_ml100k_directory_and_file(tmp_path):
    folder = write_ml100k(tmp_path / "ml-100k")
    df = load_movielens(folder)
    check_layout(df)
    assert df["user_id"].tolist() == [196, 186, 22, 196]
    assert df["item_id"].tolist() == [242, 302, 377, 377]
    assert df["rating"].tolist() == [3.0, 3.0, 1.0, 5.0]
    assert df["timestamp"].tolist() == [881250949, 891717742, 878887116, 881250950]
    assert df["genres"].tolist() == [
        "Comedy",
        "Crime|Film-Noir|Thriller",
        "(no genres listed)",
        "(no genres listed)",
    ]
    pd.testing.assert_frame_equal(load_movielens(folder / "u.data"), df)
    pd.testing.assert_frame_equal(load_movielens(str(folder)), df)


def test_ml100k_items_latin1_and_genre_file(tmp_path):
    folder = write_ml100k(tmp_path, with_genre_file=True)
    df, items = load_movielens(folder, return_items=True)
    assert items["title"].tolist()[2] == "Café Society (1995)"
    assert items["item_id"].tolist() == [242, 302, 377]
    # Genre names come from u.genre when it is there.
    assert df["genres"].iloc[0] == "COMEDY"


def test_ml1m_double_colon_and_latin1(tmp_path):
    df, items = load_movielens(write_ml1m(tmp_path / "ml-1m"), return_items=True)
    check_layout(df)
    assert df[["user_id", "item_id"]].to_numpy().tolist() == [
        [1, 1193],
        [1, 661],
        [2, 1193],
    ]
    assert df["rating"].tolist() == [5.0, 3.0, 4.0]
    assert df["genres"].tolist() == ["Drama", "Animation|Children's", "Drama"]
    assert items["title"].tolist()[1:] == [
        "James and the Giant Peach: The Movie (1996)",
        "Les Misérables (1995)",
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_ml_latest_csv_half_stars_quotes_and_line_ends(tmp_path, newline):
    folder = write_ml_latest(tmp_path, newline=newline)
    df, items = load_movielens(folder / "ratings.csv", return_items=True)
    check_layout(df)
    assert df["rating"].tolist() == [4.0, 4.5, 0.5]
    assert df["timestamp"].tolist() == [964982703, 964981247, 1445714835]
    assert df["genres"].tolist() == [
        "Comedy|Drama|Romance",
        "(no genres listed)",
        "Comedy|Drama|Romance",
    ]
    assert items["title"].tolist() == [
        "American President, The (1995)",
        "Amélie (2001)",
    ]


def test_csv_columns_in_another_order_and_extra_columns(tmp_path):
    folder = write_ml_latest(
        tmp_path,
        ratings=["timestamp,rating,extra,movieId,userId", "964982703,2.5,x,3,7"],
    )
    df = load_movielens(folder)
    assert df.iloc[0, :4].tolist() == [7, 3, 2.5, 964982703]


def test_missing_movie_file_gives_missing_genres(tmp_path):
    folder = write_ml100k(tmp_path, with_items=False)
    df, items = load_movielens(folder, return_items=True)
    check_layout(df)
    assert df["genres"].isna().all()
    assert items["item_id"].tolist() == [242, 302, 377]
    assert items[["title", "genres"]].isna().all(axis=None)


def test_item_absent_from_movie_file_has_missing_genres(tmp_path):
    folder = write_ml_latest(
        tmp_path, ratings=["userId,movieId,rating,timestamp", "1,99,3.0,1", "1,1,3,2"]
    )
    df = load_movielens(folder)
    assert df["genres"].isna().tolist() == [True, False]


def test_unusual_file_names_are_sniffed(tmp_path):
    (tmp_path / "my.tsv").write_text("1\t2\t3\t4\n")
    (tmp_path / "my.dat").write_text("1::2::3::4\n")
    (tmp_path / "my.csv").write_text("userId,movieId,rating,timestamp\n1,2,3,4\n")
    for name in ("my.tsv", "my.dat", "my.csv"):
        df = load_movielens(tmp_path / name)
        assert df.iloc[0, :4].tolist() == [1, 2, 3.0, 4], name
        assert df["genres"].isna().all()


def test_folder_holding_the_extracted_archive(tmp_path):
    write_ml1m(tmp_path / "ml-1m")
    assert len(load_movielens(tmp_path)) == 3
    write_ml100k(tmp_path / "ml-100k")
    with pytest.raises(ValueError, match="several MovieLens ratings files under"):
        load_movielens(tmp_path)


def test_round_trip_of_generated_data_in_the_real_format(tmp_path):
    ratings, items = make_movielens_like(
        40, 300, 2000, half_stars=True, random_state=0, return_items=True
    )
    out = ratings.rename(columns={"user_id": "userId", "item_id": "movieId"})
    out.drop(columns="genres").to_csv(tmp_path / "ratings.csv", index=False)
    items.rename(columns={"item_id": "movieId"}).to_csv(
        tmp_path / "movies.csv", index=False
    )
    loaded, loaded_items = load_movielens(tmp_path, return_items=True)
    pd.testing.assert_frame_equal(loaded, ratings)
    pd.testing.assert_frame_equal(loaded_items, items)


def test_a_larger_file_is_read_whole(tmp_path):
    # How fast: benchmarks/bench_datasets.py (no wall-clock limits in tests).
    n = 30_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "userId": rng.integers(1, 5000, n),
            "movieId": rng.integers(1, 20000, n),
            "rating": rng.integers(1, 11, n) / 2,
            "timestamp": rng.integers(800_000_000, 1_600_000_000, n),
        }
    )
    frame.to_csv(tmp_path / "ratings.csv", index=False)
    df = load_movielens(tmp_path)
    assert len(df) == n
    np.testing.assert_array_equal(df["item_id"], frame["movieId"])


# --- errors: each names the file and the problem ------------------------------


def test_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere does not exist"):
        load_movielens(tmp_path / "nowhere")


def test_directory_without_ratings(tmp_path):
    (tmp_path / "README.txt").write_text("hello")
    with pytest.raises(ValueError, match="no ratings file found"):
        load_movielens(tmp_path)


def test_unknown_format(tmp_path):
    (tmp_path / "notes.txt").write_text("hello world\n")
    with pytest.raises(ValueError, match=r"unknown MovieLens format for file .*notes"):
        load_movielens(tmp_path / "notes.txt")


def test_zip_archive_is_not_read_directly(tmp_path):
    with zipfile.ZipFile(tmp_path / "ml-100k.zip", "w") as zf:
        zf.writestr("ml-100k/u.data", "1\t2\t3\t4\n")
    with pytest.raises(ValueError, match="it is a zip archive; extract it first"):
        load_movielens(tmp_path / "ml-100k.zip")


@pytest.mark.parametrize(
    "name, text, match",
    [
        ("u.data", "1\t2\tthree\t4\n", r"could not read .*u\.data as ml-100k"),
        ("u.data", "1\t2\t3\t4\t5\n", "expected 4 tab-separated fields"),
        ("u.data", "1\t2\t3\t4\n1\t2\t3\n", r"could not read .*u\.data"),
        ("u.data", "", r"could not read .*u\.data"),
        ("ratings.dat", "1:2:3:4\n", r"could not read .*ratings\.dat as ml-1m"),
        ("ratings.dat", "1::2::3::4::5\n", r"could not read .*ratings\.dat"),
        ("ratings.csv", "userId,movieId,rating\n1,2,3\n", r"missing column\(s\)"),
        (
            "ratings.csv",
            "userId,movieId,rating,timestamp\n1,2,3,x\n",
            r"could not read .*ratings\.csv",
        ),
        ("ratings.csv", "userId,movieId,rating,timestamp\n", "contains no ratings"),
    ],
)
def test_corrupt_ratings_files(tmp_path, name, text, match):
    (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=match):
        load_movielens(tmp_path)


@pytest.mark.parametrize(
    "value, shown", [("6", "6.0"), ("0", "0.0"), ("3.3", "3.3"), ("", "nan")]
)
def test_ratings_out_of_range_csv(tmp_path, value, shown):
    (tmp_path / "ratings.csv").write_text(
        f"userId,movieId,rating,timestamp\n1,2,4,5\n1,3,{value},6\n"
    )
    match = rf"ratings\.csv has 1 rating\(s\) out of range.*found {shown} on line 3"
    with pytest.raises(ValueError, match=match):
        load_movielens(tmp_path)


def test_ratings_out_of_range_names_the_line(tmp_path):
    (tmp_path / "u.data").write_text("1\t2\t4\t5\n1\t3\t4\t6\n1\t4\t9\t7\n")
    with pytest.raises(ValueError, match=r"u\.data has 1 rating.*9\.0 on line 3"):
        load_movielens(tmp_path)


@pytest.mark.parametrize(
    "writer, name, text, match",
    [
        (write_ml100k, "u.item", "1|T|d||u|0|1\n", r"u\.item as ml-100k u\.item"),
        (
            write_ml100k,
            "u.item",
            "1|T|d||u|" + "|".join(["2"] * 19) + "\n",
            "19 genre flags of 0 or 1",
        ),
        (write_ml1m, "movies.dat", "1::Title only\n", "line 1 is not MovieID"),
        (write_ml_latest, "movies.csv", "movieId,name\n1,x\n", r"missing column\(s\)"),
        (
            write_ml_latest,
            "movies.csv",
            "movieId,title,genres\n1,a,Drama\n1,b,Comedy\n",
            "lists item id 1 more than once",
        ),
    ],
)
def test_corrupt_movie_files(tmp_path, writer, name, text, match):
    folder = writer(tmp_path)
    (folder / name).write_text(text)
    with pytest.raises(ValueError, match=match):
        load_movielens(folder)
