"""Helpers that drive the person's side of the app from Python (tests, scripts)."""
