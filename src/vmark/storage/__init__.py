"""Everything that touches the disk: scope, saves, journal, history, settings."""
