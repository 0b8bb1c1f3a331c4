"""Shared private helpers (nothing public lives here)."""
