#!/usr/bin/env python3
"""What R9b's fair order and R18a's start times cost GET /track/queue on a 500-entry queue. Prints figures,
asserts nothing.

  swift build -c release && python3 Tests/Benchmarks/fair_queue.py [--seconds 5]

Two parties on one server, in one run, each with the same 500 guest songs from 50 adders: one created with the API
defaults (R9 order), one with fairQueue on. startsInMs is part of every queue answer since R18a, so the party with
the defaults is the "without" figure for the fair order alone; the start times cost both the same. With
`--baseline BINARY` (a build without startsInMs and fair order) a third server with the
same 500 songs is measured beside them: that is "without" both. Each is measured
twice with wrk (-t2 -c64, like bench.py): the same URL (the rendering cached for its write version and second, what
a room of phones mostly gets), and a new deviceId on every request (a Lua script), so every answer is ordered,
timed and rendered afresh (the worst case: no two phones alike). Besides the best round's throughput it prints
the server's CPU time per request (/proc/PID/stat over the run): the cores are shared with other work, which
moves the throughput a lot and the CPU per request little.
"""
import argparse, json, os, sqlite3, subprocess, tempfile, time, shutil

import bench
from bench import ROOT, call, start_server

ROTATING = """counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", wrk.path .. "?deviceId=phone" .. counter)
end
"""


def fill(data, party_id, count=500, adders=50):
    database = sqlite3.connect(os.path.join(data, "musicvoting.sqlite"))
    now = time.time()
    for index in range(count):
        database.execute(
            "INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, image_url, duration_ms, added_at,"
            " added_by, autofilled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (party_id, f"demo:track:bench{index}", f"bench{index}", f"Bench song {index}", "Bench Artist", "Bench Album",
             "/demo/cover/1.svg", 180000, now + index, f"device{index % adders}"))
    # Some songs played per adder, so the fair order has counters to weigh (a baseline without fair order has no table).
    for adder in range(0, adders, 3) if has_table(database, "played_counts") else ():
        database.execute("INSERT INTO played_counts (party_id, adder, played) VALUES (?, ?, ?)", (party_id, f"device{adder}", adder % 4))
    database.commit()
    database.close()


def has_table(database, name):
    return database.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def wrk(port, path, seconds, pid, script=None):
    """(requests per second, server CPU µs per request): bench.py's measure, for one server process."""
    return bench.wrk(port, path, seconds, [pid], script)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best of each is reported")
    parser.add_argument("--baseline", help="a binary without startsInMs and fair order, measured beside")
    arguments = parser.parse_args()
    data = tempfile.mkdtemp(prefix="mv-bench-fair-")
    script = os.path.join(data, "rotating.lua")
    with open(script, "w") as file:
        file.write(ROTATING)
    server, port = start_server(arguments.binary, data)
    plain = json.loads(call(port, "POST", "/api/party", {"provider": "demo"}))
    fair = json.loads(call(port, "POST", "/api/party", {"provider": "demo", "fairQueue": True}))
    server.terminate(); server.wait()
    fill(data, plain["id"])
    fill(data, fair["id"])
    server, port = start_server(arguments.binary, data)
    targets = [("R9", port, plain, server.pid), ("R9b fair", port, fair, server.pid)]
    baseline = None
    if arguments.baseline:
        baseline_data = tempfile.mkdtemp(prefix="mv-bench-before-")
        baseline, baseline_port = start_server(arguments.baseline, baseline_data)
        before = json.loads(call(baseline_port, "POST", "/api/party", {"provider": "demo"}))
        baseline.terminate(); baseline.wait()
        fill(baseline_data, before["id"])
        baseline, baseline_port = start_server(arguments.baseline, baseline_data)
        targets.insert(0, ("before", baseline_port, before, baseline.pid))
    try:
        sizes = [len(json.loads(call(target_port, "GET", f"/api/party/{party['id']}/track/queue"))["queue"])
                 for _, target_port, party, _ in targets]
        print(f"2 cores shared by the servers and wrk (-t2 -c64); entries: {sizes}")
        for label, script_path in (("same URL (cached rendering)", None), ("new deviceId each request", script)):
            results = {}
            # Interleaved rounds, so a neighbour's load on the shared cores falls on all alike; the best round counts
            # (a neighbour only ever takes throughput away).
            for round_number in range(arguments.rounds):
                for name, target_port, party, pid in targets:
                    figure = wrk(target_port, f"/api/party/{party['id']}/track/queue", arguments.seconds, pid, script_path)
                    results.setdefault(name, []).append(figure)
            best = {name: max(rate for rate, _ in figures) for name, figures in results.items()}
            cpu = {name: min(micros for _, micros in figures) for name, figures in results.items()}
            base = "before" if "before" in best else "R9"
            print(f"GET queue, 500 entries, {label}:")
            print("  throughput (best round)  " + "   ".join(f"{name} {value:7.0f} req/s" for name, value in best.items())
                  + f"   fair/{base} {best['R9b fair'] / best[base]:.3f}")
            print("  server CPU per request   " + "   ".join(f"{name} {value:7.1f} µs" for name, value in cpu.items())
                  + f"   fair/{base} {cpu['R9b fair'] / cpu[base]:.3f} (cost {100 * (cpu['R9b fair'] / cpu[base] - 1):+.1f} %)")
    finally:
        for process in (server, baseline):
            if process:
                process.terminate()
                process.wait()
        shutil.rmtree(data, ignore_errors=True)
        if baseline:
            shutil.rmtree(baseline_data, ignore_errors=True)


if __name__ == "__main__":
    main()
