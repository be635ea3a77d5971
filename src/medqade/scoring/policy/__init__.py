"""What is accepted and kept: the one submission policy both front ends call, the results folder
and its store, rescoring, and names that would pass for another row.
"""
