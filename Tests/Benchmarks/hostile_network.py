#!/usr/bin/env python3
"""One attacker holding 250 addresses of the party's own network and making up device ids, next to 200 real guests
behind one address of that network, the host (its page's token) and the TV (its monitor token), on the real binary
behind a trusted proxy (this script). Prints what the attacker got and how long anybody else was refused; asserts
nothing. The figures go into the security notes, not into a test.

  swift build -c release && python3 Tests/Benchmarks/hostile_network.py [--minutes 10] [--binary .build/release/musicvoting]
      [--guests-address 203.0.113.7]   # the real guests behind an address of another network (a venue's NAT)

The party has vetoShare 0.4 and fair order on. Real guests arrive over the first two minutes; 20 of them like a
song every ~15 s and add one every ~90 s; none vetoes, so every crowd skip is the attacker's alone. The attacker
sends as fast as it may (about 40 requests a second): vetoes of the playing song, adds, likes of its own songs,
each from one of its 250 addresses with a new device id. The TV reports once a second and ends each song.
"""
import argparse, json, os, random, shutil, subprocess, tempfile, threading, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NETWORK = "192.168.77."
REAL_ADDRESS, HOST_ADDRESS, TV_ADDRESS = NETWORK + "200", NETWORK + "10", NETWORK + "20"
ATTACKER_ADDRESSES = [NETWORK + str(n) for n in range(1, 256) if n not in (10, 20, 200)][:250]
DEMO_SONGS = [f"demo:track:{n}" for n in range(1, 25)]


class Client:
    def __init__(self, port):
        self.port = port

    def call(self, method, path, address, body=None, auth=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        request.add_header("X-Forwarded-For", address)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        if auth:
            request.add_header("Authorization", "Bearer " + auth)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                return response.status, (json.loads(raw) if raw else None)
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw)
            except ValueError:
                return error.code, None
        except OSError:
            return 0, None


class Refusals:
    """The longest stretch each actor was refused (from its first refused request to its next answered one)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.since = {}
        self.longest = {}
        self.count = {}

    def note(self, actor, ok, now):
        with self.lock:
            if ok:
                started = self.since.pop(actor, None)
                if started is not None:
                    self.longest[actor] = max(self.longest.get(actor, 0), now - started)
            else:
                self.since.setdefault(actor, now)
                self.count[actor] = self.count.get(actor, 0) + 1

    def worst(self, prefix, now):
        with self.lock:
            values = [self.longest.get(actor, 0) for actor in set(self.longest) | set(self.since) if actor.startswith(prefix)]
            values += [now - started for actor, started in self.since.items() if actor.startswith(prefix)]
            refused = sum(count for actor, count in self.count.items() if actor.startswith(prefix))
            return (max(values) if values else 0.0), refused


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "musicvoting"))
    parser.add_argument("--guests-address", default=NETWORK + "200")
    arguments = parser.parse_args()
    global REAL_ADDRESS
    REAL_ADDRESS = arguments.guests_address
    data = tempfile.mkdtemp(prefix="mv-hostile-")
    server = subprocess.Popen([arguments.binary, "--host", "127.0.0.1", "--port", "0", "--data", data, "--trusted-proxy", "127.0.0.1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        client = Client(int(line.strip().rsplit(":", 1)[1]))
        run(client, arguments.minutes * 60)
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(data, ignore_errors=True)


def run(client, seconds):
    status, party = client.call("POST", "/api/party", HOST_ADDRESS, {"provider": "demo", "vetoShare": 0.4, "fairQueue": True})
    assert status == 201, party
    base, token = f"/api/party/{party['id']}", party["hostToken"]
    status, device = client.call("PUT", f"{base}/device", TV_ADDRESS, {"deviceId": "tv", "kind": "monitor"}, auth=token)
    monitor = device["monitorToken"]
    refusals, stop, started = Refusals(), threading.Event(), time.monotonic()
    real_songs, attacker_songs, skips, ended = set(), set(), [0], [0]
    lock = threading.Lock()

    def tv():
        last = None
        while not stop.is_set():
            status, current = client.call("GET", f"{base}/track/current", TV_ADDRESS)
            track = (current or {}).get("track")
            if track:
                position, duration = current["progressMs"], track["duration_ms"]
                entry = track.get("id")
                if last and last[0] != entry and last[1] < last[2] - 3000 and not last[3]:
                    skips[0] += 1  # the song changed before its end and nobody ended it: a crowd skip
                ending = position >= duration - 500
                status, _ = client.call("POST", f"{base}/track/progress", TV_ADDRESS,
                                        {"position": min(position, duration), "duration": duration, "paused": False}, auth=monitor)
                refusals.note("tv", status < 400, time.monotonic())
                if ending:
                    status, _ = client.call("POST", f"{base}/track/next", TV_ADDRESS, {"entryId": entry}, auth=monitor)
                    refusals.note("tv", status < 400, time.monotonic())
                    ended[0] += 1
                last = (entry, position, duration, ending)
            elif status == 200:
                client.call("POST", f"{base}/track/start", HOST_ADDRESS, auth=token)
            time.sleep(1)

    def host():
        while not stop.is_set():
            status, _ = client.call("GET", f"{base}/blacklist", HOST_ADDRESS, auth=token)
            refusals.note("host", status == 200, time.monotonic())
            time.sleep(3)

    def real_guest(number):
        device = f"real-{number}"
        time.sleep(random.uniform(0, 120))
        status, _ = client.call("GET", f"/api/party/join/{party['pin']}?deviceId={device}", REAL_ADDRESS)
        refusals.note(device, status == 200, time.monotonic())
        if number >= 20:
            return
        next_add = time.monotonic() + random.uniform(5, 90)
        while not stop.is_set():
            time.sleep(random.uniform(10, 20))
            if time.monotonic() >= next_add:
                song = random.choice(DEMO_SONGS)
                status, _ = client.call("POST", f"{base}/track/addToPlaylist", REAL_ADDRESS, {"uri": song, "deviceId": device})
                if status == 200:
                    with lock:
                        real_songs.add(song)
                refusals.note(device, status in (200, 409), time.monotonic())
                next_add = time.monotonic() + random.uniform(60, 120)
            else:
                song = random.choice(DEMO_SONGS)
                status, _ = client.call("POST", f"{base}/track/vote", REAL_ADDRESS, {"uri": song, "deviceId": device, "liked": True})
                refusals.note(device, status in (200, 404), time.monotonic())

    def attacker(seed):
        randomizer, counter = random.Random(seed), 0
        while not stop.is_set():
            counter += 1
            address, device = randomizer.choice(ATTACKER_ADDRESSES), f"evil-{seed}-{counter}"
            action = randomizer.random()
            if action < 0.4:
                status, current = client.call("GET", f"{base}/track/current", address)
                uri = ((current or {}).get("track") or {}).get("uri")
                if uri:
                    client.call("POST", f"{base}/track/veto", address, {"uri": uri, "deviceId": device})
            elif action < 0.7:
                song = randomizer.choice(DEMO_SONGS)
                status, _ = client.call("POST", f"{base}/track/addToPlaylist", address, {"uri": song, "deviceId": device})
                if status == 200:
                    with lock:
                        attacker_songs.add(song)
            else:
                with lock:
                    own = list(attacker_songs)
                if own:
                    client.call("POST", f"{base}/track/vote", address, {"uri": randomizer.choice(own), "deviceId": device, "liked": True})
            time.sleep(0.1)

    threads = [threading.Thread(target=tv), threading.Thread(target=host)]
    threads += [threading.Thread(target=real_guest, args=(number,)) for number in range(200)]
    threads += [threading.Thread(target=attacker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    time.sleep(seconds)
    stop.set()
    now = time.monotonic()
    status, queue = client.call("GET", f"{base}/track/queue", HOST_ADDRESS)
    waiting = [entry["uri"] for entry in (queue or {}).get("queue", []) if not entry["isCurrentlyPlaying"]]
    with lock:
        first_real = next((index for index, uri in enumerate(waiting) if uri in real_songs and uri not in attacker_songs), None)
        attacker_ahead = sum(1 for uri in waiting[:first_real or 0] if uri in attacker_songs and uri not in real_songs)
    for actor, label in (("tv", "the TV"), ("host", "the host"), ("real-", "real guests")):
        longest, refused = refusals.worst(actor, now)
        print(f"{label}: longest refusal {longest:.1f} s, {refused} requests refused")
    print(f"songs ended by the TV: {ended[0]}; songs the crowd skipped (the attacker alone, real guests never veto): {skips[0]}")
    print(f"waiting songs: {len(waiting)}; the first real guest's song at place {None if first_real is None else first_real + 1}, "
          f"attacker songs ahead of it: {attacker_ahead}")
    print(f"run: {seconds / 60:.1f} min; real guests behind {REAL_ADDRESS}, the attacker on {NETWORK}0/24")


if __name__ == "__main__":
    main()
