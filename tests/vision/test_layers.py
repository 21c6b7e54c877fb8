"""The simulators stay apart: the pipeline, the service and the web app never import companion.sim.

Every import statement of every module is looked at (also those inside functions and under
``TYPE_CHECKING``): only the commands (the demo, ``serve --camera sim``, ``vision watch``) and
the simulator itself may import it. And the pipeline's stages (``companion/vision/<stage>/``) keep
their order: a stage imports only the stages before it.
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


# The pipeline's stages, in order: a stage may import itself, the stages before it and the value
# types shared by all (``companion.vision.types``), never a stage after it.
STAGES = ("geometry", "features", "decide", "locate", "reading", "live")
SHARED = ("types",)


def _vision_part(name: str) -> str | None:
    """The stage (or shared module) an imported name belongs to, None outside the pipeline."""
    parts = name.split(".")
    if parts[:2] != ["companion", "vision"] or len(parts) < 3:
        return None
    return parts[2]


def _stage_offences(path: Path, source: str | None = None) -> list[str]:
    stage = path.relative_to(PACKAGE / "vision").parts[0]
    allowed = set(STAGES[: STAGES.index(stage) + 1]) | set(SHARED)
    return sorted(
        n
        for n in _imported(path, source)
        if (part := _vision_part(n)) is not None and part not in allowed
    )


def test_every_vision_module_sits_in_a_stage_or_is_shared() -> None:
    loose = {p.stem for p in (PACKAGE / "vision").glob("*.py")} - {"__init__", *SHARED}
    folders = {p.name for p in (PACKAGE / "vision").iterdir() if (p / "__init__.py").exists()}
    assert loose == set()
    assert folders == set(STAGES)


def test_a_stage_imports_only_the_stages_before_it() -> None:
    offences = {}
    for stage in STAGES:
        for path in sorted((PACKAGE / "vision" / stage).rglob("*.py")):
            found = _stage_offences(path)
            if found:
                offences[str(path.relative_to(PACKAGE.parent))] = found
    assert offences == {}


def test_the_stage_scan_sees_a_later_stage() -> None:
    here = PACKAGE / "vision" / "features" / "example.py"
    assert _stage_offences(here, "def f():\n    from companion.vision.live import live\n")
    assert _stage_offences(here, "from ..decide.classify import lab8\n")
    assert _stage_offences(here, "from companion.vision.reading.read import read_board\n")
    assert not _stage_offences(here, "from companion.vision.geometry.geometry import project\n")
    assert not _stage_offences(here, "from companion.vision.types import NoBoardError\n")
    assert not _stage_offences(here, "from . import tone\n")
