"""The README's figures trace to the benchmark rows they came from (issue 26).

Each row of the README's "How fast, how right" table links to a row id of a results file that a
benchmark wrote (``benchmarks/results/<script>.md``, ``--write``) and must show that row's figure
exactly; no other measured figure may stand in the README. ``python benchmarks/results.py
--readme`` copies the figures after a new run. The figures page's links must name results files
of existing benchmarks. The vision pipeline's own documents show no figure at all: they link to
the rows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.results import README_ROW, Results, read_rows, refresh_readme

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FIGURES_HEADING = "## How fast, how right"
# A measured figure: a number with a unit of time, size, share or rate.
MEASURED = re.compile(
    r"\d[\d,.]*\s?(?:ms|s|µs|MB|kB|GB|B|%|fps|games/s|lines/s|actions/s|MP)(?![\w/])"
)


def readme_sections() -> tuple[list[str], list[str]]:
    """The README's figures section (up to the next heading) and all its other lines."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(FIGURES_HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end], lines[:start] + lines[end:]


def test_every_readme_figure_is_its_results_row() -> None:
    section, _ = readme_sections()
    table = [ln for ln in section if ln.startswith("| ") and not ln.startswith("| what |")]
    assert len(table) == 5, "the README shows the five figures a user cares about"
    for line in table:
        m = README_ROW.match(line)
        assert m, f"a figure row without its results link: {line}"
        assert m["label"] == m["id"]
        results = ROOT / m["file"]
        assert results.is_file(), f"{m['file']} is missing: run its benchmark with --write"
        script = ROOT / "benchmarks" / (results.stem + ".py")
        assert script.is_file(), f"{m['file']} was written by no benchmark in benchmarks/"
        rows = read_rows(results)
        assert m["id"] in rows, f"no row {m['id']} in {m['file']}"
        assert m["figure"].replace("\\|", "|") == rows[m["id"]], (
            f"README shows {m['figure']!r} for {m['id']}, {m['file']} has {rows[m['id']]!r}"
            " (python benchmarks/results.py --readme copies it)"
        )


def test_no_other_measured_figure_in_the_readme() -> None:
    _, rest = readme_sections()
    typed = [ln for ln in rest if MEASURED.search(ln)]
    assert not typed, f"figures outside the figures table (typed by hand?): {typed}"


def test_the_figures_page_links_to_rows_of_existing_benchmarks() -> None:
    """Every row the figures page links to is in its results file, or the line says that only
    a full run makes it (the committed results may come from --quick runs)."""
    page = (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    link = re.compile(r"\(\.\./benchmarks/results/([a-z0-9_]+)\.md(?:#([a-z0-9-]+))?\)")
    seen = 0
    for line in page.splitlines():
        for stem, row_id in link.findall(line):
            seen += 1
            assert (ROOT / "benchmarks" / f"{stem}.py").is_file(), f"no benchmark {stem}"
            results = ROOT / "benchmarks" / "results" / f"{stem}.md"
            assert results.is_file(), f"{stem} has written no results: run it with --write"
            if row_id and row_id not in read_rows(results):
                assert "(*full*)" in line, f"{stem}.md has no row {row_id}"
    assert seen > 20


# The vision pipeline's documents link to results rows and type no measured figure.
VISION_DOCS = (
    ROOT / "companion" / "vision" / "README.md",
    ROOT / "companion" / "vision" / "LIVE.md",
)
# what the figure pattern takes there that is an input or a setting, not a measurement
NOT_MEASURED = {
    "12 MP",  # the size of a phone's photo
    "3 %",  # the lens distortion of one camera variation
    "5 fps",  # the simulated camera's frame rate
}
ROW_LINK = re.compile(r"\]\(((?:\.\./)*)benchmarks/results/([a-z0-9_]+)\.md(?:#([a-z0-9-]+))?\)")


@pytest.mark.parametrize("doc", VISION_DOCS, ids=lambda p: p.name)
def test_a_vision_document_links_to_rows_and_types_no_figure(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    typed = [
        (n, m)
        for n, line in enumerate(text.splitlines(), 1)
        for m in MEASURED.findall(line)
        if m not in NOT_MEASURED
    ]
    assert not typed, f"figures typed into {doc.name} (link to their results rows): {typed}"
    links = ROW_LINK.findall(text)
    assert len(links) >= 8
    for up, stem, row_id in links:
        results = ROOT / "benchmarks" / "results" / f"{stem}.md"
        assert (doc.parent / up / "benchmarks" / "results").resolve() == results.parent
        assert (ROOT / "benchmarks" / f"{stem}.py").is_file(), f"no benchmark {stem}"
        assert results.is_file(), f"{stem} has written no results: run it with --write"
        assert not row_id or row_id in read_rows(results), f"{stem}.md has no row {row_id}"
    assert MEASURED.findall("read in 14.5 ms, 98.8 % right") == ["14.5 ms", "98.8 %"]


def test_results_round_trip_and_refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the helper writes, the test reads; a changed figure is caught and refreshed."""
    import benchmarks.results as results_mod

    monkeypatch.setattr(results_mod, "RESULTS_DIR", tmp_path / "benchmarks" / "results")
    res = Results("bench_fake", write=True, mode="--quick")
    res.add("fake-speed", "a | piped what", "median 1.5 ms | p95 2.0 ms")
    with pytest.raises(ValueError):
        res.add("fake-speed", "twice", "1 ms")
    with pytest.raises(ValueError):
        res.add("Not An Id", "bad id", "1 ms")
    path = res.save()
    assert path is not None
    text = path.read_text(encoding="utf-8")
    assert "--quick" in text and "nice" in text and "Python" in text
    assert read_rows(path) == {"fake-speed": "median 1.5 ms | p95 2.0 ms"}

    readme = tmp_path / "README.md"
    row = "| speed | {} | [fake-speed](benchmarks/results/bench_fake.md#fake-speed) |"
    readme.write_text("# x\n\n" + row.format("median 9.9 ms") + "\n", encoding="utf-8")
    assert refresh_readme(readme) == ["fake-speed"]
    line = readme.read_text(encoding="utf-8").splitlines()[2]
    m = README_ROW.match(line)
    assert m and m["figure"] == "median 1.5 ms \\| p95 2.0 ms"
    assert refresh_readme(readme) == []
    # without --write nothing is written
    assert Results("bench_fake", write=False).save() is None
