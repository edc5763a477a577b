"""Developer tools run from the repository (code generators): ``python -m vmark.tools.<name>``."""
