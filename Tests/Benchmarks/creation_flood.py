#!/usr/bin/env python3
"""What a party-creation flood costs guests in time: prints, asserts nothing.

  swift build && python3 Tests/Benchmarks/creation_flood.py [--binary .build/debug/musicvoting] [--likes 40]

Median like round trip of guests (each from a loopback address of its own) while the server is idle, then while 30
addresses create parties about 110 times a second. The end-to-end test CreationFloodAttackTests checks the
behaviour (the flood is refused, every guest is answered); a latency ratio measured on shared cores belongs here.
"""
import argparse, http.client, json, os, shutil, statistics, subprocess, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def call(port, method, path, body=None, source="127.0.0.1"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    connection.request(method, path, body=None if body is None else json.dumps(body),
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def like_round_trips(port, party, count, subnet):
    times = []
    for index in range(count):
        started = time.perf_counter()
        call(port, "POST", f"/api/party/{party['id']}/track/vote", {"uri": "demo:track:1", "deviceId": f"guest-{subnet}-{index}"},
             source=f"127.0.{subnet}.{index + 1}")
        times.append((time.perf_counter() - started) * 1000)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/musicvoting"))
    parser.add_argument("--likes", type=int, default=40)
    arguments = parser.parse_args()
    data = tempfile.mkdtemp(prefix="mv-bench-flood-")
    process = subprocess.Popen([arguments.binary, "--host", "127.0.0.1", "--port", "0", "--data", data],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(process.stdout.readline().strip().rsplit(":", 1)[1])
        _, body = call(port, "POST", "/api/party", {"provider": "demo"}, source="127.0.9.1")
        party = json.loads(body)
        call(port, "POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:1", "deviceId": "g"})
        idle = like_round_trips(port, party, arguments.likes, 10)
        stop = threading.Event()
        statuses = {}

        def flood():
            index = 0
            while not stop.is_set():
                status, _ = call(port, "POST", "/api/party", {"provider": "demo"}, source=f"127.0.7.{index % 30 + 1}")
                statuses[status] = statuses.get(status, 0) + 1
                index += 1
                time.sleep(0.009)
        thread = threading.Thread(target=flood)
        thread.start()
        time.sleep(1)
        during = like_round_trips(port, party, arguments.likes, 11)
        stop.set()
        thread.join()
        print(f"creation flood: {statuses}")
        print(f"like round trip median: {statistics.median(idle):.2f} ms idle, {statistics.median(during):.2f} ms during the flood "
              f"(ratio {statistics.median(during) / statistics.median(idle):.2f})")
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
