"""Rewrite the old specification citations ("GAME.md §5.1", ...) into links to the docs pages.

Why: the code, tests and notebooks cite the rules by the section numbers of specification files
that are not part of this repository, so for anyone who clones it every such citation dangles.
The rules now live in ``docs/``; ``docs/citations.json`` maps every citation form that occurs to
the page and section that states the same rule, and this script applies that map.

    python docs/rewrite_citations.py                 # dry run over every tracked file
    python docs/rewrite_citations.py --apply         # rewrite them
    python docs/rewrite_citations.py --apply README.md docs/   # only these paths

A citation group such as ``GAME.md §2.6, §7.2`` or ``GAME.md §1.4-§1.7`` is rewritten as a
whole: each section becomes its target, and a range on one page becomes that page. Citations the
map does not cover, and section signs left without a file name, are listed for a person to fix.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPING = Path(__file__).resolve().parent / "citations.json"
SPEC = r"(?P<spec>GAME|TEXT_AND_EVAL|ALGORITHMS|STYLE|ECOSYSTEM)\.md"
SECTION = r"§\d+(?:\.\d+)*"
JOIN = r"(?:-|–|, |; | and | or |/)"
CITATION = re.compile(
    rf"(?P<open>`?)(?:[\w./-]*shared/spec/)?{SPEC}(?P<close>`?)"
    rf"(?P<sections>(?: {SECTION}(?:{JOIN}{SECTION})*))?"
)
BARE = re.compile(SECTION)
SKIP = {"docs/citations.json", "docs/rewrite_citations.py"}


@dataclass
class Report:
    """What a run found: rewritten citations per file, and what a person must still fix."""

    changed: dict[str, int] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)
    bare: list[str] = field(default_factory=list)


def _target(mapping: dict[str, str], spec: str, section: str, report: Report, where: str) -> str:
    key = f"{spec}.md {section}".strip()
    if key not in mapping:
        report.unknown.append(f"{where}: {key}")
        return key
    return mapping[key]


def _sections(text: str) -> list[tuple[str, str]]:
    """(section, joiner before it) pairs of a citation group's section list."""
    parts = re.split(rf"({JOIN})", text.strip())
    pairs, joiner = [], ""
    for part in parts:
        if re.fullmatch(JOIN, part):
            joiner = part
        elif part:
            pairs.append((part, joiner))
    return pairs


def rewrite_group(match: re.Match[str], mapping: dict[str, str], report: Report, where: str) -> str:
    """The replacement text of one citation group."""
    spec, sections = match.group("spec"), match.group("sections")
    quote = "`" if match.group("open") and match.group("close") else ""
    lead = match.group("open") if not quote else ""
    trail = match.group("close") if not quote else ""
    if not sections:
        return f"{lead}{quote}{_target(mapping, spec, '', report, where)}{quote}{trail}"
    out: list[str] = []
    for section, joiner in _sections(sections):
        target = _target(mapping, spec, section, report, where)
        if joiner in ("-", "–") and out:
            first = out.pop()
            same_page = first.split("#")[0] == target.split("#")[0]
            out.append(first.split("#")[0] if same_page else f"{first} to {target}")
        elif out and target == out[-1]:
            continue
        else:
            out.append(f"{joiner}{target}" if out else target)
    return f"{lead}{quote}{''.join(out)}{quote}{trail}"


def _rewrite_bare(line: str, new: str, mapping: dict[str, str], report: Report, where: str) -> str:
    """Section signs left on a line that cited a spec file take that file's name ("GAME.md
    §1.6 with the ladders of §1.7"); any other bare section sign is reported, not guessed."""
    specs = [m.group("spec") for m in CITATION.finditer(line)]
    if not BARE.search(new):
        return new
    if len(set(specs)) != 1:
        report.bare.append(f"{where}: {line.strip()[:100]}")
        return new
    spec = specs[0]
    return BARE.sub(lambda m: _target(mapping, spec, m.group(0), report, where), new)


def rewrite_text(text: str, mapping: dict[str, str], report: Report, path: str) -> str:
    """``text`` with every citation group rewritten; bare section signs are reported."""
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        where = f"{path}:{number}"
        new = CITATION.sub(lambda m, w=where: rewrite_group(m, mapping, report, w), line)
        new = _rewrite_bare(line, new, mapping, report, where)
        if new != line:
            report.changed[path] = report.changed.get(path, 0) + 1
        lines[number - 1] = new
    return "\n".join(lines)


def tracked_files(paths: list[str]) -> list[Path]:
    """Tracked text files under ``paths`` (every tracked file when empty)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *paths], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name and name not in SKIP]


def main(argv: list[str] | None = None) -> int:
    """Dry run (default) or ``--apply``; prints a summary and returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="limit to these paths (default: every file)")
    parser.add_argument("--apply", action="store_true", help="write the rewritten files")
    args = parser.parse_args(argv)
    mapping = json.loads(MAPPING.read_text())
    report = Report()
    for path in tracked_files(args.paths):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        rel = str(path.relative_to(ROOT))
        new = rewrite_text(text, mapping, report, rel)
        if args.apply and new != text:
            path.write_text(new)
    verb = "rewrote" if args.apply else "would rewrite"
    total = sum(report.changed.values())
    print(f"{verb} {total} lines in {len(report.changed)} files")
    for rel, count in sorted(report.changed.items()):
        print(f"  {rel}: {count}")
    for title, items in (("not in citations.json", report.unknown), ("bare §", report.bare)):
        print(f"{len(items)} {title}")
        for item in items:
            print(f"  {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
