#!/usr/bin/env python3
"""Start-up of stdio servers, spawn to the `initialize` answer, as bench/NOTES.md quotes it.

Spawns each server in turn (the order reversed every other round, so a drift in the machine's
load falls on all of them alike) and prints each one's median and first quartile, and its ratio
to the first server's median:

    python3 bench/startup.py bench/target/release/bench-ceiling bench/target/release/bench-ours
    python3 bench/startup.py --rounds 300 --cpu 0 bench/target/release/bench-ceiling other-build
    python3 bench/startup.py bench/target/release/bench-ceiling "bench/target/release/bench-ours current-thread"

A server given with arguments (quoted, as one) is started with them.

`--cpu N` runs the servers on CPU N only (set before `exec`, as the harness pins them); run
this script itself elsewhere (`taskset -c 1 python3 ...`) to keep it off that CPU. The harness
measures the same thing over 20 spawns a round; this is for comparing builds, quickly.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import time

INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"startup.py","version":"1"}}}\n'
)


def spawn_to_answer(exe, cpu):
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    start = time.perf_counter()
    server = subprocess.Popen(
        shlex.split(exe), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=pin
    )
    server.stdin.write(INITIALIZE)
    server.stdin.flush()
    answer = server.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    server.stdin.close()
    server.wait()
    if b'"result"' not in answer:
        raise SystemExit(f"{exe} did not answer initialize: {answer[:200]!r}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("servers", nargs="+")
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--cpu", type=int)
    args = parser.parse_args()
    times = {exe: [] for exe in args.servers}
    for round in range(args.rounds):
        for exe in args.servers if round % 2 == 0 else reversed(args.servers):
            times[exe].append(spawn_to_answer(exe, args.cpu))
    first = statistics.median(times[args.servers[0]])
    for exe, spawns in times.items():
        median = statistics.median(spawns)
        quartile = statistics.quantiles(spawns, n=4)[0]
        print(f"{median:6.3f} ms (q1 {quartile:.3f})  {median / first:4.2f}x  {exe}")


if __name__ == "__main__":
    main()
