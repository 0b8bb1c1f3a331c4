"""Synthetic MovieLens-like ratings with structure a ranking model can learn."""

from __future__ import annotations

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, validate_params

from ..utils._constraints import Count
from ..utils._interactions import DAY
from ..utils._seeds import integer_draw

# The genre vocabulary of the ml-latest files, with rough relative frequencies
# (share of movies carrying the genre) so that Drama and Comedy dominate and
# Film-Noir or IMAX are rare, as in the real catalogue.
GENRES = (
    "Action",
    "Adventure",
    "Animation",
    "Children",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Film-Noir",
    "Horror",
    "IMAX",
    "Musical",
    "Mystery",
    "Romance",
    "Sci-Fi",
    "Thriller",
    "War",
    "Western",
)
_GENRE_SHARE = np.array(
    [19, 13, 6, 7, 39, 12, 5, 45, 8, 1, 10, 2, 3, 6, 16, 10, 19, 4, 2], dtype=float
)
NO_GENRE = "(no genres listed)"

_YEAR = 365.25 * DAY
_N_FACTORS = 8


# pandas >= 3 has a dedicated string dtype; earlier versions hold str objects.
_STR_DTYPE = "str" if int(pd.__version__.split(".")[0]) >= 3 else object


def as_text(values, index=None):
    """A Series of strings (NaN where missing) in pandas' string dtype."""
    return pd.Series(np.asarray(values, dtype=object), index=index, dtype=_STR_DTYPE)


def _make_items(rng, n_items, t0, span):
    """Latent factors, genres, release times and base popularity of items."""
    q = rng.standard_normal((n_items, _N_FACTORS))
    w = rng.standard_normal((len(GENRES), _N_FACTORS))
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    # Genres are a noisy read-out of the latent factors: a user's taste in
    # genres therefore says something about the latent taste, and back.
    noise = rng.gumbel(size=(n_items, len(GENRES)))
    keys = 1.4 * np.log(_GENRE_SHARE) + 2.5 * (q @ w.T) + noise
    n_genres = np.clip(1 + rng.poisson(1.3, n_items), 1, 5)
    best = np.argsort(-keys, axis=1)[:, :5]
    chosen = np.zeros((n_items, len(GENRES)), dtype=bool)
    rows = np.repeat(np.arange(n_items), n_genres)
    chosen[rows, best[np.arange(5) < n_genres[:, None]]] = True
    chosen[rng.random(n_items) < 0.004] = False  # a few items without a genre

    # About half of the catalogue exists before the window opens; the rest is
    # released during it, so new items keep appearing.
    is_new = rng.random(n_items) < 0.45
    release = np.where(
        is_new,
        t0 + rng.random(n_items) * span,
        t0 - rng.random(n_items) * 60 * _YEAR,
    )
    log_pop = rng.normal(0.0, 1.7, n_items)
    return q, chosen, release, log_pop


def genre_strings(flags, names):
    """Per row of boolean ``flags``, the pipe-joined ``names`` it holds, in order."""
    names = np.array(names, dtype=object)
    return np.array(
        ["|".join(names[row]) if row.any() else NO_GENRE for row in flags], dtype=object
    )


def _allocate(rng, n_ratings, weights, capacity, minimum):
    """Split exactly ``n_ratings`` over users, proportional to heavy-tailed
    weights, each user getting at least ``minimum`` and at most ``capacity``."""
    counts = np.minimum(minimum, capacity)
    rest = n_ratings - counts.sum()
    while rest > 0:
        room = capacity - counts
        w = np.where(room > 0, weights, 0.0)
        counts += np.minimum(rng.multinomial(rest, w / w.sum()), room)
        rest = n_ratings - counts.sum()
    return counts


def _sessions(rng, n_per_user, arrival, span_end):
    """Session start times per user: one burst for most users, several spread
    over months or years for the more active ones."""
    n_users = n_per_user.size
    p_multi = np.clip(0.15 + 0.3 * np.log10(n_per_user / 20.0 + 1.0), 0.15, 0.9)
    multi = rng.random(n_users) < p_multi
    n_sessions = np.where(
        multi,
        2 + rng.poisson(np.sqrt(n_per_user) / 2.0),
        1 + rng.poisson(0.4, n_users),
    )
    n_sessions = np.minimum(n_sessions, n_per_user)
    duration = np.where(
        multi, rng.lognormal(np.log(200 * DAY), 1.0, n_users), 0.8 * DAY
    )
    duration = np.minimum(duration, np.maximum(span_end - arrival, 0.0))
    owner = np.repeat(np.arange(n_users), n_sessions)
    first = np.r_[0, np.cumsum(n_sessions)[:-1]]
    start = arrival[owner] + rng.random(owner.size) * duration[owner]
    start[first] = arrival
    return n_sessions, np.floor(start[np.lexsort((start, owner))])


@validate_params(
    {
        "n_users": [Count(1)],
        "n_items": [Count(1)],
        "n_ratings": [Count(1)],
        "n_years": [Interval(Real, 0, None, closed="neither")],
        "start": [str],
        "half_stars": ["boolean"],
        "return_items": ["boolean"],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def make_movielens_like(
    n_users=600,
    n_items=9000,
    n_ratings=100_000,
    *,
    n_years=9.0,
    start="2010-01-01",
    half_stars=False,
    return_items=False,
    random_state=None,
):
    """Generate MovieLens-like explicit ratings with learnable structure.

    The defaults are sized like the public ``ml-latest-small`` release (about
    600 users, 9,000 movies, 100,000 ratings over 9 years). The data follow a
    generative story chosen so that ranking models genuinely differ on it:

    - **Latent taste.** Users and items carry latent factors; how much a user
      likes an item drives both *which* items the user rates and the rating.
    - **Genres.** Each item has one to five genres drawn from the ml-latest
      vocabulary, as a noisy function of its latent factors, so a user's past
      genre preferences predict later ratings.
    - **Heavy tails.** Item popularity is log-normal and user activity is
      heavy-tailed (every user rates at least ``min(20, n_ratings // n_users)``
      items, like the real data).
    - **Rating habits.** Each user has a personal offset (generous or harsh)
      and a personal spread (uses the whole scale or stays near the middle);
      items have a quality offset.
    - **Drift.** Part of the catalogue is released during the time window:
      new items appear, enjoy a burst of popularity, then fade.
    - **Sessions and bursts.** Most users rate everything in one sitting; more
      active users come back over months or years. Within a sitting, runs of
      ratings share the same second, as in the real MovieLens exports.

    Parameters
    ----------
    n_users : int, default=600
        Number of users; every user has at least one rating.
    n_items : int, default=9000
        Size of the catalogue; items nobody rated appear only in the item table.
    n_ratings : int, default=100_000
        Exact number of rows. At most ``n_users * n_items`` (each user rates an
        item at most once).
    n_years : float, default=9.0
        Length of the time window in years.
    start : str, default="2010-01-01"
        First day of the time window (UTC), any string :class:`pandas.Timestamp`
        understands.
    half_stars : bool, default=False
        If False, ratings are whole stars 1 to 5 (like ml-100k and ml-1m); if
        True, half stars 0.5 to 5.0 (like ml-latest).
    return_items : bool, default=False
        If True, also return the item table.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed for reproducible output.

    Returns
    -------
    ratings : pandas.DataFrame
        One row per rating, sorted by ``user_id``, then ``timestamp``, then
        ``item_id``, with columns

        - ``user_id`` (int64, 1 to ``n_users``),
        - ``item_id`` (int64, 1 to ``n_items``, numbered by release time),
        - ``rating`` (float64),
        - ``timestamp`` (int64, Unix seconds, as in the real files),
        - ``genres`` (str, pipe-separated such as ``"Action|Comedy"``, or
          ``"(no genres listed)"``, as in ml-latest ``movies.csv``).
    items : pandas.DataFrame
        Only when ``return_items=True``: one row per item with ``item_id``,
        ``title`` (``"Movie 17 (2011)"``, the year of release) and ``genres``.

    See Also
    --------
    load_movielens : Read the real MovieLens files into the same layout.

    References
    ----------
    .. [1] F. M. Harper and J. A. Konstan, "The MovieLens datasets: history and
       context", ACM Transactions on Interactive Intelligent Systems 5(4), 2015.

    Examples
    --------
    >>> from skndcg.datasets import make_movielens_like
    >>> ratings = make_movielens_like(50, 300, 2000, random_state=0)
    >>> ratings.shape
    (2000, 5)
    >>> list(ratings.columns)
    ['user_id', 'item_id', 'rating', 'timestamp', 'genres']
    >>> sorted(ratings["rating"].unique().tolist())
    [1.0, 2.0, 3.0, 4.0, 5.0]
    >>> ratings, items = make_movielens_like(
    ...     50, 300, 2000, return_items=True, random_state=0
    ... )
    >>> items.shape
    (300, 3)
    """
    if n_ratings < n_users:
        raise ValueError(
            f"n_ratings={n_ratings} is smaller than n_users={n_users}: every "
            "user needs at least one rating."
        )
    if n_ratings > n_users * n_items:
        raise ValueError(
            f"n_ratings={n_ratings} exceeds n_users * n_items = "
            f"{n_users * n_items}: each user rates an item at most once."
        )
    try:
        t0 = pd.Timestamp(start, tz="UTC").timestamp()
    except ValueError as exc:
        raise ValueError(
            f"start={start!r} is not a date; expected a string such as '2010-01-01'."
        ) from exc
    rng = np.random.default_rng(integer_draw(random_state)(0, 2**31 - 1))
    span = n_years * _YEAR
    t_end = t0 + span

    q, chosen, release, log_pop = _make_items(rng, n_items, t0, span)
    # Item ids follow release order, as MovieLens ids roughly do.
    by_release = np.argsort(release, kind="stable")
    q, chosen, release, log_pop = (a[by_release] for a in (q, chosen, release, log_pop))

    # Users: taste, habits, activity and the time they are around.
    p = rng.standard_normal((n_users, _N_FACTORS))
    user_offset = rng.normal(0.0, 0.45, n_users)
    user_spread = rng.lognormal(np.log(0.7), 0.35, n_users)
    activity = rng.lognormal(0.0, 1.4, n_users)
    arrival = t0 + rng.random(n_users) * span * 0.97

    capacity = np.full(n_users, n_items, dtype=np.int64)
    minimum = min(20, n_ratings // n_users)
    counts = _allocate(rng, n_ratings, activity, capacity, minimum)
    n_sessions, session_start = _sessions(rng, counts, arrival, t_end)
    last_session = session_start[np.cumsum(n_sessions) - 1]
    mid_time = 0.5 * (arrival + last_session)

    # Users only rate items released before their last visit; if that leaves
    # too few items, the whole catalogue counts as available from the start.
    available = np.searchsorted(np.sort(release), last_session, side="right")
    if np.any(available < counts):
        release = np.minimum(release, t0)
        last_session = np.maximum(last_session, t0)

    # Choice of items: Gumbel top-k on popularity (boosted around release)
    # plus latent affinity, in blocks of users to bound memory.
    tau = 180 * DAY
    users, items = [], []
    block = max(1, 2**21 // n_items)
    for lo in range(0, n_users, block):
        hi = min(lo + block, n_users)
        aff = p[lo:hi] @ q.T / np.sqrt(_N_FACTORS)
        age = np.abs(mid_time[lo:hi, None] - release[None, :])
        keys = log_pop + np.log1p(4.0 * np.exp(-age / tau)) + 1.2 * aff
        keys += rng.gumbel(size=keys.shape)
        keys[release[None, :] > last_session[lo:hi, None]] = -np.inf
        k = counts[lo:hi]
        kmax = int(k.max())
        top = np.argpartition(-keys, kmax - 1, axis=1)[:, :kmax]
        top_keys = np.take_along_axis(keys, top, axis=1)
        top = np.take_along_axis(top, np.argsort(-top_keys, axis=1), axis=1)
        mask = np.arange(kmax) < k[:, None]
        users.append(np.repeat(np.arange(lo, hi), k))
        items.append(top[mask])
    u = np.concatenate(users)
    i = np.concatenate(items)

    # Ratings: global mean + user offset + item quality + taste x user spread.
    # Users pick what they expect to like, so the chosen pairs lean towards
    # high taste and popular items: centre both over the chosen pairs.
    item_quality = 0.35 * rng.standard_normal(n_items) + 0.12 * log_pop
    quality = item_quality[i] - item_quality[i].mean()
    taste = np.einsum("ij,ij->i", p[u], q[i]) / np.sqrt(_N_FACTORS)
    taste -= taste.mean()
    noise = rng.normal(0.0, 0.55, u.size)
    raw = 3.6 + user_offset[u] + quality + user_spread[u] * taste + noise
    if half_stars:
        rating = np.clip(np.round(raw * 2.0) / 2.0, 0.5, 5.0)
    else:
        rating = np.clip(np.round(raw), 1.0, 5.0)

    timestamp = _timestamps(rng, u, release[i], n_sessions, session_start)
    timestamp = np.minimum(timestamp, np.floor(t_end) - 1).astype(np.int64)

    order = np.lexsort((i, timestamp, u))
    genre_str = genre_strings(chosen, GENRES)
    ratings = pd.DataFrame(
        {
            "user_id": (u[order] + 1).astype(np.int64),
            "item_id": (i[order] + 1).astype(np.int64),
            "rating": rating[order].astype(np.float64),
            "timestamp": timestamp[order],
            "genres": as_text(genre_str[i[order]]),
        }
    )
    if not return_items:
        return ratings
    years = pd.to_datetime(release, unit="s").year
    items_frame = pd.DataFrame(
        {
            "item_id": np.arange(1, n_items + 1, dtype=np.int64),
            "title": as_text([f"Movie {j + 1} ({y})" for j, y in enumerate(years)]),
            "genres": as_text(genre_str),
        }
    )
    return ratings, items_frame


def _timestamps(rng, u, item_release, n_sessions, session_start):
    """Unix seconds of each rating: pick a session the item already existed
    in (earlier sessions are likelier), then lay ratings out in runs of equal
    seconds separated by short pauses."""
    n = u.size
    offset = np.r_[0, np.cumsum(n_sessions)]
    owner = np.repeat(np.arange(n_sessions.size), n_sessions)
    # First session of the user that starts at or after the item's release,
    # found with one search on integer (user, second) keys.
    lo = np.floor(session_start.min())
    width = np.int64(np.ceil(session_start.max() - lo)) + 2
    sess_key = owner * width + (session_start - lo).astype(np.int64)
    rel = np.clip(np.ceil(item_release - lo), 0, width - 1).astype(np.int64)
    first_valid = np.searchsorted(sess_key, u * width + rel) - offset[u]
    n_valid = n_sessions[u] - first_valid
    # An item released after the user's last visit cannot occur (items are
    # masked), but rounding may put the release a hair later: clamp.
    n_valid = np.maximum(n_valid, 1)
    first_valid = np.minimum(first_valid, n_sessions[u] - 1)
    pick = first_valid + np.floor(n_valid * rng.random(n) ** 1.6).astype(np.int64)
    session = offset[u] + pick

    # Within a session: a random order, then gaps of 0 s (same-second runs)
    # or a few seconds to minutes.
    order = np.lexsort((rng.random(n), session))
    gaps = np.where(rng.random(n) < 0.45, 0.0, np.ceil(rng.exponential(25.0, n)))
    sess_sorted = session[order]
    new_session = np.r_[True, sess_sorted[1:] != sess_sorted[:-1]]
    gaps[new_session] = 0.0
    csum = np.cumsum(gaps)
    within = csum - np.maximum.accumulate(np.where(new_session, csum, 0.0))
    out = np.empty(n, dtype=np.float64)
    out[order] = np.floor(session_start[sess_sorted]) + within
    return out
