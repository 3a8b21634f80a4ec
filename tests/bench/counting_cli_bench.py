#!/usr/bin/env python3
"""What counting the wire costs, as a user of blobbench-cli sees it (issue #18): one process per run,
--no-tap vs the default measured run (in-process counting) vs the relay (-P wire_counting=relay), alternated round by round with the
order rotating. Each process runs the scenario with -w 1 -r 3 and gives its median elapsed time
(execute + fetch); the table shows the median over the rounds and the ratios to --no-tap.

    BLOBBENCH_PG_CONNINFO=... BLOBBENCH_FB_DATABASE=... BLOBBENCH_FB_USER=... BLOBBENCH_FB_PASSWORD=... \
    tests/bench/counting_cli_bench.py build/ci/app/blobbench-cli [--rounds 5]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODES = {
    "--no-tap": ["--no-tap"],
    "in-process": [],  # the default
    "relay": ["-P", "wire_counting=relay"],
}


def run(cli, conn, scenario, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        args = [cli, "run", *conn, "-q", "-s", scenario, "-w", "1", "-r", "3", "--json", out.name, *extra]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        samples = json.load(open(out.name))["samples"]
    ms = statistics.median(s["phases"]["elapsedMs"] for s in samples)
    tap = samples[0]["wire"]["tap"]
    return ms, tap.get("roundTrips"), tap.get("method", "")


def main():
    cli = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
    cases = []
    if os.environ.get("BLOBBENCH_FB_DATABASE"):
        fb = [os.environ["BLOBBENCH_FB_DATABASE"], "-u", os.environ.get("BLOBBENCH_FB_USER", ""),
              "-p", os.environ.get("BLOBBENCH_FB_PASSWORD", "")]
        cases += [("Firebird, short BLOBs", fb, "short-blobs"), ("Firebird, all BLOBs", fb, "all-blobs")]
    if os.environ.get("BLOBBENCH_PG_CONNINFO"):
        cases += [("PostgreSQL, all values", [os.environ["BLOBBENCH_PG_CONNINFO"]], "all-blobs")]
    print(f"median of {rounds} alternated processes per mode (each: -w 1 -r 3, its median); "
          f"load average before: {os.getloadavg()[0]:.1f}")
    print("| query | round trips | --no-tap ms | default (in-process) ms | relay ms | default / --no-tap | relay / --no-tap |")
    print("|---|---|---|---|---|---|---|")
    names = list(MODES)
    for title, conn, scenario in cases:
        times = {m: [] for m in names}
        trips = None
        for r in range(rounds):
            for k in range(len(names)):
                mode = names[(r + k) % len(names)]
                ms, rt, method = run(cli, conn, scenario, MODES[mode])
                times[mode].append(ms)
                if mode == "in-process":
                    assert method == "in-process", method  # the default counts in-process
                    trips = rt
                if mode == "relay":
                    assert method == "relay", method
        med = {m: statistics.median(v) for m, v in times.items()}
        print(f"| {title} | {trips} | {med['--no-tap']:.1f} | {med['in-process']:.1f} | {med['relay']:.1f} | "
              f"{med['in-process'] / med['--no-tap']:.3f} | {med['relay'] / med['--no-tap']:.3f} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
