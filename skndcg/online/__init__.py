"""Online evaluation of rankers: counterfactual estimates from click logs,
interleaving, and a click simulator with known truth.

- :func:`ab_test`: A/B tests of ranking metrics, the unit of randomisation
  as unit, with CUPED, a sample-ratio check, covariate balance and
  always-valid (sequential) intervals; :func:`sustained_lift`: the stopping
  rule "the lift has stayed above a threshold for a given time".
- :func:`simulate_click_log`: a click log drawn from a known logger
  (uniformly random or softmax rankings) and click model (position-based or
  cascade), with the truth to check estimates against.
"""

from ._ab import ab_test
from ._ab_result import ABTestResult
from ._simulate import SimulatedClickLog, simulate_click_log
from ._stopping import sustained_lift

__all__ = [
    "ABTestResult",
    "SimulatedClickLog",
    "ab_test",
    "simulate_click_log",
    "sustained_lift",
]
