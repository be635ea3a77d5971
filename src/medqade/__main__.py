import sys

from medqade.cli import main

sys.exit(main())
