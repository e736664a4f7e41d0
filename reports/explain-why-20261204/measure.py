"""`--explain-why` on long NOT IN lists over taxi-nyc: wall time per list size.

Run from the workspace root after `cargo build --release -p delta-explain`:

    python3 reports/explain-why-20261204/measure.py [BINARY] [TAXI]

Writes results.json, README.md's table (between the markers) and time.svg beside this script.
"""

from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
BINARY = sys.argv[1] if len(sys.argv) > 1 else "target/release/delta-explain"
TAXI = sys.argv[2] if len(sys.argv) > 2 else "../shared/fixtures/taxi-nyc"
SIZES = [10, 100, 1_000, 10_000]
COLUMNS = {
    "trip_distance": lambda i: f"{i / 10}",  # double: every value a NaN hazard too
    "payment_type": lambda i: f"{i}",  # long
}
RUNS = 5


def run(predicate: str) -> tuple[float, dict]:
    """One run: wall seconds and the report."""
    started = time.perf_counter()
    out = subprocess.run(
        [BINARY, TAXI, "-w", predicate, "--explain-why", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    return wall, json.loads(out.stdout)


def main() -> None:
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    for column, value in COLUMNS.items():
        for size in SIZES:
            predicate = f"{column} NOT IN ({', '.join(value(i) for i in range(size))})"
            runs = [run(predicate) for _ in range(RUNS)]
            report = runs[-1][1]
            rows.append(
                {
                    "column": column,
                    "values": size,
                    "predicate_bytes": len(predicate),
                    "median_wall_ms": round(statistics.median(r[0] for r in runs) * 1000, 1),
                    "max_wall_ms": round(max(r[0] for r in runs) * 1000, 1),
                    "diagnoses": len(report.get("diagnoses") or []),
                    "final_files": report["final_files"],
                    "total_files": report["total_files"],
                }
            )
            print(rows[-1], file=sys.stderr)
    doc = {"binary": version, "table": "taxi-nyc", "runs_per_point": RUNS, "rows": rows}
    (HERE / "results.json").write_text(json.dumps(doc, indent=2) + "\n")
    table = ["| column | values | median wall (ms) | slowest (ms) | diagnoses | files kept |", "|---|---|---|---|---|---|"]
    for r in rows:
        table.append(
            f"| `{r['column']}` | {r['values']:,} | {r['median_wall_ms']} | {r['max_wall_ms']} | "
            f"{r['diagnoses']:,} | {r['final_files']} of {r['total_files']} |"
        )
    readme = (HERE / "README.md").read_text()
    start, end = "<!-- table -->", "<!-- /table -->"
    head, rest = readme.split(start, 1)
    _, tail = rest.split(end, 1)
    (HERE / "README.md").write_text(head + start + "\n" + "\n".join(table) + "\n" + end + tail)
    # The plot: median wall time per list size, one bar group per column.
    width, height, left, bottom = 560, 260, 60, 40
    most = max(r["median_wall_ms"] for r in rows) or 1
    bar = 22
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        '<text x="10" y="18" font-size="14" font-weight="bold">--explain-why on NOT IN over taxi-nyc: median wall time (ms)</text>',
    ]
    colours = {"trip_distance": "#2b6cb0", "payment_type": "#dd6b20"}
    for i, size in enumerate(SIZES):
        x0 = left + i * 120
        for j, column in enumerate(COLUMNS):
            r = next(r for r in rows if r["column"] == column and r["values"] == size)
            h = (height - bottom - 40) * r["median_wall_ms"] / most
            x = x0 + j * (bar + 4)
            y = height - bottom - h
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{colours[column]}"/>')
            parts.append(f'<text x="{x}" y="{y - 4:.1f}" font-size="10">{r["median_wall_ms"]:.0f}</text>')
        parts.append(f'<text x="{x0}" y="{height - bottom + 16}">{size:,} values</text>')
    parts.append(
        f'<text x="{left}" y="{height - 8}"><tspan fill="#2b6cb0">&#9632; trip_distance (double)</tspan>'
        ' <tspan fill="#dd6b20">&#9632; payment_type (long)</tspan></text></svg>'
    )
    (HERE / "time.svg").write_text("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
