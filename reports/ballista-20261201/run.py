#!/usr/bin/env python3
"""The local oracle against the oracle on a Ballista cluster of 1 and 2 local executors.

    python3 run.py --bin TARGET/release --table TABLE [--predicate P] [--runs 3] [--out DIR]

Starts `delta-oracle-cluster` scheduler and executors on 127.0.0.1, runs
`delta-oracle TABLE -w P --format json` locally and through each cluster, checks that every
report is byte-identical to the local one (the run fails otherwise; with the driver's own
check of a sample of files, the report less its `checked_on_driver` field), and writes
`results.json` and `results.md` (wall time medians, peak memory of the driver, live rows per
second, and per executor) into DIR.
"""
import argparse, json, os, socket, statistics, subprocess, sys, time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port):
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on {port}")


def timed(cmd):
    """Wall seconds, peak resident KiB of the process, stdout."""
    started = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.monotonic() - started
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr}")
    return wall, int(p.stderr.strip().splitlines()[-1]), p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--predicate", default="value > 0.9 AND tag = 't3'")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files-per-task", default="2")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    oracle = os.path.join(a.bin, "delta-oracle")
    cluster_bin = os.path.join(a.bin, "delta-oracle-cluster")
    base = [oracle, a.table, "-w", a.predicate, "--format", "json"]
    cores = os.cpu_count()
    rows = []
    reference = None
    # (name, executors, tasks at once per executor, files the driver checks itself): every
    # configuration uses every core.
    configs = [("local", 0, 0, 0), ("ballista, 1 executor", 1, cores, 0),
               ("ballista, 2 executors", 2, max(1, cores // 2), 0),
               ("ballista, 1 executor, driver checks 8 files", 1, cores, 8)]
    for name, executors, tasks, check in configs:
        procs = []
        cmd = base
        if executors:
            port = free_port()
            procs.append(subprocess.Popen([cluster_bin, "scheduler", "--port", str(port)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_for(port)
            for _ in range(executors):
                flight, grpc = free_port(), free_port()
                procs.append(subprocess.Popen(
                    [cluster_bin, "executor", "--port", str(flight), "--grpc-port", str(grpc),
                     "--scheduler-port", str(port), "--concurrent-tasks", str(tasks)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                wait_for(flight)
            cmd = base + ["--engine", "ballista", "--scheduler", f"df://127.0.0.1:{port}",
                          "--files-per-task", a.files_per_task, "--check-files", str(check)]
        walls, peaks = [], []
        try:
            for _ in range(a.runs):
                wall, peak, out = timed(cmd)
                if check:
                    doc = json.loads(out)
                    checked = doc.pop("checked_on_driver")
                    if not 1 <= checked["files"] <= check or doc != json.loads(reference):
                        sys.exit(f"{name}: the report differs from the local oracle's")
                elif reference is None:
                    reference = out
                elif out != reference:
                    sys.exit(f"{name}: the report differs from the local oracle's")
                walls.append(wall)
                peaks.append(peak)
                print(f"{name}: {wall:.2f} s", file=sys.stderr)
        finally:
            for p in procs:
                p.kill()
                p.wait()
        report = json.loads(reference)
        live = sum(f["live_rows"] for f in report["files"])
        median = statistics.median(walls)
        rows.append({
            "engine": name, "executors": executors, "tasks_per_executor": tasks,
            "files_checked_on_driver": check,
            "runs": a.runs, "wall_s": walls, "median_s": round(median, 2),
            "driver_peak_mib": round(max(peaks) / 1024, 1),
            "live_rows": live, "matching_files": report["matching_files"],
            "rows_per_s": round(live / median),
            "rows_per_s_per_executor": round(live / median / executors) if executors else None,
        })
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"table": a.table, "predicate": a.predicate, "cores": cores,
                   "files_per_task": a.files_per_task, "results": rows}, f, indent=2)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(f"Predicate `{a.predicate}`, {cores} cores, tasks of {a.files_per_task} files, "
                f"{a.runs} runs each; every report byte-identical to the local oracle's.\n\n")
        f.write("| engine | executors | tasks at once each | median s | driver peak MiB | live rows/s | rows/s per executor |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|\n")
        for r in rows:
            per = f"{r['rows_per_s_per_executor']:,}" if r["rows_per_s_per_executor"] else "-"
            f.write(f"| {r['engine']} | {r['executors']} | {r['tasks_per_executor'] or '-'} | "
                    f"{r['median_s']} | {r['driver_peak_mib']} | {r['rows_per_s']:,} | {per} |\n")
    print(open(os.path.join(a.out, "results.md")).read())


if __name__ == "__main__":
    main()
