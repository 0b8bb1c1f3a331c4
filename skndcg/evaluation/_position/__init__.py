"""Examination propensity per position from a click log."""
