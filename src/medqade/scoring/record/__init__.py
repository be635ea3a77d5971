"""The result record: :class:`ScoreRecord` and its typed sections, read and written byte for byte,
and the text summary ``medqade score`` prints.
"""
