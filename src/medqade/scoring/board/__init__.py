"""The leaderboard: records as rows, ranked by simultaneous paired intervals, and the comparison
of two rows (``medqade compare``, the Space's Compare).
"""

from medqade.scoring.board.compare_results import Comparison, Difference
from medqade.scoring.board.compare_sides import (
    MAX_TOKEN,
    PHYSICIANS,
    CompareError,
    Side,
    check_token,
    resolve,
    submission_side,
)
from medqade.scoring.board.comparison import compare
from medqade.scoring.board.record_rows import VIEWS, on_board
from medqade.scoring.board.row_types import (
    JUDGE_COLUMNS,
    MODEL_COLUMNS,
    Interval,
    JudgeRow,
    ModelRow,
)
from medqade.scoring.board.simultaneous import resolution_note
from medqade.scoring.board.sources import (
    BoardRecords,
    cached_reference_records,
    open_board,
    reference_path,
)
from medqade.scoring.board.tables import (
    MARGIN_STEP,
    Board,
    board_margin,
    leaderboard,
    rows,
)

__all__ = [
    "JUDGE_COLUMNS",
    "MARGIN_STEP",
    "MAX_TOKEN",
    "MODEL_COLUMNS",
    "PHYSICIANS",
    "VIEWS",
    "Board",
    "BoardRecords",
    "CompareError",
    "Comparison",
    "Difference",
    "Interval",
    "JudgeRow",
    "ModelRow",
    "Side",
    "board_margin",
    "cached_reference_records",
    "check_token",
    "compare",
    "leaderboard",
    "on_board",
    "open_board",
    "reference_path",
    "resolution_note",
    "resolve",
    "rows",
    "submission_side",
]
