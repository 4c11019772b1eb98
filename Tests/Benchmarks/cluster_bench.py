#!/usr/bin/env python3
"""MusicVoting on several instances, side by side with one instance on SQLite in the same run: prints
figures and the issue's targets next to them, asserts nothing.

  apt-get install -y postgresql nginx libnginx-mod-nchan redis-server     # .ci/apt-bench.txt
  swift build -c release && python3 Tests/Benchmarks/cluster_bench.py [--subscribers 2000] [--kill-runs 20] [--hosted-seconds 200]

A throwaway PostgreSQL (initdb/pg_ctl from Debian's postgresql 15, as user postgres when run as root, its socket in
a temporary folder) and the release binary:
1. like -> event at SUBSCRIBERS (2,000) and BIG (10,000) streams on one party, FANOUT_ROUNDS rounds (3), then
   medians and ranges: p50/p99 from writing the like to each stream's vote-updated (sseclient.c). One instance on
   SQLite; three instances on PostgreSQL with the streams spread over all three and the like on the first (the
   doorbell carries 2/3 of them); the multi-node peer, nchan on its Redis backend (Debian's redis-server) on three
   nginx with the same spread, published on the first.
2. Likes acknowledged per second (likeload.c, 16 clients, a new device per like), LIKE_ROUNDS rounds (3), each with
   every figure side by side, then the median and range of each: PostgreSQL's own one-row commits (pgbench, prepared,
   1 and 16 clients) as the anchor; one SQLite instance; one PostgreSQL instance on a database of its own, with the
   statements (pg_stat_statements, preloaded) and transactions (pg_stat_database) of that database per like; three
   instances behind nginx (`musicvoting nginx-config`, party hash), likes over 50 parties and on one party. Then
   pg_notification_queue_usage().
   The TV's progress report: the statements and transactions of 20 reports on one PostgreSQL instance, less an idle
   window as long.
3. The hosted case, HOSTED_SECONDS (200) on each of: one SQLite instance; one PostgreSQL instance; three PostgreSQL
   instances behind nginx (`musicvoting nginx-config`, party hash; the reports, likes and streams all through nginx).
   500 parties, each with its TV registered (PUT …/device, kind monitor) and reporting its position once a second
   with its monitor token (POST …/track/progress {position, duration, paused: false}, as the TV page does; the 500
   reports spread evenly over each second), 3 guests' event streams (1,500 streams), and 50 likes a second spread
   over the parties, each by a new device (tvload.c: one epoll thread, keep-alive connections, each party's devices
   on a loopback network of their own; the parties are made with X-Forwarded-For from those networks, the instances
   trusting 127.0.0.1, as party creation is limited per address and network). Each party plays a song of the local
   provider (silent WAVs written here, longer than the run: a demo song ends within 35 s) with another one waiting
   that the likes go to; the songs start while the TVs already report. Prints the reports answered per second,
   their p50 / p99 / max latency, those answered other than 204 (by status) or not at all, the likes' p99, the
   streams still connected at the end and the parties still playing, beside the target: reports p99 <= 50 ms and
   none refused.
4. KILL_RUNS times: three fresh instances behind nginx (`musicvoting nginx-config`, party hash), a like storm through
   nginx (likeload.c) and KILL_SUBSCRIBERS streams through nginx; kill -9 of the instance serving the party
   mid-storm. Counts acknowledged likes missing from the database, and the time from the kill until each stream is
   answered again by another instance (with Last-Event-ID); checks each stream's ids go up by exactly one.
5. Not by default (--parts pruning; --pruning-minutes, 30; --pruning-parties, 2,000): the event log's cleanup under
   load. 2,000 parties on one PostgreSQL instance, each with its TV reporting once a second and a guest's stream, 50
   likes a second (tvload.c), on a log that starts with 3.5 M rows from an hour ago, 1.5 M of them past what the
   parties keep. Prints the log's rows once a minute and every report and like answered other than 204 / 200.
--parts picks sections (fanout,likes,progress,hosted,kill by default; pruning); --hosted-seconds sets HOSTED_SECONDS.
Everything runs on the same 2 shared cores: compare ratios.
"""
import argparse, concurrent.futures, json, os, resource, shutil, signal, socket, statistics, subprocess, tempfile, threading, time
import urllib.request, wave
from urllib.error import HTTPError

import bench

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_BIN = "/usr/lib/postgresql/15/bin"
LIMITS = ["--max-connections-per-address", "0", "--max-streams-per-address", "0", "--max-streams-per-party", "100000",
          "--max-new-guests-per-network", "0"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgreSQL:
    """initdb + pg_ctl in a temporary folder (as the tests do), stopped with -m immediate in stop()."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="mv-pgb-")
        self.port = free_port()
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.run("initdb", "-D", self.folder + "/db", "-U", "mv", "--auth=trust", "--no-locale", "-E", "UTF8", "--nosync")
        self.run("pg_ctl", "-D", self.folder + "/db", "-w", "-l", self.folder + "/log", "-o",
                 f"-k {self.folder} -c listen_addresses=127.0.0.1 -p {self.port} -c max_connections=200 "
                 "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=1000", "start")
        self.url = self.create("bench")
        self.sql("CREATE EXTENSION pg_stat_statements")

    def create(self, name):
        """A new database of the cluster; its URL."""
        subprocess.run([PG_BIN + "/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "mv", name], check=True)
        return f"postgres://mv@127.0.0.1:{self.port}/{name}"

    def run(self, program, *arguments):
        command = [PG_BIN + "/" + program, *arguments]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sql(self, statement, url=None):
        return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", url or self.url, "-c", statement],
                              capture_output=True, text=True, check=True).stdout.strip()

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.folder + "/db", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


class Instance:
    def __init__(self, binary, arguments):
        self.data = tempfile.mkdtemp(prefix="mv-cb-")
        self.process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", self.data] + LIMITS + arguments,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("MusicVoting listening on"):
            raise SystemExit("server did not start: " + line)
        self.port = int(line.strip().rsplit(":", 1)[1])

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self.data, ignore_errors=True)


def call(port, method, path, body=None, source="127.0.0.1", headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json", "X-Forwarded-For": source, **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def new_party(port, host="127.0.0.1", songs=(1,)):
    """A demo party with demo:track:1 queued; `host` is the creator's address (behind --trusted-proxy; creation is
    limited per address and network)."""
    party = call(port, "POST", "/api/party", {"provider": "demo"}, source=host)
    for number in songs:
        call(port, "POST", f"/api/party/{party['id']}/track/addToPlaylist",
             {"uri": f"demo:track:{number}", "deviceId": f"adder-{number}"})
    return party["id"]


def fan_out(client, ports, party_id, subscribers, events):
    """(p50, p99) ms from a like on ports[0] to each stream's vote-updated, and the deliveries; the streams take `ports`
    in turn."""
    fields, _ = bench.swarm(client, ports, f"/api/spotify/events?partyId={party_id}&source=web", f"/api/party/{party_id}/track/vote",
                            '{"uri": "demo:track:1", "deviceId": "fan-{i}"}', subscribers, events)
    return float(fields[3]), float(fields[5]), int(fields[1])


class NchanRedis:
    """The multi-node peer of the fan-out: Debian's redis-server (no persistence) and three nginx with nchan on its
    Redis backend, one worker each, loopback only. A message published on one nginx reaches the subscribers of all three."""

    def __init__(self, folder):
        self.folder = folder
        self.redis_port = free_port()
        self.redis = subprocess.Popen(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
                                       "--appendonly", "no", "--daemonize", "no", "--maxclients", "20000"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.nginx, self.ports = [], []
        try:
            for _ in range(50):
                try:
                    with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1):
                        break
                except OSError:
                    time.sleep(0.1)
            for index in range(3):
                self.start_nginx(index)
        except BaseException:
            self.stop()
            raise

    def start_nginx(self, index):
        port = free_port()
        folder = os.path.join(self.folder, f"nchan-redis-{index}")
        os.makedirs(folder, exist_ok=True)
        config = os.path.join(folder, "nginx.conf")
        with open(config, "w") as file:
            file.write(f"""load_module {bench.NCHAN_MODULE};
user root; worker_processes 1; daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;
worker_rlimit_nofile 30000;
events {{ worker_connections 15000; }}
http {{
  access_log off;
  upstream redis_server {{ nchan_redis_server redis://127.0.0.1:{self.redis_port}; }}
  server {{
    listen 127.0.0.1:{port};
    location = /ready {{ return 204; }}
    location = /sub {{ nchan_subscriber eventsource; nchan_channel_id $arg_channel; nchan_redis_pass redis_server; }}
    location = /pub {{ nchan_publisher; nchan_channel_id $arg_channel; nchan_redis_pass redis_server;
                      nchan_message_buffer_length 64; }}
  }}
}}
""")
        self.nginx.append(bench.run_nginx(folder, config, f"http://127.0.0.1:{port}/ready"))
        self.ports.append(port)

    def stop(self):
        for process in self.nginx + [self.redis]:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def fanout_part(arguments, client, single, cluster, single_party, cluster_party, folder):
    """Like -> event at each size, FANOUT_ROUNDS rounds of: one SQLite instance, three PostgreSQL instances (the streams
    spread over the three, the like on the first), nchan on Redis on three nginx (the same spread, published on the
    first); then the medians and ranges."""
    sizes = [arguments.subscribers] + ([arguments.big] if arguments.big else [])
    nchan = NchanRedis(folder)
    ports = [instance.port for instance in cluster]
    message = json.dumps({"type": "vote-updated", "timestamp": 0, "payload": {
        "partyId": cluster_party, "source": "server", "uri": "demo:track:1", "likeCount": "{i}"}})
    try:
        for count in sizes:
            figures = {"sqlite": [], "three": [], "nchan": []}
            for turn in range(arguments.fanout_rounds):
                figures["sqlite"].append(fan_out(client, [single.port], single_party, count, arguments.events))
                time.sleep(3)  # the closed streams end at once; their monitors' presence settles
                figures["three"].append(fan_out(client, ports, cluster_party, count, arguments.events))
                time.sleep(3)
                # A fresh channel per round: nchan replays a channel's buffered messages to a new subscriber.
                channel = f"party{count}-{turn}"
                fields, _ = bench.swarm(client, nchan.ports, f"/sub?channel={channel}", f"/pub?channel={channel}", message,
                                        count, arguments.events)
                figures["nchan"].append((float(fields[3]), float(fields[5]), int(fields[1])))
                print(f"like -> event, {count} subscribers x {arguments.events} likes, round {turn + 1} (ms, deliveries): "
                      + "   ".join(f"{name} p50 {values[-1][0]:.1f} p99 {values[-1][1]:.1f} ({values[-1][2]})"
                                   for name, values in figures.items()))
            p50 = {name: [value[0] for value in values] for name, values in figures.items()}
            p99 = {name: [value[1] for value in values] for name, values in figures.items()}
            print(f"like -> event, {count} subscribers x {arguments.events} likes, medians of {arguments.fanout_rounds} rounds (ms)")
            print(f"  one instance, SQLite                  p50 {median_range(p50['sqlite'], '{:.1f}')}   p99 {median_range(p99['sqlite'], '{:.1f}')}")
            print(f"  3 instances, PostgreSQL               p50 {median_range(p50['three'], '{:.1f}')}   p99 {median_range(p99['three'], '{:.1f}')}")
            print(f"  nchan on Redis, 3 nginx               p50 {median_range(p50['nchan'], '{:.1f}')}   p99 {median_range(p99['nchan'], '{:.1f}')}")
            ratio50 = statistics.median(p50["three"]) / statistics.median(p50["nchan"])
            ratio99 = statistics.median(p99["three"]) / statistics.median(p99["nchan"])
            print(f"  3 instances / nchan on Redis: p50 {ratio50:.2f}, p99 {ratio99:.2f}   (target <= 1 each: "
                  f"{'met' if ratio50 <= 1 and ratio99 <= 1 else 'NOT met'})")
    finally:
        nchan.stop()


def like_load(client, port, party_id, seconds, clients, acknowledged_file=None):
    """likeload.c: (acknowledged, sent, seconds)."""
    command = [client, str(port), party_id, "demo:track:1", str(seconds), str(clients), "50"]
    fields = subprocess.run(command + ([acknowledged_file] if acknowledged_file else []),
                            capture_output=True, text=True, check=True).stdout.split()
    return int(fields[1]), int(fields[3]), float(fields[5])


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else float("nan")


class Nginx:
    """Debian's nginx on the binary's own `nginx-config` output, in a folder of its own."""

    def __init__(self, binary, upstreams):
        self.folder = tempfile.mkdtemp(prefix="mv-cbn-")
        self.port = free_port()
        text = subprocess.run([binary, "nginx-config", "--listen", f"127.0.0.1:{self.port}"]
                              + [a for port in upstreams for a in ("--upstream", f"127.0.0.1:{port}")],
                              capture_output=True, text=True, check=True).stdout
        with open(self.folder + "/musicvoting.conf", "w") as file:
            file.write(text)
        with open(self.folder + "/nginx.conf", "w") as file:
            file.write(f"""{"user root;" if os.getuid() == 0 else ""}
worker_processes 1; pid {self.folder}/nginx.pid; error_log {self.folder}/error.log;
worker_rlimit_nofile 30000;
events {{ worker_connections 15000; }}
http {{ access_log off; include {self.folder}/musicvoting.conf; }}
""")
        self.process = subprocess.Popen(["nginx", "-p", self.folder, "-c", self.folder + "/nginx.conf", "-g", "daemon off;"],
                                        stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("nginx did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class ResumingStream(threading.Thread):
    """An EventSource through nginx: on the stream's end it connects again at once with Last-Event-ID. Records
    every id and when each new connection was answered 200. HTTP/1.0, so nginx sends the events unchunked."""

    def __init__(self, port, party_id, source):
        super().__init__(daemon=True)
        self.port, self.party_id, self.source = port, party_id, source
        self.ids, self.answered_at, self.resyncs = [], [], 0
        self.stopping = False
        self.connection = None
        self.start()

    def run(self):
        while not self.stopping:
            try:
                connection = socket.create_connection(("127.0.0.1", self.port), timeout=30, source_address=(self.source, 0))
            except OSError:
                time.sleep(0.05)
                continue
            self.connection = connection
            head = f"GET /api/spotify/events?partyId={self.party_id}&source=web HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            head += "Accept: text/event-stream\r\n"
            if self.ids:
                head += f"Last-Event-ID: {self.ids[-1]}\r\n"
            try:
                connection.sendall((head + "\r\n").encode())
                reader = connection.makefile("rb")
                status = reader.readline().split()
                if len(status) < 2 or status[1] != b"200":
                    connection.close()
                    time.sleep(0.05)
                    continue
                self.answered_at.append(time.monotonic())
                # An event's id counts once its blank line ends it, and only with data (the preamble names the
                # newest id without data: EventSource then only sets lastEventId).
                event_id, has_data = None, False
                for line in reader:
                    line = line.rstrip(b"\r\n")
                    if line.startswith(b"id: "):
                        event_id = int(line[4:])
                    elif line.startswith(b"data: "):
                        has_data = True
                        self.resyncs += b'"resync"' in line
                    elif not line:
                        if has_data and event_id is not None:
                            self.ids.append(event_id)
                        event_id, has_data = None, False
            except OSError:
                pass
            connection.close()

    def stop(self):
        self.stopping = True
        if self.connection:
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.join(timeout=5)


def established(port):
    """Server-side TCP connections established on 127.0.0.1:port: the instance nginx hashes the party to holds
    its streams."""
    local = "0100007F:%04X" % port
    with open("/proc/net/tcp") as table:
        return sum(1 for line in table if line.split()[1:2] == [local] and line.split()[3] == "01")


def kill_run(run, binary, postgres, like_client, subscribers, storm_seconds, kill_after):
    """One kill -9 run: (acknowledged, lost, resume seconds per stream, id problems)."""
    instances = [Instance(binary, ["--database", postgres.url, "--trusted-proxy", "127.0.0.1"]) for _ in range(3)]
    nginx = Nginx(binary, [instance.port for instance in instances])
    streams = []
    try:
        party_id = new_party(instances[0].port, host=f"10.{run % 250}.{run // 250}.1")
        streams = [ResumingStream(nginx.port, party_id, f"127.61.{index // 250}.{index % 250 + 1}") for index in range(subscribers)]
        deadline = time.monotonic() + 15
        while any(not stream.answered_at for stream in streams) and time.monotonic() < deadline:
            time.sleep(0.05)
        acknowledged_file = os.path.join(nginx.folder, "acknowledged")
        storm = threading.Thread(target=like_load, args=(like_client, nginx.port, party_id, storm_seconds, 8, acknowledged_file))
        storm.start()
        time.sleep(kill_after)
        owner = max(instances, key=lambda instance: established(instance.port))
        killed_at = time.monotonic()
        owner.kill()
        storm.join()
        newest = int(postgres.sql(f"SELECT last_event_seq FROM parties WHERE id = '{party_id}'"))
        deadline = time.monotonic() + 15
        while any(not stream.ids or stream.ids[-1] < newest for stream in streams) and time.monotonic() < deadline:
            time.sleep(0.05)
        resumes = [next((at - killed_at for at in stream.answered_at if at > killed_at), float("inf")) for stream in streams]
        problems = sum(1 for stream in streams
                       if not stream.ids or stream.ids != list(range(stream.ids[0], stream.ids[0] + len(stream.ids)))
                       or stream.ids[-1] != newest or stream.resyncs)
        with open(acknowledged_file) as file:
            acknowledged = set(file.read().split())
        stored = set(postgres.sql(f"SELECT v.device_id FROM votes v JOIN queue_entries e ON e.id = v.entry_id "
                                  f"WHERE e.party_id = '{party_id}'").split())
        return len(acknowledged), len(acknowledged - stored), resumes, problems
    finally:
        for stream in streams:
            stream.stop()
        nginx.stop()
        for instance in instances:
            instance.stop()


def median_range(values, form="{:.0f}"):
    """"median (low–high)" of one figure's rounds."""
    return f"{form.format(statistics.median(values))} ({form.format(min(values))}–{form.format(max(values))})"


def one_row_commits(postgres, url, clients, seconds):
    """PostgreSQL's own rate of one-row commits (pgbench, prepared statements, one INSERT per transaction)."""
    script = os.path.join(postgres.folder, "one-row.sql")
    with open(script, "w") as file:
        file.write("INSERT INTO one_row (at) VALUES (now());\n")
    if os.getuid() == 0:
        shutil.chown(script, "postgres", "postgres")
    output = subprocess.run(["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(min(clients, 2)), "-T", str(seconds),
                             "-f", script, url], capture_output=True, text=True, check=True).stdout
    return float(next(line for line in output.splitlines() if line.startswith("tps = ")).split()[2])


def statement_counts(postgres, url):
    """(statements, transactions) of the database so far: pg_stat_statements' calls (the benchmark's own reads left
    out) and pg_stat_database's commits and rollbacks."""
    name = url.rsplit("/", 1)[1]
    statements = postgres.sql(f"SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                              f"WHERE d.datname = '{name}' AND s.query NOT LIKE '%pg_stat%'")
    transactions = postgres.sql(f"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{name}'")
    return int(statements), int(transactions)


def top_statements(postgres, url, likes, count=20):
    name = url.rsplit("/", 1)[1]
    rows = postgres.sql(f"SELECT s.calls, regexp_replace(left(s.query, 70) || ' … ' || right(s.query, 40), '\\s+', ' ', 'g') FROM pg_stat_statements s "
                        f"JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '{name}' AND s.query NOT LIKE '%pg_stat%' "
                        f"ORDER BY s.calls DESC LIMIT {count}")
    for line in rows.splitlines():
        calls, query = line.split("|", 1)
        print(f"    {int(calls) / likes:6.2f} per like  {query}")


def progress_part(arguments, postgres, reports=20):
    """What the TV's progress report (R23, once a second) costs one PostgreSQL instance: the database's statements and
    transactions during REPORTS reports, less those of an idle window as long (the instance's once-a-second work)."""
    url = postgres.create("progress")
    instance = Instance(arguments.binary, ["--database", url])
    try:
        party = call(instance.port, "POST", "/api/party", {"provider": "demo"})
        base, host = f"/api/party/{party['id']}", {"Authorization": "Bearer " + party["hostToken"]}
        call(instance.port, "POST", f"{base}/track/addToPlaylist", {"uri": "demo:track:1", "deviceId": "adder"})
        monitor = call(instance.port, "PUT", f"{base}/device", {"deviceId": "tv", "kind": "monitor"}, headers=host)["monitorToken"]
        call(instance.port, "POST", f"{base}/track/start", headers=host)
        window = reports * 0.25
        time.sleep(11)  # PostgreSQL reports a session's counts within 10 s of its going idle
        before = statement_counts(postgres, url)
        time.sleep(window + 11)
        idle = statement_counts(postgres, url)
        for number in range(reports):
            call(instance.port, "POST", f"{base}/track/progress", {"position": 1000 + 250 * number, "duration": 200000, "paused": False},
                 headers={"Authorization": "Bearer " + monitor})
            time.sleep(0.25)
        time.sleep(11)
        after = statement_counts(postgres, url)
        logged = postgres.sql("SELECT count(*) FROM party_events WHERE type = 'progress'", url=url)
    finally:
        instance.stop()
    statements = ((after[0] - idle[0]) - (idle[0] - before[0])) / reports
    transactions = ((after[1] - idle[1]) - (idle[1] - before[1])) / reports
    print(f"the TV's progress report on one PostgreSQL instance ({reports} reports, 4 a second, less an idle window as long):")
    print(f"  {statements:.1f} statements and {transactions:.1f} transactions per report; {logged} progress rows in the log")


def likes_part(arguments, postgres, like_client, single):
    """Likes acknowledged per second (likeload.c, 16 clients, a new device per like) on one SQLite instance, one
    PostgreSQL instance, three PostgreSQL instances behind nginx (50 parties; one party), next to PostgreSQL's own
    one-row commits with 1 and 16 clients; the PostgreSQL instance's statements and transactions per like. Each
    round runs every figure once, side by side; the medians and ranges follow."""
    seconds, rounds = arguments.seconds, arguments.like_rounds
    anchor_url = postgres.create("anchor")
    postgres.sql("CREATE TABLE one_row (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at TIMESTAMPTZ)", url=anchor_url)
    figures = {name: [] for name in ("commits1", "commits16", "sqlite", "pg1", "nginx50", "nginx1", "statements", "transactions")}
    for round_number in range(rounds):
        # One PostgreSQL instance on a database of its own: its statements and transactions are the like's.
        url = postgres.create(f"likes{round_number}")
        alone = Instance(arguments.binary, ["--database", url])
        try:
            party = new_party(alone.port)
            postgres.sql(f"SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = 'likes{round_number}'), 0)")
            statements_before, transactions_before = statement_counts(postgres, url)
            acknowledged, sent, took = like_load(like_client, alone.port, party, seconds, 16)
            figures["pg1"].append(acknowledged / took)
            refused = sent - acknowledged
            pg_likes = acknowledged
            acknowledged, sent, took = like_load(like_client, single.port, new_party(single.port), seconds, 16)
            figures["sqlite"].append(acknowledged / took)
            refused += sent - acknowledged
            figures["commits1"].append(one_row_commits(postgres, anchor_url, 1, seconds))
            figures["commits16"].append(one_row_commits(postgres, anchor_url, 16, seconds))
            # PostgreSQL reports a session's transactions within 10 s of its going idle: the runs above took longer.
            time.sleep(max(0, 11 - 3 * seconds))
            statements_after, transactions_after = statement_counts(postgres, url)
            figures["statements"].append((statements_after - statements_before) / max(1, pg_likes))
            figures["transactions"].append((transactions_after - transactions_before) / max(1, pg_likes))
            if round_number == rounds - 1:
                print(f"  the PostgreSQL instance's most frequent statements (round {round_number + 1}):")
                top_statements(postgres, url, max(1, pg_likes))
        finally:
            alone.stop()
        # Three instances behind nginx, on the database the other parts use.
        cluster = [Instance(arguments.binary, ["--database", postgres.url, "--trusted-proxy", "127.0.0.1"]) for _ in range(3)]
        nginx = Nginx(arguments.binary, [instance.port for instance in cluster])
        try:
            parties = [new_party(cluster[index % 3].port, host=f"10.{index}.{round_number}.1") for index in range(50)]
            acknowledged, sent, took = like_load(like_client, nginx.port, ",".join(parties), seconds, 16)
            figures["nginx50"].append(acknowledged / took)
            refused += sent - acknowledged
            acknowledged, sent, took = like_load(like_client, nginx.port, new_party(cluster[0].port, host=f"10.99.{round_number}.1"),
                                                 seconds, 16)
            figures["nginx1"].append(acknowledged / took)
            refused += sent - acknowledged
        finally:
            nginx.stop()
            for instance in cluster:
                instance.stop()
        print(f"  round {round_number + 1}: PostgreSQL one-row commits {figures['commits1'][-1]:6.0f}/s (1 client) "
              f"{figures['commits16'][-1]:6.0f}/s (16); likes/s: SQLite {figures['sqlite'][-1]:6.0f}, one PostgreSQL instance "
              f"{figures['pg1'][-1]:6.0f}, 3 behind nginx {figures['nginx50'][-1]:6.0f} (50 parties) {figures['nginx1'][-1]:6.0f} "
              f"(one party); {figures['statements'][-1]:.2f} statements and {figures['transactions'][-1]:.2f} transactions per like; "
              f"{refused} likes answered other than 200")
    ratios = [pg / anchor for pg, anchor in zip(figures["pg1"], figures["commits16"])]
    print(f"likes acknowledged per second, 16 clients, {seconds} s, a new device per like: median (range) of {rounds} rounds")
    print(f"  PostgreSQL's one-row commits, 1 client       {median_range(figures['commits1'])}/s")
    print(f"  PostgreSQL's one-row commits, 16 clients     {median_range(figures['commits16'])}/s")
    print(f"  one instance, SQLite                         {median_range(figures['sqlite'])}/s")
    print(f"  one instance, PostgreSQL                     {median_range(figures['pg1'])}/s   "
          f"ratio to 16-client commits {median_range(ratios, '{:.2f}')} (target >= 0.5)")
    print(f"  3 instances behind nginx, 50 parties         {median_range(figures['nginx50'])}/s")
    print(f"  3 instances behind nginx, one party          {median_range(figures['nginx1'])}/s")
    print(f"  one PostgreSQL instance, per like: statements {median_range(figures['statements'], '{:.2f}')}, "
          f"transactions {median_range(figures['transactions'], '{:.2f}')}   (target <= 3 and <= 1)")


HOSTED_PARTIES, HOSTED_STREAMS, HOSTED_LIKES = 500, 3, 50
HOSTED_P99_MS = 50


def write_silence(path, seconds, rate=2000):
    """A silent WAV (8-bit mono, `rate` samples a second): the local provider reads its length with TagLib."""
    with wave.open(path, "wb") as song:
        song.setnchannels(1)
        song.setsampwidth(1)
        song.setframerate(rate)
        song.writeframes(b"\x80" * (rate * seconds))


def local_uri(relative):
    """The local provider's uri of a file in its library: FNV-1a (64 bit) of the path inside it, in hex."""
    value = 0xcbf29ce484222325
    for byte in relative.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"local:track:{value:016x}"


def venue(index, device):
    """A device of party `index`'s venue, as tvload.c numbers them: each party a network of its own."""
    return f"127.{100 + index // 250}.{index % 250}.{device}"


def silent_library(folder, prefix, seconds):
    """A music folder with a song to play and one to like, silent and `seconds` long: longer than a party's whole run
    (a demo song ends within 35 s, and the liked song must stay queued). (folder, [playing uri, liked uri])."""
    library = os.path.join(folder, "library")
    os.makedirs(library, exist_ok=True)
    names = [f"{prefix}-playing.wav", f"{prefix}-liked.wav"]
    for name in names:
        write_silence(os.path.join(library, name), seconds)
    return library, [local_uri(name) for name in names]


def hosted_party(port, index, uris):
    """A party on the local provider with `uris` queued (by two guests) and its TV registered: (id, host token,
    monitor token). The host's phone, the guests and the TV are addresses of the party's own network
    (X-Forwarded-For, the instances trust 127.0.0.1): party creation is limited per address and network."""
    party = call(port, "POST", "/api/party", {"provider": "local"}, source=venue(index, 250))
    base, host = f"/api/party/{party['id']}", {"Authorization": "Bearer " + party["hostToken"]}
    for number, uri in enumerate(uris):
        call(port, "POST", f"{base}/track/addToPlaylist", {"uri": uri, "deviceId": f"adder-{number}"}, source=venue(index, 201 + number))
    monitor = call(port, "PUT", f"{base}/device", {"deviceId": "tv", "kind": "monitor"}, headers=host, source=venue(index, 1))["monitorToken"]
    return party["id"], party["hostToken"], monitor


def hosted_parties(port, count, uris):
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda index: hosted_party(port, index, uris), range(count)))


def hosted_run(arguments, client, port, folder, uris, song_ms, parties=None, seconds=None, streams=HOSTED_STREAMS):
    """500 parties on `port` (an instance, or nginx before three; or `parties` made before), then tvload.c: the TVs
    report, the guests' streams stay open, the likes arrive; the songs start while the TVs already report (a TV is on
    before its party's music starts, so no party's TV is silent at its start). Returns tvload's figures and the
    parties still playing after."""
    seconds = seconds or arguments.hosted_seconds
    parties = parties or hosted_parties(port, HOSTED_PARTIES, uris)
    listing = os.path.join(folder, "parties")
    with open(listing, "w") as file:
        file.writelines(f"{party_id} {monitor}\n" for party_id, _, monitor in parties)
    process = subprocess.Popen([client, str(port), listing, str(seconds), str(HOSTED_LIKES), uris[1], str(streams), str(song_ms)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = process.stdout.readline().split()
        if not ready or ready[0] != "ready":
            raise SystemExit("tvload did not open its streams")

        def start(numbered):
            index, (party_id, host_token, _) = numbered
            call(port, "POST", f"/api/party/{party_id}/track/start", headers={"Authorization": "Bearer " + host_token},
                 source=venue(index, 250))

        # Every TV reports within its first second: a party made before its instance restarted has no connected TV
        # until then, and its start would be refused (409).
        time.sleep(2)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(start, enumerate(parties)))
        time.sleep(3)
        process.stdin.write("go\n")
        process.stdin.flush()
        fields = process.stdout.readline().split()
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if len(fields) % 2:
        raise SystemExit("tvload printed no figures")
    figures = dict(zip(fields[::2], fields[1::2]))

    def playing(party):
        current = call(port, "GET", f"/api/party/{party[0]}/track/current")
        return current["state"] == "playing" and current.get("track", {}).get("uri") == uris[0]

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        figures["playing"] = sum(pool.map(playing, parties))
    return figures


def other_statuses(statuses, expected):
    """tvload's "STATUS:COUNT,…" less the expected status: "none", or "503: 4, 429: 2"."""
    others = [item.replace(":", ": ") for item in statuses.split(",") if item != "-" and item.split(":")[0] != expected]
    return ", ".join(others) or "none"


def hosted_part(arguments, postgres, client, folder):
    """The hosted case: 500 parties, each with a TV reporting its position once a second (the 500 reports spread evenly
    over each second), 3 guests' event streams each and 50 likes a second over the parties, for HOSTED_SECONDS, on one
    SQLite instance, one PostgreSQL instance and three PostgreSQL instances behind nginx (everything through nginx)."""
    seconds = arguments.hosted_seconds
    song_seconds = seconds + 1800
    library, uris = silent_library(folder, "hosted", song_seconds)
    common = ["--library", library, "--trusted-proxy", "127.0.0.1"]
    print(f"hosted: {HOSTED_PARTIES} parties, each a TV reporting once a second ({HOSTED_PARTIES} reports/s spread evenly) "
          f"and {HOSTED_STREAMS} guests' event streams ({HOSTED_PARTIES * HOSTED_STREAMS} streams), {HOSTED_LIKES} likes/s "
          f"over the parties (a new device each), {seconds} s (tvload.c)")
    met = []

    def report(label, figures):
        reports_ok, answered = int(figures["reports_ok"]), int(figures["reports_answered"])
        refused = answered - reports_ok + int(figures["reports_unanswered"])
        met.append((label, float(figures["reports_p99"]) <= HOSTED_P99_MS and refused == 0))
        print(f"  {label}: reports answered {answered / seconds:.1f}/s of {int(figures['reports_due']) / seconds:.1f}/s due, "
              f"p50 {float(figures['reports_p50']):.1f} ms, p99 {float(figures['reports_p99']):.1f} ms, "
              f"max {float(figures['reports_max']):.1f} ms; other than 204: {other_statuses(figures['reports_statuses'], '204')}; "
              f"not answered {figures['reports_unanswered']}")
        print(f"    likes {int(figures['likes_answered'])} answered of {figures['likes_due']}, p99 {float(figures['likes_p99']):.1f} ms, "
              f"other than 200: {other_statuses(figures['likes_statuses'], '200')}, not answered {figures['likes_unanswered']}; "
              f"streams connected at the end {figures['connected']} of {figures['streams']} ({figures['opened']} opened); "
              f"they read {int(figures['progress_events']) / seconds:.0f} progress and {int(figures['vote_events']) / seconds:.0f} "
              f"vote-updated events/s; parties still playing after {figures['playing']} of {HOSTED_PARTIES}; tvload.c used "
              f"{float(figures['cpu']) / seconds:.0%} of a core")

    instance = Instance(arguments.binary, common)
    try:
        report("one instance, SQLite", hosted_run(arguments, client, instance.port, folder, uris, song_seconds * 1000))
    finally:
        instance.stop()
    instance = Instance(arguments.binary, common + ["--database", postgres.create("hosted1")])
    try:
        report("one instance, PostgreSQL", hosted_run(arguments, client, instance.port, folder, uris, song_seconds * 1000))
    finally:
        instance.stop()
    url = postgres.create("hosted3")
    cluster = [Instance(arguments.binary, common + ["--database", url]) for _ in range(3)]
    nginx = None
    try:
        nginx = Nginx(arguments.binary, [instance.port for instance in cluster])
        report("3 instances, PostgreSQL, behind nginx", hosted_run(arguments, client, nginx.port, folder, uris, song_seconds * 1000))
    finally:
        if nginx:
            nginx.stop()
        for instance in cluster:
            instance.stop()
    print(f"  target: reports p99 <= {HOSTED_P99_MS} ms and none refused (answered other than 204 or not at all): "
          + "; ".join(f"{label} {'met' if ok else 'NOT met'}" for label, ok in met))


PRUNING_PARTIES, PRUNING_BACKLOG, KEPT_EVENTS, KEPT_SECONDS = 2000, 750, 1000, 15 * 60  # EventLog's keptEvents, keptFor


def pruning_part(arguments, postgres, client, folder):
    """The event log's cleanup under load: PRUNING_PARTIES (2,000) parties, each with a TV reporting once a second and
    a guest's stream, 50 likes a second over them, on one PostgreSQL instance for --pruning-minutes (30). The log
    starts with a backlog written while the instance is stopped: each party 1,750 events from an hour ago (3.5 M rows,
    of which 1.5 M are past what a party keeps: its newest 1,000 and the last 15 minutes). Once a minute: the log's
    rows and the rows past what the parties keep. At the end, every report and like answered other than 204 / 200."""
    seconds = arguments.pruning_minutes * 60
    library, uris = silent_library(folder, "pruning", seconds + 1800)
    url = postgres.create("pruning")
    common = ["--library", library, "--trusted-proxy", "127.0.0.1", "--database", url, "--max-parties", "40000"]
    instance = Instance(arguments.binary, common)
    try:
        parties = hosted_parties(instance.port, arguments.pruning_parties, uris)
    finally:
        instance.stop()
    hour_ago = time.time() - 3600
    postgres.sql(f"""
        INSERT INTO party_events (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
        SELECT p.id, p.last_event_seq + g, 'vote-updated', '{{}}', NULL, NULL, {hour_ago} + g * 0.001
        FROM parties p, generate_series(1, {KEPT_EVENTS + PRUNING_BACKLOG}) g;
        UPDATE parties SET last_event_seq = last_event_seq + {KEPT_EVENTS + PRUNING_BACKLOG};
        ANALYZE party_events""", url)

    def counts():
        return postgres.sql(f"""
            SELECT (SELECT count(*) FROM party_events) || ' ' || (SELECT count(*) FROM party_events e JOIN parties p
            ON p.id = e.party_id WHERE e.created_at < extract(epoch FROM now()) - {KEPT_SECONDS}
            AND e.seq <= p.last_event_seq - {KEPT_EVENTS})""", url).split()

    rows, past = counts()
    print(f"pruning: {arguments.pruning_parties} parties on one PostgreSQL instance, each a TV reporting once a second and a guest's "
          f"stream, {HOSTED_LIKES} likes/s over the parties, {arguments.pruning_minutes} min; the log starts with {int(rows):,} "
          f"rows, {int(past):,} of them past what the parties keep (their newest {KEPT_EVENTS:,} and the last "
          f"{KEPT_SECONDS // 60} min)")
    samples, done = [], threading.Event()

    def sample():
        started = time.monotonic()
        while not done.wait(60):
            rows, past = counts()
            samples.append((int(rows), int(past)))
            print(f"  minute {round((time.monotonic() - started) / 60):2}: {int(rows):>9,} rows, {int(past):>9,} past what "
                  f"the parties keep", flush=True)

    instance = Instance(arguments.binary, common)
    sampler = threading.Thread(target=sample)
    try:
        sampler.start()
        figures = hosted_run(arguments, client, instance.port, folder, uris, (seconds + 1800) * 1000, parties=parties,
                             seconds=seconds, streams=1)
    finally:
        done.set()
        sampler.join()
        instance.stop()
    refused = {kind: other_statuses(figures[f"{kind}_statuses"], status) for kind, status in (("reports", "204"), ("likes", "200"))}
    print(f"  reports answered {int(figures['reports_answered']):,} of {int(figures['reports_due']):,}, p99 "
          f"{float(figures['reports_p99']):.1f} ms, other than 204: {refused['reports']}, not answered "
          f"{figures['reports_unanswered']}; likes answered {int(figures['likes_answered']):,} of {figures['likes_due']}, "
          f"other than 200: {refused['likes']}, not answered {figures['likes_unanswered']}; streams connected at the end "
          f"{figures['connected']} of {figures['streams']}; parties still playing {figures['playing']} of {arguments.pruning_parties}")
    late = samples[len(samples) // 2:]
    print(f"  the log over the second half: {min(r for r, _ in late):,}-{max(r for r, _ in late):,} rows, at most "
          f"{max(p for _, p in late):,} past what the parties keep (target: bounded, no 503)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--subscribers", type=int, default=2000)
    parser.add_argument("--big", type=int, default=10000, help="a second fan-out at this many subscribers (0: skip)")
    parser.add_argument("--fanout-rounds", type=int, default=3)
    parser.add_argument("--instance-threads", type=int, default=0,
                        help="--threads of the three instances of the fan-out, likes and reports (0: the server's default)")
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--kill-runs", type=int, default=20)
    parser.add_argument("--kill-subscribers", type=int, default=20, help="streams through nginx in each kill run")
    parser.add_argument("--like-rounds", type=int, default=3)
    parser.add_argument("--hosted-seconds", type=int, default=200, help="how long the hosted part runs on each configuration")
    parser.add_argument("--pruning-minutes", type=int, default=30, help="how long the pruning part runs")
    parser.add_argument("--pruning-parties", type=int, default=PRUNING_PARTIES)
    parser.add_argument("--parts", default="fanout,likes,progress,hosted,kill")
    arguments = parser.parse_args()
    parts = arguments.parts.split(",")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    tools = tempfile.mkdtemp(prefix="mv-cbt-")
    sse_client = bench.build(tools, "sseclient")
    like_client = bench.build(tools, "likeload")
    tv_client = bench.build(tools, "tvload")
    postgres = PostgreSQL()
    started = []
    try:
        print(f"2 cores shared by PostgreSQL, the instances, nginx and the load generators; PostgreSQL 15 and SQLite "
              f"each sync a commit before it is acknowledged (fsync on; synchronous=FULL), as they run in production")
        if {"fanout", "likes", "progress"} & set(parts):
            single = Instance(arguments.binary, [])
            threads = ["--threads", str(arguments.instance_threads)] if arguments.instance_threads else []
            cluster = [Instance(arguments.binary, ["--database", postgres.url] + threads) for _ in range(3)]
            started = [single] + cluster
            single_party, cluster_party = new_party(single.port), new_party(cluster[0].port)

            if "fanout" in parts:
                fanout_part(arguments, sse_client, single, cluster, single_party, cluster_party, tools)

            if "likes" in parts:
                likes_part(arguments, postgres, like_client, single)
            if "progress" in parts:
                progress_part(arguments, postgres)
            print(f"pg_notification_queue_usage() after the run: {postgres.sql('SELECT pg_notification_queue_usage()')}")
            for instance in started:
                instance.stop()
            started = []

        if "hosted" in parts:
            # Its own instances, once the others are gone: the idle ones' once-a-second work would be in its figures.
            hosted_part(arguments, postgres, tv_client, tools)

        if "pruning" in parts:
            pruning_part(arguments, postgres, tv_client, tools)

        if "kill" in parts and arguments.kill_runs > 0:
            total_acknowledged = total_lost = total_problems = 0
            resumes = []
            for run in range(arguments.kill_runs):
                acknowledged, lost, times, problems = kill_run(run, arguments.binary, postgres, like_client,
                                                               arguments.kill_subscribers, storm_seconds=3, kill_after=1.0)
                total_acknowledged += acknowledged
                total_lost += lost
                total_problems += problems
                resumes += times
                print(f"  kill -9 run {run + 1:2}: {acknowledged:5} likes acknowledged, {lost} lost; streams resumed "
                      f"p50 {percentile(times, 0.5) * 1000:6.0f} ms, max {max(times) * 1000:6.0f} ms; "
                      f"{problems} streams with a gap, a repeat or short of the newest id")
            print(f"kill -9 of the party's instance mid-storm through nginx, {arguments.kill_runs} runs x "
                  f"{arguments.kill_subscribers} streams:")
            print(f"  acknowledged and lost: {total_lost} of {total_acknowledged}   (target 0)")
            print(f"  streams resumed on another instance: p50 {percentile(resumes, 0.5) * 1000:.0f} ms, "
                  f"p99 {percentile(resumes, 0.99) * 1000:.0f} ms   (target p99 <= 5000 ms)")
            print(f"  streams with a gap, a repeat or short of the log: {total_problems}   (target 0)")
            print(f"pg_notification_queue_usage() after the kill runs: {postgres.sql('SELECT pg_notification_queue_usage()')}")
    finally:
        for instance in started:
            instance.stop()
        postgres.stop()
        shutil.rmtree(tools, ignore_errors=True)


if __name__ == "__main__":
    main()
