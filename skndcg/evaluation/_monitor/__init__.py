"""Metrics over time: windows, baselines and alerts, shadow traffic compared per
window, and why a mean changed between two periods."""
