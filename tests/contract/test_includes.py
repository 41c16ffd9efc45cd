"""The map is true: docs/architecture.md's module table against the #includes.

The table under "## The modules" in docs/architecture.md has a row per module
(a top-level folder): its name, its public header(s), its job, and the
modules it uses.  This test reads that table and every C file of the tree,
and fails when

  - a C file of module M includes a header of another module N that M's row
    does not list under "uses";
  - a C file of M includes a private header of N (one whose name ends in
    _int.h, or any header of N that is not public), unless M's row gives it
    N's internals ("db (and its internals)", "every module, internals too");
  - a top-level folder with C files has no row, or a top-level folder is
    not named in the document at all.

A module's public headers are the files its row's "public header" cell
names (headers, and X-macro lists such as db_kinds.def), where a pattern
such as `db_*.h` makes every db/db_*.h public but the private db_int.h.
Included files are found by name wherever they are in the tree, so a
header renamed or split keeps its module (its folder); only the first file
a row names must exist.
"""

import fnmatch
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
SKIP_DIRS = {"node_modules", "__pycache__", "var", ".git"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def top_folders():
    """The tree's top-level folders, build folders left out."""
    return sorted(
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and not p.name.startswith((".", "build")) and p.name not in SKIP_DIRS
    )


def files_under(folder, suffixes):
    for dirpath, dirnames, filenames in os.walk(ROOT / folder):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(suffixes):
                yield pathlib.Path(dirpath) / name


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def module_table():
    """{module: (public header patterns, uses, internals)} from the document."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## The modules", 1)[1].split("\n## ", 1)[0]
    lines = [l for l in section.splitlines() if l.startswith("|")]
    head = cells(lines[0])
    assert head[:2] == ["module", "public header"] and head[-1] == "uses", head
    rows = {}
    for line in lines[2:]:
        row = cells(line)
        if len(row) != len(head):
            break
        name = row[0].strip("`").rstrip("/")
        rows[name] = (row[1], row[-1])
    modules = set(rows)
    table = {}
    for name, (public, uses_cell) in rows.items():
        patterns = re.findall(r"[A-Za-z0-9_*]+\.(?:h|def)\b", public)
        uses, internals = set(), set()
        if uses_cell.startswith("every module"):
            uses = set(modules)
            internals = set(modules) if "internals" in uses_cell else set()
        for item in uses_cell.split(","):
            item = item.strip()
            words = re.findall(r"[a-z0-9_]+", item)
            if words and words[0] in modules:
                uses.add(words[0])
                if "internals" in item:
                    internals.add(words[0])
        table[name] = (patterns, uses, internals)
    return table


def header_owners():
    """{file name: modules} for every header and X-macro list in the tree."""
    owners = {}
    for folder in top_folders():
        for path in files_under(folder, (".h", ".def")):
            owners.setdefault(path.name, set()).add(folder)
    return owners


def is_public(header, patterns):
    if header.endswith("_int.h"):
        return False
    return any(fnmatch.fnmatchcase(header, p) for p in patterns)


def test_the_table_parses():
    table = module_table()
    for must in ("rules", "db", "games", "api", "korpd", "tests"):
        assert must in table, f"docs/architecture.md's module table has no row for {must}/"
    assert table["rules"][1] == set(), "rules/ uses no other module"


def test_every_folder_is_on_the_map():
    table = module_table()
    text = DOC.read_text(encoding="utf-8")
    for folder in top_folders():
        has_c = any(files_under(folder, (".c", ".h")))
        if has_c:
            assert folder in table, (
                f"{folder}/ has C files but no row in docs/architecture.md's module table")
        assert f"`{folder}/`" in text, f"docs/architecture.md does not name {folder}/"


def test_modules_include_only_what_they_use():
    table = module_table()
    owners = header_owners()
    wrong = []
    for module, (_, uses, internals) in sorted(table.items()):
        for path in sorted(files_under(module, (".c", ".h"))):
            text = path.read_text(encoding="utf-8", errors="replace")
            for include in INCLUDE.findall(text):
                header = os.path.basename(include)
                found = owners.get(header, set())
                if not found or module in found:
                    continue   # its own, or not korp's (generated, a library's)
                other = sorted(found)[0]
                where = path.relative_to(ROOT)
                if other not in table:
                    wrong.append(f"{where}: includes {header} of {other}/, which has no row")
                elif other not in uses:
                    wrong.append(f"{where}: includes {header}, but {module}/ does not use "
                                 f"{other}/ (its row's uses: {', '.join(sorted(uses)) or '—'})")
                elif other not in internals and not is_public(header, table[other][0]):
                    wrong.append(f"{where}: includes {header}, private to {other}/")
    assert not wrong, "\n".join(wrong)


def test_dependencies_point_down():
    """Each row uses only rows above it (tests and benchmarks aside), so the
    graph has no cycle and the table reads from the bottom layer up."""
    table = module_table()
    order = list(table)
    for i, module in enumerate(order):
        if module in ("tests", "bench"):
            continue
        later = table[module][1] & set(order[i:])
        assert not later, f"{module}/ uses {sorted(later)}, listed below it (or itself)"


@pytest.mark.parametrize("module", ["rules", "ratings"])
def test_the_bottom_needs_nothing_of_korps(module):
    """rules/ and ratings/ include no header of another module."""
    owners = header_owners()
    for path in files_under(module, (".c", ".h")):
        for include in INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace")):
            found = owners.get(os.path.basename(include), {module})
            assert module in found, f"{path.relative_to(ROOT)} includes {include}"


def test_public_headers_exist():
    """The first header a row names (the module's main one) exists."""
    table = module_table()
    for module, (patterns, _, _) in table.items():
        if patterns:
            assert (ROOT / module / patterns[0]).is_file(), (
                f"docs/architecture.md names {module}/{patterns[0]}, which does not exist")
