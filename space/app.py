"""The MedQADE leaderboard Space (Hugging Face entry point, ``app_file: app.py``).

Reads the Space variables ``MEDQADE_DATASET`` (the dataset repo, ``ORG/medqade``) and
``MEDQADE_RESULTS_REPO`` (where submissions are kept), falling back to
``medqade_space.json`` written by ``medqade space deploy``; everything else is the library.
"""

from __future__ import annotations

import logging
from pathlib import Path

from medqade.app.serve import serve, space_config

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    serve(space_config(Path(__file__).resolve().parent))
