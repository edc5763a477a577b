"""The file tree's operations (filled in below)."""

ACTIONS: dict[str, object] = {}
