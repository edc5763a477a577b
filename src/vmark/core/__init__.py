"""Domain model: pure data and rules, no I/O."""
