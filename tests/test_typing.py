"""Types as a user's type checker sees them: ``mypy --strict --disallow-any-expr``
(no expression of type Any) on a user script
(tests/typecheck/user_script.py) gets precise types from brett's inline
annotations, and the stubs of the compiled cores match them (stubtest)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import needs_cython

HERE = Path(__file__).parent / "typecheck"
EXPECTED = {
    12: "brett.reversi.ReversiMove",
    13: "brett.reversi.ReversiMove",
    15: "brett.reversi.ReversiMove",
    16: "list[brett.reversi.ReversiMove]",
    18: "brett.reversi.ReversiMove",
    19: "brett.reversi.ReversiMove",
    23: "dict[brett.reversi.ReversiMove, int]",
    24: "dict[str, int]",
    25: "brett.reversi.Reversi | brett.focus.Focus | brett.phutball.Phutball | "
        "brett.schuft.Schuft",
    29: "brett.focus.FocusMove",
    30: "tuple[int, ...] | None",
    34: "brett.game.LegalMoveView[brett.phutball.PhutballMove]",
    38: "brett.schuft.SchuftMove | brett.schuft.Roll",
    40: "type[brett.reversi.Reversi]",
    41: "brett.reversi.ReversiEffects",
    42: "brett.focus.FocusEffects",
    43: "brett.phutball.PhutballEffects",
    44: "brett.schuft.Roll",
    45: "brett.schuft.SchuftMove | brett.schuft.Roll",
    48: "brett.reversi.Reversi",
    50: "list[brett.reversi.ReversiMove | brett.focus.FocusMove | brett.phutball.PhutballMove | "
        "brett.schuft.SchuftMove | brett.schuft.Roll]",
    51: "type[brett.schuft.Schuft]",
}


def test_mypy_strict_sees_real_types() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--disallow-any-expr", "--no-incremental",
         str(HERE / "user_script.py")], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    revealed = {int(m.group(1)): m.group(2) for m in re.finditer(
        r"user_script\.py:(\d+): note: Revealed type is \"(.*)\"", result.stdout)}
    for line, expected in EXPECTED.items():
        assert revealed.get(line) == expected, (line, revealed.get(line))
    assert "numpy.bool" in revealed[20] and "32Bit" in revealed[21]
    assert "brett.game.Outcome" in revealed[22]


@needs_cython
def test_stubs_of_the_compiled_cores_match_them() -> None:
    modules = ["brett._core._common", "brett._core._reversi_c", "brett._core._focus_c",
               "brett._core._phutball_c", "brett._core._schuft_c", "brett._core._search_c",
               "brett._core._solve_c", "brett._core._alphabeta_c"]
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", *modules,
         "--allowlist", str(HERE / "stubtest-allowlist.txt")],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
