#!/usr/bin/env python3
"""The comparison behind scripts/frontier-coverage: the lines of the engine's counting code
that the frontier runs executed and no truth test did.

Reads `llvm-cov export -format=text` files (JSON) of the two profile sets, the frontier runs
(`--frontier`, one or more) and the truth tests (`--truth`, one per test binary), and a table
of the runs made (`--runs`: tab-separated set, seconds, command), and prints the report;
with `--out`, writes it as Markdown too. Python 3, standard library only.

What counts as executed, and why not llvm-cov's own line counts: llvm-cov gives a line the
largest count of the regions on it, so in `if c { x } else { y }` on one line, a run that
took `x` and another that took `y` both "execute" the line. Here the comparison is made
character by character instead: the export's segments give, at each position of a file, the
count of the innermost code region there (gap regions, which cover the space between
statements, are not code). A line is reported when some code character on it (not blank,
not inside a `//` comment, not a bracket, brace, `;` or `,` alone) lies in a region that
ran in a frontier run and in no region that ran in any truth test. So a branch a frontier run
took and no test took is reported on the line of its code, even where the other branch of
the same line was tested. Where the two sets' regions differ (a function whose `cfg(test)`
lines change its regions in the test build), a position the truth build maps to no region,
or to a gap, counts as not run by the truth tests: the comparison errs towards reporting.

Timing-only lines (reported apart, under their own heading): the lines of the functions in
TIMING_FUNCTIONS (they only scale a probe's phases to the whole unit), and lines whose code
matches CLOCK (it marks or settles a probe's phases for the caller's clock).
"""

import argparse
import json
import re
import sys
from pathlib import Path

# The engine's counting code: these files and folders under crates/engine/src/ (test files
# left out). Left out: brute.rs (the tests' reference), random.rs (the samples of the
# estimate and of tests), constrained/ (boards with pre-placed pieces, never a frontier count).
COUNTED = [
    "lib.rs",
    "symmetry.rs",
    "invariant.rs",
    "half_turn.rs",
    "slicing.rs",
    "kernel/",
    "join/",
]
TEST_FILE = re.compile(r"(^|/)(tests|[a-z_]+_tests)\.rs$")

# Functions that only scale a probe's phases to the whole unit (file under
# crates/engine/src/, function name): their lines are timing-only. The engines read no clock
# (tests/engine_clock.rs); the library times the phases a probe marks.
TIMING_FUNCTIONS = [
    ("join/mod.rs", "probe_unit"),
    ("join/counting.rs", "settle"),
    ("join/sieve.rs", "scales"),
    ("join/sieve.rs", "probe_slice"),
    ("join/stream.rs", "read_scales"),
]
# A line whose code marks or settles a probe's phases.
CLOCK = re.compile(r"\bphases\.begin\(|\bmark\(|\.settle\(|\bPhase::")
# Characters that are no code of their own.
PUNCTUATION = set(b" \t{}()[];,")


def counted(rel):
    """Whether `rel` (a path under crates/engine/src/) is counting code."""
    if TEST_FILE.search(rel):
        return False
    return any(rel == c or (c.endswith("/") and rel.startswith(c)) for c in COUNTED)


def code_bytes(line):
    """The byte offsets of `line` (bytes) that are code: before a `//` comment that is not
    inside a string literal, and not blank."""
    out = set()
    in_str = False
    i = 0
    while i < len(line):
        c = line[i]
        if in_str:
            if c == 0x5C:  # backslash
                out.update((i, i + 1))
                i += 2
                continue
            if c == 0x22:
                in_str = False
        else:
            if c == 0x2F and line[i + 1 : i + 2] == b"/":
                break
            if c == 0x22:
                in_str = True
        if c not in (0x20, 0x09):
            out.add(i)
        i += 1
    return out


class Source:
    """A source file's lines (bytes, as llvm-cov's columns count bytes)."""

    def __init__(self, path):
        self.lines = path.read_bytes().split(b"\n")
        self.code = [code_bytes(line) for line in self.lines]

    def text(self, line):
        return self.lines[line - 1].decode("utf-8", "replace").strip()


def run_positions(export, root, sources, names):
    """From one export: {relative path: {line: set of byte offsets run}} over the counted
    files. Offsets are 0-based; llvm-cov's lines and columns 1-based. Adds the names of the
    functions it maps to `names`."""
    out = {}
    data = json.loads(Path(export).read_text())
    for unit in data["data"]:
        names.update(f["name"] for f in unit.get("functions", []))
        for f in unit["files"]:
            path = Path(f["filename"])
            try:
                rel = str(path.resolve().relative_to(root / "crates/engine/src"))
            except ValueError:
                continue
            if not counted(rel):
                continue
            if rel not in sources:
                sources[rel] = Source(root / "crates/engine/src" / rel)
            src = sources[rel]
            ran = out.setdefault(rel, {})
            segs = f["segments"]
            for s, nxt in zip(segs, segs[1:]):
                line, col, count, has_count, _entry, gap = s[:6]
                if not has_count or gap or count == 0:
                    continue
                end_line, end_col = nxt[0], nxt[1]
                for ln in range(line, end_line + 1):
                    if ln > len(src.lines):
                        break
                    lo = col - 1 if ln == line else 0
                    hi = end_col - 1 if ln == end_line else len(src.lines[ln - 1])
                    if hi > lo:
                        ran.setdefault(ln, set()).update(range(lo, hi))
    return out


def union(maps):
    out = {}
    for m in maps:
        for rel, lines in m.items():
            dst = out.setdefault(rel, {})
            for ln, cols in lines.items():
                dst.setdefault(ln, set()).update(cols)
    return out


def block_lines(src, pattern):
    """The lines (1-based) of every item of `src` whose first line matches `pattern`, to its
    closing brace, by counting braces in its code."""
    found = set()
    for i, line in enumerate(src.lines):
        if not pattern.search(line):
            continue
        depth, opened = 0, False
        for j in range(i, len(src.lines)):
            text = bytes(src.lines[j][k] for k in sorted(src.code[j]))
            depth += text.count(b"{") - text.count(b"}")
            opened = opened or b"{" in text
            found.add(j + 1)
            if opened and depth <= 0:
                break
    return found


def function_lines(src, name):
    """The lines of function `name` in `src`."""
    return block_lines(src, re.compile(rb"\bfn " + re.escape(name.encode()) + rb"\b"))


# A file's own test module (`mod tests {`), whose lines no frontier run executes and the
# per-file figures leave out.
TEST_MODULE = re.compile(rb"^\s*mod tests \{")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", required=True, type=Path)
    p.add_argument("--frontier", action="append", required=True)
    p.add_argument("--truth", action="append", required=True)
    p.add_argument("--frontier-names", help="the function names the frontier profile holds")
    p.add_argument("--truth-names", help="the function names the truth profile holds")
    p.add_argument("--runs", required=True, help="tab-separated: set, seconds, command")
    p.add_argument("--out", type=Path, help="Markdown report to write")
    p.add_argument("--meta", action="append", default=[], help="KEY=VALUE for the header")
    args = p.parse_args()
    root = args.root.resolve()

    sources = {}
    mapped = {"frontier": set(), "truth": set()}
    frontier = union(run_positions(e, root, sources, mapped["frontier"]) for e in args.frontier)
    truth = union(run_positions(e, root, sources, mapped["truth"]) for e in args.truth)
    # The engine's functions whose profile records match no build's coverage map (llvm-cov
    # warns "functions have mismatched data" and leaves them out): their lines would count as
    # never run.
    unmatched = []
    for kind, path in (("frontier", args.frontier_names), ("truth", args.truth_names)):
        if path:
            for name in Path(path).read_text().split():
                if "nqueens_engine" in name and name not in mapped[kind]:
                    unmatched.append(f"{kind}: {name}")

    timing = {}
    for rel, name in TIMING_FUNCTIONS:
        if rel not in sources:
            sources[rel] = Source(root / "crates/engine/src" / rel)
        lines = function_lines(sources[rel], name)
        if not lines:
            sys.exit(f"frontier_coverage.py: no function {name} in {rel}")
        timing.setdefault(rel, set()).update(lines)

    gaps, timed = [], []
    summary = []
    for rel in sorted(set(frontier) | set(truth)):
        src = sources[rel]
        ran_a, ran_b = frontier.get(rel, {}), truth.get(rel, {})
        tests = block_lines(src, TEST_MODULE)
        lines_a = lines_b = 0
        for ln in sorted((set(ran_a) | set(ran_b)) - tests):
            code = {c for c in src.code[ln - 1] if src.lines[ln - 1][c] not in PUNCTUATION}
            in_a = ran_a.get(ln, set()) & code
            in_b = ran_b.get(ln, set()) & code
            lines_a += bool(in_a)
            lines_b += bool(in_b)
            if not in_a - in_b:
                continue
            entry = (f"crates/engine/src/{rel}:{ln}", src.text(ln))
            if ln in timing.get(rel, ()) or CLOCK.search(src.text(ln)):
                timed.append(entry)
            else:
                gaps.append(entry)
        summary.append((rel, lines_a, lines_b))

    runs = []
    for row in Path(args.runs).read_text().splitlines():
        if row.strip():
            kind, secs, cmd = row.split("\t", 2)
            runs.append((kind, float(secs), cmd))

    last = f"{len(gaps)} counting lines run only by frontier work"
    text = []
    for kind in ("frontier", "truth"):
        text.append(f"{kind} runs (seconds, command):")
        for k, secs, cmd in runs:
            if k == kind:
                text.append(f"  {secs:8.1f}  {cmd}")
    text.append("")
    text.append(last)
    text += [f"  {where}  {code}" for where, code in gaps]
    text.append("")
    if unmatched:
        text.append(f"{len(unmatched)} engine functions whose profile matched no build:")
        text += [f"  {u}" for u in unmatched]
        text.append("")
    text.append(f"{len(timed)} timing-only lines run only by frontier work")
    text += [f"  {where}  {code}" for where, code in timed]
    text.append("")
    text.append(last)
    print("\n".join(text))

    if args.out:
        md = ["# Frontier coverage", ""]
        md.append(
            "The lines of the engine's counting code that the frontier runs executed and no "
            "test that compares with an independent truth did; made by "
            "`scripts/frontier-coverage` (see `scripts/README.md` for what it runs and how "
            "lines are compared)."
        )
        md.append("")
        for kv in args.meta:
            k, _, v = kv.partition("=")
            md.append(f"- {k}: {v}")
        md.append("")
        for kind, title in (("frontier", "Frontier runs"), ("truth", "Truth tests")):
            md += [f"## {title}", "", "| seconds | command |", "|---:|---|"]
            md += [f"| {s:.1f} | `{c}` |" for k, s, c in runs if k == kind]
            md.append("")
        md += ["## Lines of counting code run, by file", ""]
        md.append(
            "Lines with code run at least once (the files' own test modules left out). The "
            "kernel, `half_turn.rs` and `invariant.rs` count the unique count's searches, "
            "entries of their own at the end of a plan that these shards do not own."
        )
        md.append("")
        md += ["| file | by the frontier runs | by the truth tests |", "|---|---:|---:|"]
        md += [f"| `{r}` | {a} | {b} |" for r, a, b in summary]
        md.append("")
        md += [f"## {last}", ""]
        md += [f"- `{w}`: `{c}`" for w, c in gaps] or ["None."]
        md.append("")
        if unmatched:
            md += [f"## {len(unmatched)} engine functions whose profile matched no build", ""]
            md += [f"- `{u}`" for u in unmatched]
            md.append("")
        md += [f"## {len(timed)} timing-only lines run only by frontier work", ""]
        md.append(
            "Lines of the functions that only scale a probe's phases to the whole unit ("
            + ", ".join(f"`{n}` in `{r}`" for r, n in TIMING_FUNCTIONS)
            + "), and lines that mark or settle a probe's phases."
        )
        md.append("")
        md += [f"- `{w}`: `{c}`" for w, c in timed] or ["None."]
        md += ["", last, ""]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(md))


if __name__ == "__main__":
    main()
