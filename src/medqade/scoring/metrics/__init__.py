"""Scoring a checked submission against the physicians: judge and answer metrics, the baseline
judges, and :func:`score`, which builds the result record from them.
"""
