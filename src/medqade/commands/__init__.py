"""Sub-commands of the ``medqade`` CLI, one module each (discovered by :mod:`medqade.cli`)."""
