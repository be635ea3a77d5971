"""The leaderboard: records as rows, ranked by simultaneous paired intervals, and the comparison
of two rows (``medqade compare``, the Space's Compare).
"""
