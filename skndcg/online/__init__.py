"""Online evaluation of rankers: counterfactual estimates from click logs,
interleaving, and a click simulator with known truth.

- :func:`simulate_click_log`: a click log drawn from a known logger
  (uniformly random or softmax rankings) and click model (position-based or
  cascade), with the truth to check estimates against.
"""

from ._simulate import SimulatedClickLog, simulate_click_log

__all__ = [
    "SimulatedClickLog",
    "simulate_click_log",
]
