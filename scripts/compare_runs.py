"""Compare two workflow runs file by file: the check that a refactoring changed no result.

    python scripts/compare_runs.py BEFORE/results AFTER/results

Every table (CSV), record (JSON) and Markdown table under both ``results/`` trees is compared.
Files equal byte for byte are ``identical``; a CSV or JSON that differs only in what measures the
machine rather than the method (wall and CPU seconds, memory, timestamps, paths, versions) is
``same values``; anything else is ``DIFFERS`` with the first differing cells. Figures, logs,
notebooks and netCDF draws are left out (their bytes embed timestamps); the tables computed from
the draws are compared instead. Exit status 1 when any file differs or exists on one side only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

COMPARED = (".csv", ".json", ".md")
SKIPPED_DIRS = {"logs", "benchmarks", "notebooks", "figures"}
# Columns and keys that measure the run, not the method.
VOLATILE = re.compile(
    r"(^|_)(seconds|ms_per_release|wall_s|cpu_s|rss_mb|timestamp|date|path|version|host|elapsed)"
    r"(_|$)",
    re.IGNORECASE,
)


def _files(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and p.suffix in COMPARED and not SKIPPED_DIRS & set(p.relative_to(root).parts[:-1])
    }


def _strip_json(obj):
    if isinstance(obj, dict):
        return {k: _strip_json(v) for k, v in obj.items() if not VOLATILE.search(str(k))}
    if isinstance(obj, list):
        return [_strip_json(v) for v in obj]
    return obj


def _csv_difference(a: Path, b: Path) -> str | None:
    left, right = pd.read_csv(a, dtype=str, keep_default_na=False), pd.read_csv(b, dtype=str, keep_default_na=False)
    if list(left.columns) != list(right.columns) or len(left) != len(right):
        return f"shape/columns: {left.shape} {list(left.columns)[:8]} vs {right.shape} {list(right.columns)[:8]}"
    kept = [c for c in left.columns if not VOLATILE.search(c)]
    diff = left[kept].ne(right[kept])
    if not diff.to_numpy().any():
        return None
    row, col = map(int, next(zip(*diff.to_numpy().nonzero(), strict=True)))
    return (
        f"{int(diff.to_numpy().sum())} cells differ, first row {row} column {kept[col]!r}: "
        f"{left[kept].iat[row, col]!r} vs {right[kept].iat[row, col]!r}"
    )


def compare(before: Path, after: Path) -> pd.DataFrame:
    rows = []
    names_before, names_after = _files(before), _files(after)
    for name in sorted(names_before | names_after):
        a, b = before / name, after / name
        if name not in names_after or name not in names_before:
            rows.append((name, "ONLY " + ("BEFORE" if name in names_before else "AFTER"), ""))
        elif a.read_bytes() == b.read_bytes():
            rows.append((name, "identical", ""))
        elif a.suffix == ".csv":
            why = _csv_difference(a, b)
            rows.append((name, "same values" if why is None else "DIFFERS", why or "only run-measuring columns differ"))
        elif a.suffix == ".json":
            same = _strip_json(json.loads(a.read_text())) == _strip_json(json.loads(b.read_text()))
            rows.append((name, "same values" if same else "DIFFERS", "" if same else "JSON values differ"))
        else:
            rows.append((name, "DIFFERS", "text differs"))
    return pd.DataFrame(rows, columns=["file", "status", "detail"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    table = compare(args.before, args.after)
    for _, row in table[table.status != "identical"].iterrows():
        print(f"{row.status:12} {row.file}  {row.detail}")
    print(table.status.value_counts().to_string())
    return int(table.status.str.isupper().any())


if __name__ == "__main__":
    sys.exit(main())
