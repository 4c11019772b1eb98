"""R15: a queue that runs dry while playing is refilled from the provider's charts; when the charts fail, the TV says
`Warteschlange ist leer` instead of going quiet without a word. The YouTube Data API is a local fake whose every
answer is a quota error; the IFrame player is the stand-in from test_adapters (no test reaches the internet)."""
import json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By

from conftest import screenshot, visible_text, wait
from test_adapters import FAKE_YT, open_monitor, party_with_queue


class FailingYouTube:
    """Answers every Data API call with YouTube's quota error, and records the paths and queries it was asked."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.requests.append(self.path)
                body = json.dumps({"error": {"code": 403, "message": "quota", "errors": [{"reason": "quotaExceeded"}]}}).encode()
                self.send_response(403)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/youtube/v3"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def test_a_dry_queue_whose_charts_fail_shows_the_empty_queue_on_the_tv(browsers):
    youtube = FailingYouTube()
    server, party = party_with_queue(("--youtube-key", "k", "--youtube-api-base", youtube.base), "youtube",
                                     ["youtube:video:aaaaaaaaaaa"])
    try:
        monitor = open_monitor(browsers, server, party, FAKE_YT)
        server.api("POST", f"/api/party/{party['id']}/track/start", auth=party["hostPin"])
        wait(monitor, lambda: monitor.find_element(By.ID, "now-title").text == "Song 1", message="the last song plays")
        time.sleep(3.1)  # past R20's 3 s window for a song end (a lower bound: a busy machine only waits longer)
        monitor.execute_script("__yt.player.finish()")
        wait(monitor, lambda: any("chart=mostPopular" in path for path in youtube.requests),
             message="the dry queue asks the charts for more (R15)")
        wait(monitor, lambda: monitor.find_element(By.ID, "queue-empty").is_displayed(), message="the TV shows the empty queue")
        assert "Warteschlange ist leer" in visible_text(monitor)
        # The charts may be asked while the last song still plays (nothing after it): the song's end reaches the
        # server in its own time.
        current = lambda: server.api("GET", f"/api/party/{party['id']}/track/current")
        wait(monitor, lambda: current().get("track") is None, message="the server moved past the last song")
        assert server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"] == []
        screenshot(monitor, "monitor-empty-after-failed-refill-tv")
    finally:
        server.stop()
        youtube.stop()
