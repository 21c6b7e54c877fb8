"""The simulators stay apart: the pipeline, the service and the web app never import companion.sim.

Every import statement of every module is looked at (also those inside functions and under
``TYPE_CHECKING``): only the commands (the demo, ``serve --camera sim``, ``vision watch``) and
the simulator itself may import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
MAY_IMPORT_SIM = ("sim", "commands")


def _imported(path: Path, source: str | None = None) -> set[str]:
    """Every module named by an import in ``path`` (relative imports made absolute)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]
    text = path.read_text(encoding="utf-8") if source is None else source
    out: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _imports_sim(names: set[str]) -> bool:
    return any(n == "companion.sim" or n.startswith("companion.sim.") for n in names)


def test_only_the_commands_and_the_simulator_import_companion_sim() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        top = path.relative_to(PACKAGE).parts[0]
        if top in MAY_IMPORT_SIM:
            continue
        if _imports_sim(_imported(path)):
            offenders.append(str(path.relative_to(PACKAGE.parent)))
    assert offenders == []


def test_the_scan_sees_imports_inside_functions_and_relative_ones() -> None:
    here = PACKAGE / "vision" / "example.py"
    hidden = "def f():\n    from companion.sim.render import BoardRenderer\n"
    relative = "from ..sim import camera\n"
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import companion.sim.camera\n"
    for source in (hidden, relative, typed):
        assert _imports_sim(_imported(here, source)), source
    assert not _imports_sim(_imported(here, "from companion.simple import x\n"))
    assert not _imports_sim(_imported(here, "from . import sources\n"))
    assert _imports_sim(_imported(PACKAGE / "commands" / "demo_game.py"))
