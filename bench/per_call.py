#!/usr/bin/env python3
"""Instructions and cache misses per HTTP `tools/call`, as bench/NOTES.md quotes them.

Runs a benchmark server (`bench/target/release/bench-ours`, `bench-ceiling`...) in HTTP mode
under valgrind twice, drives it with SESSIONS keep-alive sessions calling `echo` one call at a
time each (one Python thread per session), and prints the difference of the two runs per call,
so start-up and shutdown cancel out:

    python3 bench/per_call.py bench/target/release/bench-ours                  # callgrind, 1 session
    python3 bench/per_call.py bench/target/release/bench-ceiling --sessions 16 --cache
    python3 bench/per_call.py bench/target/release/bench-ours --stdio 32      # stdio, 32 in flight

`--stdio N` serves stdio instead: one client writes N calls at once and reads their N answers
before the next N, as the harness's pipelined stdio client does (N = 1: one call at a time).

`--dhat` counts allocations (blocks and bytes) with DHAT instead. `--cache` uses cachegrind with a 32 KiB D1/I1 and 1 MiB LL and prints misses as well. Counts
hold on a loaded machine; they are valgrind's model, not the CPU's.
"""

import argparse
import http.client
import json
import os
import subprocess
import tempfile
import threading

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def session(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def post(body, extra=None):
        connection.request("POST", "/mcp", body=json.dumps(body), headers={**HEADERS, **(extra or {})})
        response = connection.getresponse()
        response.read()
        return response

    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "per-call", "version": "0"}}
    response = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
    ids = {"mcp-session-id": response.getheader("mcp-session-id"), "mcp-protocol-version": "2025-11-25"}
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, ids)
    return post, ids


def valgrind(cache, out):
    if cache == "dhat":
        return ["valgrind", "--tool=dhat", f"--dhat-out-file={out}"]
    if cache:
        return ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--D1=32768,8,64", "--I1=32768,8,64",
                "--LL=1048576,16,64", f"--cachegrind-out-file={out}"]
    return ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]


def run_stdio(server, calls, in_flight, cache, out):
    """`calls` rounds of `in_flight` calls written at once, each round's answers read before the next."""
    process = subprocess.Popen([*valgrind(cache, out), server], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "per-call", "version": "0"}}
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}).encode() + b"\n")
    process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    process.stdin.flush()
    process.stdout.readline()
    arguments = {"name": "echo", "arguments": {"text": "hello, benchmark"}}
    for round in range(calls):
        burst = b"".join(
            json.dumps({"jsonrpc": "2.0", "id": round * in_flight + i + 1, "method": "tools/call",
                        "params": arguments}).encode() + b"\n"
            for i in range(in_flight))
        process.stdin.write(burst)
        process.stdin.flush()
        for _ in range(in_flight):
            assert b'"result"' in process.stdout.readline()
    process.stdin.close()  # end of input: the server stops; valgrind writes its counts
    process.wait()
    return read_counts(out)


def run(server, calls, sessions, cache, out):
    process = subprocess.Popen([*valgrind(cache, out), server, "http"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    port = int(process.stdout.readline())
    clients = [session(port) for _ in range(sessions)]

    def call(post, ids):
        for i in range(calls):
            arguments = {"name": "echo", "arguments": {"text": "hello, benchmark"}}
            response = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": arguments}, ids)
            assert response.status == 200, response.status

    threads = [threading.Thread(target=call, args=client) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    process.terminate()  # the servers stop on SIGTERM; valgrind writes its counts
    process.wait()
    return read_counts(out)


def read_counts(out):
    """The totals of valgrind's output files (one per process: `out`, `out.1`...)."""
    counts = {}
    if os.path.exists(out) and open(out).read(1) == "{":  # DHAT's JSON
        points = json.load(open(out))["pps"]
        return {"allocs": sum(p["tbk"] for p in points), "bytes": sum(p["tb"] for p in points)}
    for name in [out] + [f"{out}.{n}" for n in range(1, 4)]:
        if not os.path.exists(name):
            continue
        events, totals = [], None
        for line in open(name):
            if line.startswith("events:"):
                events = line.split()[1:]
            if line.startswith(("summary:", "totals:")) and totals is None:
                totals = map(int, line.split()[1:])
        for event, value in zip(events, totals or []):
            counts[event] = counts.get(event, 0) + value
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--calls", type=int, nargs=2, default=[300, 1300], help="calls per session in the two runs")
    parser.add_argument("--cache", action="store_true")
    parser.add_argument("--dhat", action="store_const", const="dhat", dest="cache", help="count allocations")
    parser.add_argument("--stdio", type=int, metavar="N", help="serve stdio, N calls in flight (rounds: --calls)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.stdio:
            low, high = (run_stdio(args.server, n, args.stdio, args.cache, os.path.join(scratch, f"{n}.out"))
                         for n in args.calls)
        else:
            low, high = (run(args.server, n, args.sessions, args.cache, os.path.join(scratch, f"{n}.out"))
                         for n in args.calls)
    calls = (args.calls[1] - args.calls[0]) * (args.stdio or args.sessions)
    shape = f"stdio, {args.stdio} in flight" if args.stdio else f"{args.sessions} session(s)"
    print(f"{os.path.basename(args.server)}, {shape}, per call:")
    for event in high:
        print(f"  {event:>5} {(high[event] - low[event]) / calls:10.1f}")


if __name__ == "__main__":
    main()
