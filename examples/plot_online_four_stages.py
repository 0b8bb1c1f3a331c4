"""
===========================================================
From offline to online: four stages on one simulated log
===========================================================

A ranking change usually goes through four stages before and after it
ships: an offline evaluation, a near-line check on shadow traffic, an A/B
test, and long-term monitoring. This example runs all four on one simulated
click log, whose truth is known, with the functions of
:mod:`skndcg.online` and :mod:`skndcg.evaluation`. The user guide page
:ref:`online` explains each step.
"""

# %%
# One simulated log
# -----------------
# :func:`~skndcg.online.simulate_click_log` draws queries of 20 candidates,
# each with a true relevance (the chance of a click once examined), a logging
# ranker that showed ten of them (a softmax over ``logging_score``) and clicks
# from the position-based model. The live ranker ranks by ``logging_score``;
# the new one adds a second signal, ``feature``.
import os

import numpy as np
import pandas as pd

from skndcg.online import simulate_click_log

quick = os.environ.get("SKNDCG_EXAMPLE_QUICK") == "1"
rng = np.random.default_rng(0)
sim = simulate_click_log(
    n_queries=1500 if quick else 5000, logger="softmax", random_state=0
)
log = sim.log.assign(live=lambda d: d["logging_score"])
log["new"] = log["logging_score"] + log["feature"]
n_cand = 20
print(f"{log['qid'].nunique()} logged queries, {int(log['click'].sum())} clicks")


def requests(pool, n, rng):
    """``n`` requests drawn from the logged queries: rows and request ids."""
    picked = rng.integers(0, pool, n)
    rows = (picked[:, None] * n_cand + np.arange(n_cand)).ravel()
    out = log.iloc[rows].reset_index(drop=True)
    out["request"] = np.repeat(np.arange(n), n_cand)
    return out


# %%
# Stage 1: offline
# ----------------
# With relevance labels (here the true ones), NDCG@10 of both rankers on the
# same queries, paired; and from the logged clicks alone, the new ranker's
# expected clicks per query estimated off-policy, next to the truth.
from skndcg.evaluation import compare_scores
from skndcg.online import counterfactual_report

offline = compare_scores(
    log["relevance"], {"live": log["live"], "new": log["new"]}, log["qid"],
    metrics=["ndcg@10"], baseline="live", n_resamples=1000, random_state=0,
)  # fmt: skip
print(offline.to_frame(pairs=True)[["model", "other", "diff", "diff_low", "diff_high"]])
estimate = counterfactual_report(
    log["qid"], log["item"], log["position"], log["click"], log["new"],
    examination=sim.examination, logging_probability=log["logging_probability"],
    n_resamples=200, random_state=0,
)  # fmt: skip
print(estimate)
print(f"true clicks per query: new {sim.true_value(log['new']):.3f}, "
      f"live {sim.true_value(log['live']):.3f}")  # fmt: skip

# %%
# Stage 2: near-line, shadow traffic
# ----------------------------------
# A day of requests scored by both rankers. At 15:00 a feature pipeline
# breaks: for 40% of the requests the new ranker gets noise instead of
# ``feature``. NDCG@10 per window on the new ranker alerts on a drop of 5% or
# more against a stable baseline (:func:`~skndcg.evaluation.metric_over_time`),
# and the paired comparison with the live ranker on the same requests
# (:func:`~skndcg.evaluation.compare_over_time`) shows when the new one stops
# being better.
import matplotlib.pyplot as plt

from skndcg.evaluation import compare_over_time, metric_over_time
from skndcg.plotting import plot_metric_over_time

n_pool = log["qid"].nunique()
day = requests(n_pool, 4800 if quick else 24_000, rng)
n_req = day["request"].max() + 1
start = pd.Timestamp("2024-06-03") + pd.to_timedelta(
    np.sort(rng.uniform(0, 86_400, n_req)), unit="s"
)
day["time"] = start[day["request"]]
broken = (start >= pd.Timestamp("2024-06-03 15:00")) & (rng.random(n_req) < 0.4)
noise = day["logging_score"] + rng.normal(0, 3, len(day))
day["new"] = np.where(broken[day["request"]], noise, day["new"])
freq = "1h" if quick else "30min"
near = metric_over_time(
    day["relevance"], day["new"], day["request"], day["time"], freq=freq,
    metrics="ndcg@10", baseline_windows=3,
)  # fmt: skip
shadow = compare_over_time(
    day["relevance"], {"live": day["live"], "new": day["new"]}, day["request"],
    day["time"], freq=freq, baseline="live", test="t", n_resamples=1000,
    random_state=0,
)  # fmt: skip
print(f"alerts from {near.loc[near['alert'], 'window'].min()}")

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
plot_metric_over_time(near, metric="ndcg@10", ax=ax1)
ax1.set_title("New ranker, NDCG@10 per window (red: alert)")
ax2.errorbar(
    shadow["window"], shadow["diff"],
    yerr=[shadow["diff"] - shadow["diff_low"], shadow["diff_high"] - shadow["diff"]],
    fmt="o", ms=3, capsize=2,
)  # fmt: skip
ax2.axhline(0, color="k", lw=0.8)
ax2.set_title("Shadow traffic: new minus live, same requests (95% intervals)")
ax2.set_ylabel("NDCG@10 difference")
fig.tight_layout()

# %%
# Stage 3: the A/B test
# ---------------------
# Users arrive over 14 days and are split evenly between the arms; each issues
# a few requests, sees its arm's top ten, and clicks. Users differ in how
# much they click, so their requests are correlated: the unit of analysis is
# the user. The pre-period metric (their clicks per request the week before)
# feeds CUPED, the sample-ratio and balance checks come with the result, and
# the sequential test may be read every day.
from skndcg.metrics import ranking_report
from skndcg.online import ab_test, simulate_clicks, sustained_lift

n_users = 6000 if quick else 20_000
user_day = rng.integers(0, 14, n_users)
user_rate = rng.gamma(1.5, 0.6, n_users)  # how much each user clicks
n_per = rng.integers(1, 5, n_users)
user = np.repeat(np.arange(n_users), n_per)
ab = requests(n_pool, user.size, rng)
ab["user"] = user[ab["request"]]
arm = np.where(rng.random(n_users) < 0.5, "live", "new")
ab["arm"] = arm[ab["user"]]
score = np.where(ab["arm"] == "live", ab["live"], ab["new"])


def top_ten(scores):
    """Position 1-10 of each row in its request's ranking, NaN below."""
    rank = pd.Series(-scores).groupby(ab["request"]).rank(method="first")
    return rank.where(rank <= 10).to_numpy()


p_click = np.minimum(ab["relevance"] * user_rate[ab["user"]], 1.0)
ab["click"] = simulate_clicks(ab["request"], top_ten(score), p_click,
                              examination=sim.examination, random_state=1)  # fmt: skip
# The week before, every user saw the live ranker.
pre_click = simulate_clicks(ab["request"], top_ten(ab["live"].to_numpy()), p_click,
                            examination=sim.examination, random_state=2)  # fmt: skip
per = ranking_report(ab["relevance"], score, ab["request"], metrics=["ndcg@10"])
per["clicks"] = ab.groupby("request")["click"].sum().to_numpy()
per["user"] = user
per["arm"] = arm[user]
per["pre"] = (pd.Series(pre_click).groupby(ab["user"]).sum() / n_per).to_numpy()[user]
per["activity"] = n_per[user]
per["day"] = user_day[user]

history = {}
for d in range(14):
    seen = per[per["day"] <= d]
    history[d + 1] = ab_test(
        seen[["ndcg@10", "clicks"]], seen["arm"], seen["user"], pre=seen["pre"],
        control="live", sequential=True, covariates={"activity": seen["activity"]},
    )  # fmt: skip
final = history[14]
print(final)
print(f"SRM p = {final.srm_p_value:.2f}; balance of activity: "
      f"KS p = {final.balance['p_value'].min():.2f}")  # fmt: skip
print(final.to_frame()[["metric", "variance_reduction"]])
# The source's rule: NDCG up at least 3% and clicks at least 1%, held for two
# days, read on the estimates; then the same rule on the lower ends of the
# always-valid intervals.
rule = {"ndcg@10": 0.03, "clicks": 0.01}
for on in ("lift", "low"):
    stop = sustained_lift(history, threshold=rule, duration=2, on=on, relative=True)
    when = stop.loc[stop["stop"], "time"]
    print(f"rule on {on!r}: " + (f"stop on day {when.min()}" if len(when)
                                 else "not met by day 14, keep running"))  # fmt: skip

fig, ax = plt.subplots(figsize=(9, 3.5))
days = list(history)
for metric, colour in (("ndcg@10", "C0"), ("clicks", "C1")):
    rows = [h.to_frame().set_index("metric").loc[metric] for h in history.values()]
    lift = [100 * r["relative_lift"] for r in rows]
    ax.plot(days, lift, "o-", color=colour, label=f"{metric}, relative lift")
    ax.fill_between(days, [100 * r["relative_low"] for r in rows],
                    [100 * r["relative_high"] for r in rows], color=colour,
                    alpha=0.2)  # fmt: skip
ax.axhline(0, color="k", lw=0.8)
ax.set_xlabel("day of the test")
ax.set_ylabel("new vs live, %")
ax.set_title("A/B test, read every day: always-valid 95% intervals")
ax.legend(loc="upper right")
fig.tight_layout()

# %%
# Stage 4: long-term monitoring
# -----------------------------
# Five weeks of the shipped ranker, one NDCG@10 a day against the same weekday
# the week before (weekends have other traffic). In the fifth week a
# campaign brings many new users, for whom the ranker has no history and does
# worse. The daily series alerts; :func:`~skndcg.evaluation.explain_change`
# splits the drop into the mix of users and the change within each group.
from skndcg.evaluation import explain_change

n_days, per_day = 35, (300 if quick else 1500)
month = requests(n_pool, n_days * per_day, rng)
req_day = np.arange(n_days * per_day) // per_day
weekday = (pd.Timestamp("2024-06-03").day_of_week + req_day) % 7
p_new = np.where(weekday >= 5, 0.3, 0.1) + np.where(req_day >= 28, 0.4, 0.0)
is_new = rng.random(req_day.size) < p_new
month["segment"] = np.where(is_new, "new user", "returning")[month["request"]]
cold = month["logging_score"] + rng.normal(0, 2.5, len(month))  # no history
month["score"] = np.where(is_new[month["request"]], cold, month["new"])
month["time"] = pd.Timestamp("2024-06-03") + pd.to_timedelta(
    req_day[month["request"]] * 86_400 + 43_200, unit="s"
)
daily = metric_over_time(
    month["relevance"], month["score"], month["request"], month["time"],
    freq="1D", metrics="ndcg@10", baseline="week", threshold=0.03,
)  # fmt: skip
print(daily.loc[daily["alert"], ["window", "value", "baseline", "change"]])
report = ranking_report(month["relevance"], month["score"], month["request"],
                        metrics=["ndcg@10"])  # fmt: skip
report["segment"] = month.groupby("request")["segment"].first().to_numpy()
week = req_day // 7
parts = explain_change(report[week == 3], report[week == 4], by="segment")
print(parts[["segment", "share_before", "share_after", "mix", "within", "change"]])

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5),
                               gridspec_kw={"width_ratios": [2.2, 1]})  # fmt: skip
plot_metric_over_time(daily, metric="ndcg@10", ax=ax1)
ax1.set_title("Daily NDCG@10 against the same weekday last week")
seg = parts[parts["segment"] != "(all)"]
x = np.arange(len(seg))
ax2.bar(x - 0.2, seg["mix"], 0.4, label="mix")
ax2.bar(x + 0.2, seg["within"], 0.4, label="within")
ax2.set_xticks(x, seg["segment"])
ax2.axhline(0, color="k", lw=0.8)
ax2.set_title("Week 5 vs week 4: the parts")
ax2.legend()
fig.tight_layout()
