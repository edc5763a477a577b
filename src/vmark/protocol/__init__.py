"""What crosses a process boundary: the agents' tool table, the person protocol's wire types, error codes, limits,
``bridge.json``'s format. Standard library only; ``vmark.core`` (the model) and every other package build on it."""
