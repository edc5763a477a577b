"""VMark for Python: a Markdown workspace shared by a person and AI agents."""

__version__ = "0.1.0"
