"""The coherence layer: which documents were derived from which revisions, and what went stale."""
