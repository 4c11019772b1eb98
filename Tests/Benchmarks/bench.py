#!/usr/bin/env python3
"""MusicVoting benchmark against real anchors, side by side in one run: prints figures, asserts nothing.

  apt-get install -y wrk nginx libnginx-mod-nchan     # .ci/apt-bench.txt
  swift build -c release && python3 Tests/Benchmarks/bench.py [--subscribers 2000] [--big 10000] [--seconds 5]

1. GET /track/queue (50 entries) next to Debian's nginx serving the very same bytes as a static file (wrk, same
   settings for both).
2. SSE fan-out: N subscribers on one party, latency from publishing to each subscriber's event (p50/p99),
   ours (a vote POST, `vote-updated`) next to nginx + nchan (a POST to its publisher location) with the same
   client (sseclient.c, built here with cc); memory per subscriber from the processes' PSS (each round on fresh
   processes of both servers). --fanout-rounds (3) repeats each size and prints each round's ratio and the median.
3. Like toggles acknowledged per second by 16, then 64 keep-alive clients, one like in flight each (likeload.c, one
   epoll thread like wrk and sseclient.c, built here; --like-clients),
   then kill -9 and a restart: every acknowledged like must still be counted; next to SQLite's own rate of one-row commits on the same
   disk with the server's settings (WAL, synchronous=FULL, a checkpoint every 10,000 pages), measured by this script.
   --like-rounds (3) alternates the anchor and the like runs and prints each round's ratio and the median.
4. Likes acknowledged per second by 16 clients (likeload.c) from one SQLite instance started with --trusted-proxy
   127.0.0.1, straight and through Debian's nginx (one worker) on the binary's own `nginx-config`, and through the
   same configuration without its upstream keepalive (every request on a new connection to the instance), in
   alternating rounds (--proxy-rounds, 3): each round's rates, then the medians and ranges of the ratios to straight.
--parts picks sections (queue,fanout,likes,proxy; default all).
Both servers run on 127.0.0.1 with two workers each; the load generators share the same 2 cores, so compare
ratios, not absolute figures.
"""
import argparse, json, os, resource, shutil, signal, sqlite3, statistics, subprocess, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so"


def start_server(binary, data, *extra):
    # One load generator plays thousands of phones from a few addresses: the per-address limits are lifted.
    process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", data, "--resources", ROOT,
                                "--max-connections-per-address", "0", "--max-streams-per-address", "0", "--max-new-guests-per-network", "0",
                                "--max-streams-per-party", "100000", *extra],
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


def start_proxy(binary, folder, upstream, keep):
    """Debian's nginx, one worker, on the binary's `nginx-config` for the instance on `upstream` (without the upstream
    keepalive lines unless `keep`), in `folder`: (process, port)."""
    port = free_port()
    text = subprocess.run([binary, "nginx-config", "--listen", f"127.0.0.1:{port}", "--upstream", f"127.0.0.1:{upstream}",
                           "--max-connections-per-address", "0"], capture_output=True, text=True, check=True).stdout
    if not keep:
        text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("keepalive"))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "musicvoting.conf"), "w") as file:
        file.write(text)
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""user root; worker_processes 1; daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;
worker_rlimit_nofile 30000;
events {{ worker_connections 15000; }}
http {{ access_log off; include {folder}/musicvoting.conf; }}
""")
    return run_nginx(folder, config, f"http://127.0.0.1:{port}/healthz"), port


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


def cpu_seconds(pids):
    """User + system CPU time the processes used so far (on a shared, noisy machine the CPU a request costs is
    steadier than requests per second)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def wrk(port, path, seconds, pids=(), script=None):
    """(requests per second, server CPU microseconds per request) for `pids`, the server's processes; `script` is a
    wrk Lua script (fair_queue.py varies the deviceId with one)."""
    before = cpu_seconds(pids)
    command = ["wrk", "-t2", "-c64", f"-d{seconds}s"] + (["-s", script] if script else []) + [f"http://127.0.0.1:{port}{path}"]
    output = subprocess.run(command, capture_output=True, text=True).stdout
    used = cpu_seconds(pids) - before
    rate = total = None
    for line in output.splitlines():
        if line.startswith("Requests/sec:"):
            rate = float(line.split()[1])
        if " requests in " in line:
            total = int(line.split()[0])
    if rate is None or not total:
        raise SystemExit("wrk printed no figure:\n" + output)
    return rate, used / total * 1e6


def build(folder, name, *flags):
    """One of the C load generators beside this script (`name`.c), built into `folder`. The SSE swarm is C
    (sseclient.c): a Python client saturated its own core first and measured itself."""
    binary = os.path.join(folder, name)
    compiler = shutil.which("cc") or shutil.which("clang")
    subprocess.run([compiler, "-O2", *flags, "-o", binary, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".c")],
                   check=True)
    return binary


def swarm(client, ports, subscribe_path, publish_path, publish_body, subscribers, events, connected=lambda: None):
    """sseclient.c: `subscribers` streams over `ports` (in turn), then `events` publishes to `ports[0]`. Returns its
    result fields (deliveries [1], p50 ms [3], p99 ms [5]) and what `connected` returned, run once every stream was
    open, before the first publish."""
    process = subprocess.Popen([client, ",".join(map(str, ports)), subscribe_path, str(subscribers), str(events), "vote-updated",
                                publish_path, publish_body], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if process.stdout.readline().strip() != "ready":
        raise SystemExit("the SSE client did not connect")
    time.sleep(1)
    measured = connected()
    process.stdin.write("go\n")
    process.stdin.flush()
    fields = process.stdout.readline().split()
    process.wait()
    if len(fields) != 6:
        raise SystemExit("the SSE client failed")
    return fields, measured


def fan_out(client, port, subscribe_path, publish_path, publish_body, subscribers, events, pids):
    """(deliveries, p50 ms, p99 ms) from each publish to each subscriber's copy, and PSS per subscriber (KiB)."""
    pss_before = pss_kib(pids)
    fields, pss_connected = swarm(client, [port], subscribe_path, publish_path, publish_body, subscribers, events,
                                  connected=lambda: pss_kib(pids))
    return (int(fields[1]), float(fields[3]), float(fields[5])), (pss_connected - pss_before) / subscribers


def sqlite_commit_rate(folder, seconds, name="anchor.sqlite"):
    """SQLite's own pace on this disk: one-row transactions, each committed, with the server's journal settings."""
    database = sqlite3.connect(os.path.join(folder, name), isolation_level=None)
    database.execute("PRAGMA journal_mode=WAL")
    database.execute("PRAGMA synchronous=FULL")  # the server's Database: each commit synced
    database.execute("PRAGMA wal_autocheckpoint=10000")  # the server's Database.checkpointPages
    database.execute("CREATE TABLE likes (id INTEGER PRIMARY KEY, entry INTEGER NOT NULL, device TEXT NOT NULL)")
    database.execute("CREATE UNIQUE INDEX likes_by_device ON likes (entry, device)")
    commits = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        database.execute("BEGIN IMMEDIATE")
        database.execute("INSERT INTO likes (entry, device) VALUES (?, ?)", (commits % 50, f"device-{commits}"))
        database.execute("COMMIT")
        commits += 1
    rate = commits / (time.perf_counter() - started)
    database.close()
    return rate


def like_load_c(client, port, party_id, seconds, clients=16, uri="demo:track:bench0", first_client=0):
    """(acknowledged, per second) from likeload.c: a new device per like, a new source address per 50; clients
    numbered from `first_client` (a later run's addresses must not be the ones whose like limits an earlier one used)."""
    fields = subprocess.run([client, str(port), party_id, uri, str(seconds), str(clients), "50"],
                            env=dict(os.environ, LIKELOAD_FIRST_CLIENT=str(first_client)),
                            capture_output=True, text=True, check=True).stdout.split()
    return int(fields[1]), int(fields[1]) / float(fields[5])


def like_count(port, party_id, uri="demo:track:bench0"):
    queue = json.loads(call(port, "GET", f"/api/party/{party_id}/track/queue"))["queue"]
    return next(entry["likeCount"] for entry in queue if entry["uri"] == uri)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--subscribers", type=int, default=2000)
    parser.add_argument("--big", type=int, default=10000, help="a second fan-out at this many subscribers (0: skip)")
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--parts", default="queue,fanout,likes,proxy")
    parser.add_argument("--proxy-rounds", type=int, default=3, help="rounds of straight, nginx and nginx without keepalive")
    parser.add_argument("--like-clients", default="16,64", help="a like run per number of clients, each on its own song")
    parser.add_argument("--like-rounds", type=int, default=3, help="rounds of the anchor and the like runs, alternating")
    parser.add_argument("--fanout-rounds", type=int, default=3, help="rounds of each fan-out size, ours then nchan's")
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
        print(f"2 cores shared by the servers and the load generators (wrk -t2 -c64, sseclient.c, likeload.c)")
        parts = arguments.parts.split(",")
        if "queue" in parts:
            ours, ours_cpu = wrk(port, queue_path, arguments.seconds, [server.pid])
            anchor, anchor_cpu = wrk(nginx_port, "/queue.json", arguments.seconds, process_tree(nginx.pid))
            print(f"GET queue, 50 entries     ours {ours:9.0f} req/s   nginx (same bytes, static) {anchor:9.0f} req/s"
                  f"   ratio {ours / anchor:.2f}")
            print(f"  server CPU per request   ours {ours_cpu:6.1f} µs      nginx {anchor_cpu:6.1f} µs"
                  f"   ratio {anchor_cpu / ours_cpu:.2f} (steadier than req/s when the cores are shared)")

        client = build(anchor_folder, "sseclient")
        vote = '{"uri": "demo:track:bench1", "deviceId": "fan-{i}"}'
        nchan_message = json.dumps({"type": "vote-updated", "timestamp": 0, "payload": {
            "partyId": party["id"], "source": "server", "uri": "demo:track:bench1", "likeCount": "{i}"}})
        sizes = ([arguments.subscribers] + ([arguments.big] if arguments.big else [])) if "fanout" in parts else []
        fresh = False
        for count in sizes:
            p50_ratios, p99_ratios, pss_ratios = [], [], []
            for turn in range(arguments.fanout_rounds):
                if fresh:
                    # Each round on fresh processes, both servers alike: a second swarm in the same processes reuses
                    # what the first one freed (its PSS grows by less than its subscribers cost), and the closed
                    # streams of the first would still take writes until the keepalives find them.
                    server.terminate(); server.wait()
                    server, port = start_server(arguments.binary, data)
                    nginx.terminate(); nginx.wait()
                    nginx, nginx_port = start_nginx(anchor_folder, call(port, "GET", queue_path))
                fresh = True
                ours, ours_mem = fan_out(client, port, f"/api/spotify/events?partyId={party['id']}&source=web",
                                         f"/api/party/{party['id']}/track/vote", vote, count, arguments.events, [server.pid])
                channel = f"party{count}-{turn}"  # a fresh channel per run: nchan replays a channel's buffered messages
                nchan, nchan_mem = fan_out(client, nginx_port, f"/sub?channel={channel}", f"/pub?channel={channel}", nchan_message,
                                           count, arguments.events, process_tree(nginx.pid))
                p50_ratios.append(ours[1] / nchan[1])
                p99_ratios.append(ours[2] / nchan[2])
                pss_ratios.append(ours_mem / nchan_mem)
                print(f"SSE fan-out, {count} subscribers x {arguments.events} events, round {turn + 1} ({ours[0]} / {nchan[0]} deliveries)")
                print(f"  p50 ours {ours[1]:7.1f} ms   nchan {nchan[1]:7.1f} ms   ratio {ours[1] / nchan[1]:.2f}")
                print(f"  p99 ours {ours[2]:7.1f} ms   nchan {nchan[2]:7.1f} ms   ratio {ours[2] / nchan[2]:.2f}")
                print(f"  memory per subscriber (PSS)  ours {ours_mem:5.1f} KiB   nchan {nchan_mem:5.1f} KiB   ratio {ours_mem / nchan_mem:.2f}")
            print(f"SSE fan-out, {count} subscribers: median p50 ratio {statistics.median(p50_ratios):.2f} "
                  f"(rounds: {', '.join(f'{ratio:.2f}' for ratio in p50_ratios)}); "
                  f"median p99 ratio {statistics.median(p99_ratios):.2f} "
                  f"(rounds: {', '.join(f'{ratio:.2f}' for ratio in p99_ratios)}); "
                  f"median PSS ratio {statistics.median(pss_ratios):.2f}")
        if fresh and "likes" in parts:
            server.terminate(); server.wait()
            server, port = start_server(arguments.binary, data)

        if "likes" in parts:
            loader = build(anchor_folder, "likeload")
            # Rounds of: SQLite's own commit rate, then 16 clients (the target's figure), then 64 on another song (its
            # own devices: the same device ids would take the first run's likes back; a batch grows with the likes that
            # arrive while one commits). Alternating, because two shared cores swing a single 5 s figure by a tenth or
            # more: each round's ratios are printed, then the median per number of clients.
            counts = list(map(int, arguments.like_clients.split(",")))
            if sum(counts) * arguments.like_rounds > 250:
                raise SystemExit("likeload numbers at most 250 clients (their loopback addresses): fewer rounds or clients")
            acknowledged = {}
            ratios = {clients: [] for clients in counts}
            first_client = 0
            for turn in range(arguments.like_rounds):
                anchor_rate = sqlite_commit_rate(anchor_folder, arguments.seconds, f"anchor{turn}.sqlite")
                for index, clients in enumerate(counts):
                    uri = f"demo:track:bench{turn * len(counts) + index}"
                    acknowledged[uri], rate = like_load_c(loader, port, party["id"], arguments.seconds, clients, uri, first_client)
                    first_client += clients
                    ratios[clients].append(rate / anchor_rate)
                    print(f"likes, round {turn + 1}: {acknowledged[uri]} acknowledged by {clients} clients in {arguments.seconds} s "
                          f"= {rate:.0f}/s; SQLite's own one-row commits on this disk {anchor_rate:.0f}/s; ratio {rate / anchor_rate:.2f}")
            for clients in counts:
                print(f"likes, {clients} clients: median ratio {statistics.median(ratios[clients]):.2f} "
                      f"(rounds: {', '.join(f'{ratio:.2f}' for ratio in ratios[clients])})")
            before_kill = sum(like_count(port, party["id"], uri) for uri in acknowledged)
            server.send_signal(signal.SIGKILL)
            server.wait()
            server, port = start_server(arguments.binary, data)
            after_restart = sum(like_count(port, party["id"], uri) for uri in acknowledged)
            print(f"  counted {before_kill} before kill -9, {after_restart} after the restart "
                  f"({sum(acknowledged.values()) - after_restart} acknowledged and lost)")

        if "proxy" in parts:
            # The part starts its own instance on the same data (one server per data folder).
            server.terminate(); server.wait()
            proxy_likes(arguments, anchor_folder, data, party["id"])
    finally:
        server.terminate()
        server.wait()
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(anchor_folder, ignore_errors=True)


def proxy_likes(arguments, folder, data, party_id):
    """Part 4: one instance's likes per second straight and through the printed nginx, with and without keepalive."""
    loader = build(folder, "likeload")
    clients = 16
    if clients * 3 * arguments.proxy_rounds > 250:
        raise SystemExit("likeload numbers at most 250 clients (their loopback addresses): fewer rounds")
    server, port = start_server(arguments.binary, data, "--trusted-proxy", "127.0.0.1")
    kept, kept_port = start_proxy(arguments.binary, os.path.join(folder, "kept"), port, keep=True)
    fresh, fresh_port = start_proxy(arguments.binary, os.path.join(folder, "fresh"), port, keep=False)
    try:
        routes = [("straight", port), ("nginx", kept_port), ("nginx without keepalive", fresh_port)]
        rates = {name: [] for name, _ in routes}
        first_client = 0
        for turn in range(arguments.proxy_rounds):
            for index, (name, target) in enumerate(routes):
                uri = f"demo:track:bench{10 + turn * len(routes) + index}"  # past the likes part's songs
                _, rate = like_load_c(loader, target, party_id, arguments.seconds, clients, uri, first_client)
                first_client += clients
                rates[name].append(rate)
            print(f"likes through nginx, round {turn + 1}, {clients} clients: "
                  + ", ".join(f"{name} {rates[name][-1]:.0f}/s" for name, _ in routes))
        for name, _ in routes[1:]:
            ratios = [rate / straight for rate, straight in zip(rates[name], rates["straight"])]
            print(f"likes, {name} / straight: median ratio {statistics.median(ratios):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}; "
                  f"{name} {min(rates[name]):.0f}-{max(rates[name]):.0f}/s, straight {min(rates['straight']):.0f}-{max(rates['straight']):.0f}/s")
    finally:
        for process in (kept, fresh, server):
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
