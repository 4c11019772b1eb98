"""The TV page in an older real engine: QtWebEngine 5.15 (Chromium 87), as Debian ships it, offscreen. It pairs by
its code, plays a demo song and shows the queue, with no console error. The syntax check (.ci/check-js-syntax.sh)
holds the pages to Chromium 69 / Safari 12; this proves they run in an engine older than the suite's Chromium."""
import json, os, re, subprocess, time

from conftest import ROOT, SCREENSHOTS

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "qtwebengine_driver.py")


class OldEngine:
    def __init__(self):
        self.process = subprocess.Popen(["/usr/bin/python3", DRIVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)

    def send(self, command):
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the QtWebEngine driver ended"
        return json.loads(line)

    def eval(self, expression):
        return self.send({"eval": expression})["value"]

    def until(self, expression, message, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.25)
        raise AssertionError(f"{message}: not within {timeout} s")

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def test_the_tv_page_pairs_plays_and_shows_the_queue_in_qtwebengine(server):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    engine = OldEngine()
    try:
        engine.send({"open": server.base + "/tv"})
        user_agent = engine.eval("navigator.userAgent")
        assert re.search(r"Chrome/87\.", user_agent), user_agent
        code = engine.until("""(function () { var node = document.getElementById('pair-code');
            var text = node ? node.textContent : ''; return /^\\d{3} \\d{3}$/.test(text) ? text : null; })()""",
                            "the TV shows a pairing code")
        server.api("POST", f"/api/party/{party['id']}/tv/pair", {"code": code}, auth=party["hostPin"])
        engine.until("document.getElementById('stage').offsetParent !== null", "the paired TV shows the stage")

        for uri in ("demo:track:3", "demo:track:5", "demo:track:7"):
            server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": uri, "deviceId": "guest-" + uri})
        engine.until("(function () { var audio = document.querySelector('audio'); return audio && audio.currentTime > 1; })()",
                     "the demo song plays in the page")
        current = server.api("GET", f"/api/party/{party['id']}/track/current")
        assert current["state"] == "playing" and current["deviceActive"] is True, current
        assert current["progressMs"] > 0, "the TV reports its position"
        title = current["track"]["name"]
        engine.until("document.getElementById('stage').textContent.indexOf(%s) >= 0" % json.dumps(title),
                     "now playing shows the song")
        waiting = [entry["track"]["name"] if "track" in entry else entry["name"]
                   for entry in server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"] if not entry["isCurrentlyPlaying"]]
        assert waiting, "songs wait"
        rows = engine.until("""(function () { var rows = document.querySelectorAll('#queue-list li');
            return rows.length ? Array.prototype.map.call(rows, function (row) { return row.textContent; }) : null; })()""",
                            "the TV shows the queue")
        assert any(waiting[0] in row for row in rows), (waiting, rows)

        os.makedirs(SCREENSHOTS, exist_ok=True)
        assert engine.send({"screenshot": os.path.join(SCREENSHOTS, "tv-qtwebengine-1080.png")})["saved"]
        errors = [message for message in engine.send({"console": True})["messages"] if message["level"] == "error"]
        assert errors == [], errors
    finally:
        engine.close()
