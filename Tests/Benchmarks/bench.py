#!/usr/bin/env python3
"""MusicVoting benchmark against real anchors, side by side in one run: prints figures, asserts nothing.

  apt-get install -y wrk nginx libnginx-mod-nchan     # .ci/apt-bench.txt
  swift build -c release && python3 Tests/Benchmarks/bench.py [--subscribers 2000] [--big 10000] [--seconds 5]

1. GET /track/queue (50 entries) next to Debian's nginx serving the very same bytes as a static file (wrk, same
   settings for both).
2. SSE fan-out: N subscribers on one party, latency from publishing to each subscriber's event (p50/p99),
   ours (a vote POST, `vote-updated`) next to nginx + nchan (a POST to its publisher location) with the same
   client (sseclient.c, built here with cc); memory per subscriber from the processes' PSS.
3. Like toggles acknowledged per second by 16 keep-alive clients, then kill -9 and a restart: every
   acknowledged like must still be counted.
Both servers run on 127.0.0.1 with two workers each; the load generators share the same 2 cores, so compare
ratios, not absolute figures.
"""
import argparse, asyncio, json, os, resource, shutil, signal, sqlite3, subprocess, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so"


def start_server(binary, data):
    # One load generator plays thousands of phones from a few addresses: the per-address limits are lifted.
    process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", data, "--resources", ROOT,
                                "--max-connections-per-address", "0", "--max-streams-per-address", "0",
                                "--max-streams-per-party", "100000"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if not line.startswith("MusicVoting listening on"):
        raise SystemExit("server did not start: " + line)
    return process, int(line.strip().rsplit(":", 1)[1])


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_nginx(folder, body):
    """nginx with nchan, two workers, serving `body` as /queue.json; loopback only."""
    port = free_port()
    with open(os.path.join(folder, "queue.json"), "wb") as file:
        file.write(body)
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""load_module {NCHAN_MODULE};
user root; worker_processes 2; daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;
worker_rlimit_nofile 30000;
events {{ worker_connections 15000; }}
http {{
  access_log off;
  server {{
    listen 127.0.0.1:{port};
    location = /queue.json {{ alias {folder}/queue.json; default_type application/json; }}
    location = /sub {{ nchan_subscriber eventsource; nchan_channel_id $arg_channel; }}
    location = /pub {{ nchan_publisher; nchan_channel_id $arg_channel; nchan_message_buffer_length 64; }}
  }}
}}
""")
    return run_nginx(folder, config, f"http://127.0.0.1:{port}/queue.json"), port


def run_nginx(folder, config, probe):
    """Starts nginx on `config` and waits until `probe` answers."""
    process = subprocess.Popen(["nginx", "-c", config, "-p", folder], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(probe).read()
            return process
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start")


def call(port, method, path, body=None, auth=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if auth:
        request.add_header("Authorization", "Bearer " + auth)
    with urllib.request.urlopen(request) as response:
        return response.read()


def pss_kib(pids):
    """Proportional set size: shared pages (nchan's shared memory) are not counted twice."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
        except OSError:
            pass
    return total


def process_tree(pid):
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [int(child) for child in children]


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


def wrk(port, path, seconds):
    output = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
                            capture_output=True, text=True).stdout
    for line in output.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise SystemExit("wrk printed no figure:\n" + output)


def build_client(folder):
    """The SSE swarm is C (sseclient.c): a Python client saturated its own core first and measured itself."""
    binary = os.path.join(folder, "sseclient")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sseclient.c")
    compiler = shutil.which("cc") or shutil.which("clang")
    subprocess.run([compiler, "-O2", "-o", binary, source], check=True)
    return binary


def fan_out(client, port, subscribe_path, publish_path, publish_body, subscribers, events, pids):
    """(deliveries, p50 ms, p99 ms) from each publish to each subscriber's copy, and PSS per subscriber (KiB)."""
    pss_before = pss_kib(pids)
    swarm = subprocess.Popen([client, str(port), subscribe_path, str(subscribers), str(events), "vote-updated",
                              publish_path, publish_body], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if swarm.stdout.readline().strip() != "ready":
        raise SystemExit("the SSE client did not connect")
    time.sleep(1)
    per_subscriber = (pss_kib(pids) - pss_before) / subscribers
    swarm.stdin.write("go\n")
    swarm.stdin.flush()
    fields = swarm.stdout.readline().split()
    swarm.wait()
    if len(fields) != 6:
        raise SystemExit("the SSE client failed")
    return (int(fields[1]), float(fields[3]), float(fields[5])), per_subscriber


async def like_load(port, party_id, seconds, clients=16):
    """Each like by a new device from a fresh loopback address per 50 likes (the server limits likes per
    device and per address); returns the acknowledged count."""
    acknowledged = 0
    deadline = time.perf_counter() + seconds

    async def worker(number):
        nonlocal acknowledged
        sent = 0
        while time.perf_counter() < deadline:
            address = f"127.{1 + number}.{sent // 50 // 250}.{sent // 50 % 250 + 1}"
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
            for _ in range(50):
                if time.perf_counter() >= deadline:
                    break
                body = json.dumps({"uri": "demo:track:bench0", "deviceId": f"liker-{number}-{sent}"}).encode()
                writer.write(f"POST /api/party/{party_id}/track/vote HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
                head = await reader.readuntil(b"\r\n\r\n")
                length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0].split(b":")[1])
                await reader.readexactly(length)
                sent += 1
                if head.startswith(b"HTTP/1.1 200"):
                    acknowledged += 1
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(number) for number in range(clients)))
    return acknowledged, acknowledged / (time.perf_counter() - started)


def like_count(port, party_id):
    queue = json.loads(call(port, "GET", f"/api/party/{party_id}/track/queue"))["queue"]
    return next(entry["likeCount"] for entry in queue if entry["uri"] == "demo:track:bench0")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--subscribers", type=int, default=2000)
    parser.add_argument("--big", type=int, default=10000, help="a second fan-out at this many subscribers (0: skip)")
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=5)
    arguments = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    data = tempfile.mkdtemp(prefix="mv-bench-")
    anchor_folder = tempfile.mkdtemp(prefix="mv-nginx-")
    server, port = start_server(arguments.binary, data)
    party = json.loads(call(port, "POST", "/api/party", {"provider": "demo"}))
    server.terminate(); server.wait()
    fill_queue(data, party["id"], 50)
    server, port = start_server(arguments.binary, data)
    queue_path = f"/api/party/{party['id']}/track/queue?deviceId=device3"
    nginx, nginx_port = start_nginx(anchor_folder, call(port, "GET", queue_path))
    try:
        print(f"2 cores shared by the servers and the load generators (wrk -t2 -c64, sseclient.c, asyncio)")
        ours = wrk(port, queue_path, arguments.seconds)
        anchor = wrk(nginx_port, "/queue.json", arguments.seconds)
        print(f"GET queue, 50 entries     ours {ours:9.0f} req/s   nginx (same bytes, static) {anchor:9.0f} req/s"
              f"   ratio {ours / anchor:.2f}")

        client = build_client(anchor_folder)
        vote = '{"uri": "demo:track:bench1", "deviceId": "fan-{i}"}'
        nchan_message = json.dumps({"type": "vote-updated", "timestamp": 0, "payload": {
            "partyId": party["id"], "source": "server", "uri": "demo:track:bench1", "likeCount": "{i}"}})
        for count in [arguments.subscribers] + ([arguments.big] if arguments.big else []):
            ours, ours_mem = fan_out(client, port, f"/api/spotify/events?partyId={party['id']}&source=web",
                                     f"/api/party/{party['id']}/track/vote", vote, count, arguments.events, [server.pid])
            channel = f"party{count}"  # a fresh channel per run: nchan replays a channel's buffered messages
            nchan, nchan_mem = fan_out(client, nginx_port, f"/sub?channel={channel}", f"/pub?channel={channel}", nchan_message,
                                       count, arguments.events, process_tree(nginx.pid))
            print(f"SSE fan-out, {count} subscribers x {arguments.events} events ({ours[0]} / {nchan[0]} deliveries)")
            print(f"  p50 ours {ours[1]:7.1f} ms   nchan {nchan[1]:7.1f} ms")
            print(f"  p99 ours {ours[2]:7.1f} ms   nchan {nchan[2]:7.1f} ms   ratio {ours[2] / nchan[2]:.2f}")
            print(f"  memory per subscriber (PSS)  ours {ours_mem:5.1f} KiB   nchan {nchan_mem:5.1f} KiB   ratio {ours_mem / nchan_mem:.2f}")
            time.sleep(12)  # the keepalive finds the closed streams

        acknowledged, rate = asyncio.run(like_load(port, party["id"], arguments.seconds))
        before_kill = like_count(port, party["id"])
        server.send_signal(signal.SIGKILL)
        server.wait()
        server, port = start_server(arguments.binary, data)
        after_restart = like_count(port, party["id"])
        print(f"likes: {acknowledged} acknowledged by 16 clients in {arguments.seconds} s = {rate:.0f}/s; "
              f"counted {before_kill} before kill -9, {after_restart} after the restart "
              f"({acknowledged - after_restart} lost)")
    finally:
        server.terminate()
        server.wait()
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(anchor_folder, ignore_errors=True)


if __name__ == "__main__":
    main()
