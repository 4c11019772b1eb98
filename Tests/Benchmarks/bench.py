#!/usr/bin/env python3
"""MusicVoting benchmark: prints figures, asserts nothing.

  python3 Tests/Benchmarks/bench.py [--binary .build/release/musicvoting] [--clients 1000] [--seconds 5]

1. GET /track/queue on a 50-entry queue, req/s, side by side with GET /healthz in the same run
   (wrk when installed, else a keep-alive asyncio client; compare the ratio, not the absolute figure).
2. SSE fan-out: N clients on one party, latency from a vote POST to each client's vote-updated event
   (p50/p99), and the server's RSS before and after the clients connect.
"""
import argparse, asyncio, json, os, resource, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start_server(binary, data):
    # One load generator plays a thousand phones from one address: the per-address limits are lifted.
    process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", data, "--resources", ROOT,
                                "--max-connections-per-address", "0", "--max-streams-per-address", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if not line.startswith("MusicVoting listening on"):
        raise SystemExit("server did not start: " + line)
    return process, int(line.strip().rsplit(":", 1)[1])


def call(port, method, path, body=None, auth=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if auth:
        request.add_header("Authorization", "Bearer " + auth)
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else None


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fill_queue(data, party_id, count):
    """50 distinct songs exceed the 24-song demo catalog: write the rows the way the server would."""
    database = sqlite3.connect(os.path.join(data, "musicvoting.sqlite"))
    now = time.time()
    for index in range(count):
        database.execute(
            "INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, image_url, duration_ms, added_at,"
            " added_by, autofilled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (party_id, f"demo:track:bench{index}", f"bench{index}", f"Bench song {index}", "Bench Artist", "Bench Album",
             "/demo/cover/1.svg", 30000, now + index, f"device{index % 7}"))
    database.commit()
    database.close()


async def keepalive_load(port, path, seconds, connections=32):
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker():
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0].split(b":")[1])
            await reader.readexactly(length)
            done += 1
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return done / (time.perf_counter() - started)


def wrk(port, path, seconds):
    output = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
                            capture_output=True, text=True).stdout
    for line in output.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise SystemExit("wrk printed no figure:\n" + output)


async def fan_out(port, party_id, host_pin, clients, events):
    received = [[] for _ in range(events)]
    ready = asyncio.Event()
    connected = 0

    async def client(index):
        nonlocal connected
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        writer.write(f"GET /api/spotify/events?partyId={party_id}&source=web HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        await reader.readuntil(b"\r\n\r\n")
        connected += 1
        if connected == clients:
            ready.set()
        seen = 0
        while seen < events:
            line = await reader.readline()
            if not line:
                return
            if b'"vote-updated"' in line:
                received[seen].append(time.perf_counter())
                seen += 1
        writer.close()

    tasks = [asyncio.create_task(client(index)) for index in range(clients)]
    await asyncio.wait_for(ready.wait(), 60)
    await asyncio.sleep(0.5)
    rss_connected = rss_kib(SERVER_PID)
    loop = asyncio.get_running_loop()
    sent = []
    for index in range(events):
        sent.append(time.perf_counter())
        await loop.run_in_executor(None, call, port, "POST", f"/api/party/{party_id}/track/vote",
                                   {"uri": "demo:track:bench0", "deviceId": f"bench-voter-{index}"})
        await asyncio.sleep(0.2)
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    latencies = sorted((at - sent[index]) * 1000 for index in range(events) for at in received[index])
    return latencies, rss_connected


def percentile(values, fraction):
    return values[min(len(values) - 1, int(len(values) * fraction))]


def main():
    global SERVER_PID
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=5)
    arguments = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))

    data = tempfile.mkdtemp(prefix="mv-bench-")
    server, port = start_server(arguments.binary, data)
    party = call(port, "POST", "/api/party", {"provider": "demo"})
    server.terminate(); server.wait()
    fill_queue(data, party["id"], 50)
    server, port = start_server(arguments.binary, data)
    SERVER_PID = server.pid
    try:
        queue_path = f"/api/party/{party['id']}/track/queue?deviceId=device3"
        assert len(call(port, "GET", queue_path)["queue"]) == 50
        tool = "wrk" if shutil.which("wrk") else "asyncio client"
        measure = (lambda path: wrk(port, path, arguments.seconds)) if tool == "wrk" else \
            (lambda path: asyncio.run(keepalive_load(port, path, arguments.seconds)))
        health = measure("/healthz")
        queue = measure(queue_path)
        print(f"load generator: {tool}, 2 cores shared with the server")
        print(f"GET /healthz                     {health:10.0f} req/s")
        print(f"GET /track/queue (50 entries)    {queue:10.0f} req/s   ratio to /healthz: {queue / health:.2f}")

        rss_before = rss_kib(server.pid)
        latencies, rss_connected = asyncio.run(fan_out(port, party["id"], party["hostPin"], arguments.clients, arguments.events))
        print(f"SSE fan-out: {arguments.clients} clients x {arguments.events} events = {len(latencies)} deliveries")
        print(f"  latency p50 {percentile(latencies, 0.50):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, max {latencies[-1]:.1f} ms")
        print(f"  server RSS before clients {rss_before / 1024:.1f} MiB, with {arguments.clients} connected {rss_connected / 1024:.1f} MiB"
              f" ({(rss_connected - rss_before) / arguments.clients:.1f} KiB per client)")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)


SERVER_PID = 0
if __name__ == "__main__":
    main()
