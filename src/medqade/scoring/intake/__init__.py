"""Reading a submission: uploaded bytes, tables, Inspect logs and metadata in, a checked
:class:`Submission` out, within the upload :class:`Limits`.
"""
