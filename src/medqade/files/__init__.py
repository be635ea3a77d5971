"""File helpers: the atomic output policy, row-level problems, user tables."""
