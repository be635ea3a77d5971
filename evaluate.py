"""Thin entry point: ``python evaluate.py <command> ...`` is ``medqade <command> ...``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

from medqade.cli import main

if __name__ == "__main__":
    sys.exit(main())
