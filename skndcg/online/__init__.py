"""Online evaluation of rankers: counterfactual estimates from click logs,
interleaving, A/B tests, and a click simulator with known truth.

- :func:`ab_test`: A/B tests of ranking metrics, the unit of randomisation
  as unit, with CUPED, a sample-ratio check, covariate balance and
  always-valid (sequential) intervals; :func:`sustained_lift`: the stopping
  rule "the lift has stayed above a threshold for a given time".
- :func:`counterfactual_report`: a new ranker's expected clicks estimated from
  a logged ranker's click log (IPS, SNIPS, doubly robust, cascade), with
  bootstrap intervals over queries and weight diagnostics.
- :func:`interleave` and :func:`interleaving_result`: team-draft and balanced
  interleaving of two rankers, and the wins, ties and test from the clicks;
  :func:`multileave` and :func:`multileaving_result` for more than two.
- :func:`simulate_click_log` and :func:`simulate_clicks`: click logs and clicks
  drawn from a known logger (uniformly random or softmax rankings) and click
  model (position-based or cascade), with the truth to check estimates
  against.
"""

from ._ab import ab_test
from ._ab_result import ABTestResult
from ._clicks import simulate_clicks
from ._counterfactual import counterfactual_report
from ._interleave import interleave
from ._interleave_result import InterleavingResult, interleaving_result
from ._multileave import multileave, multileaving_result
from ._simulate import SimulatedClickLog, simulate_click_log
from ._stopping import sustained_lift

__all__ = [
    "ABTestResult",
    "InterleavingResult",
    "SimulatedClickLog",
    "ab_test",
    "counterfactual_report",
    "interleave",
    "interleaving_result",
    "multileave",
    "multileaving_result",
    "simulate_click_log",
    "simulate_clicks",
    "sustained_lift",
]
