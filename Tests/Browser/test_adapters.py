"""The YouTube and Spotify monitor adapters, driven against stand-ins for the vendors' browser APIs.

No test may reach the internet, so `window.YT` / `window.Spotify` are defined before the page loads
(the adapters then skip loading the vendors' scripts) and the server's Web API bases point at a
closed loopback port. What is tested is our adapter code: which calls it makes, what it reports.
"""
import os, sqlite3, time

from selenium.webdriver.common.by import By

from conftest import TV, Server, screenshot, wait

CLOSED = "http://127.0.0.1:9"

FAKE_YT = """
window.__yt = { calls: [] };
window.YT = { Player: class {
  constructor(element, options) {
    this.options = options; this.state = -1; this.time = 0; window.__yt.player = this;
    setTimeout(() => options.events.onReady({ target: this }), 0);
  }
  loadVideoById(o) { __yt.calls.push(['load', o.videoId, o.startSeconds]); this.state = 1; this.time = o.startSeconds; }
  cueVideoById(o) { __yt.calls.push(['cue', o.videoId, o.startSeconds]); this.state = 5; }
  playVideo() { __yt.calls.push(['play']); this.state = 1; }
  pauseVideo() { __yt.calls.push(['pause']); this.state = 2; }
  stopVideo() { this.state = 0; }
  seekTo(seconds) { this.time = seconds; }
  getCurrentTime() { return this.time; }
  getDuration() { return 200; }
  getPlayerState() { return this.state; }
  finish() { this.state = 0; this.options.events.onStateChange({ data: 0 }); }
} };
"""

FAKE_SPOTIFY = """
window.__sp = {};
window.Spotify = { Player: class {
  constructor(options) { this.options = options; this.listeners = {}; window.__sp.player = this; }
  addListener(name, callback) { this.listeners[name] = callback; }
  connect() {
    this.options.getOAuthToken((token) => { __sp.token = token; this.listeners.ready({ device_id: 'fake-device' }); });
    return Promise.resolve(true);
  }
  activateElement() { return Promise.resolve(); }
  emit(name, value) { this.listeners[name]?.(value); }
} };
"""


def party_with_queue(arguments, provider, uris, tokens=None):
    """A party whose queue is written straight into the database (the real services are out of reach)."""
    first = Server(arguments=arguments)
    party = first.api("POST", "/api/party", {"provider": provider})
    first.stop()
    database = sqlite3.connect(os.path.join(first.data, "musicvoting.sqlite"))
    for index, uri in enumerate(uris):
        database.execute(
            "INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, image_url, duration_ms, added_at,"
            " added_by, autofilled) VALUES (?, ?, ?, ?, 'Artist', 'Album', NULL, 200000, ?, 'g', 0)",
            (party["id"], uri, uri.rsplit(":", 1)[1], f"Song {index + 1}", time.time() + index))
    if tokens:
        database.execute("INSERT INTO provider_tokens (party_id, provider, access_token, refresh_token, expires_at) VALUES (?, ?, ?, ?, ?)",
                         (party["id"], provider, tokens, "refresh", time.time() + 3600))
    database.commit()
    database.close()
    return Server(first.data, arguments=arguments), party


def open_monitor(browsers, server, party, fake):
    monitor = browsers(TV)
    monitor.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": fake})
    monitor.get(f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    wait(monitor, lambda: monitor.find_element(By.ID, "stage").is_displayed())
    return monitor


def test_the_youtube_adapter_plays_what_the_server_says_and_reports_the_end(browsers):
    server, party = party_with_queue(("--youtube-key", "k", "--youtube-api-base", CLOSED), "youtube",
                                     ["youtube:video:aaaaaaaaaaa", "youtube:video:bbbbbbbbbbb"])
    try:
        monitor = open_monitor(browsers, server, party, FAKE_YT)
        assert monitor.find_element(By.ID, "video").is_displayed(), "the video shows on the TV"
        server.api("POST", f"/api/party/{party['id']}/track/start", auth=party["hostPin"])
        wait(monitor, lambda: monitor.execute_script("return __yt.calls.some(c => c[0] === 'load' && c[1] === 'aaaaaaaaaaa')"),
             message="the first video is loaded and played")
        wait(monitor, lambda: monitor.find_element(By.ID, "now-title").text == "Song 1")
        time.sleep(3.1)  # past R20's 3 s window
        monitor.execute_script("__yt.player.finish()")
        wait(monitor, lambda: monitor.execute_script("return __yt.calls.some(c => c[0] === 'load' && c[1] === 'bbbbbbbbbbb')"),
             message="the end of the video advances to the next one")
        current = server.api("GET", f"/api/party/{party['id']}/track/current")
        assert current["track"]["uri"] == "youtube:video:bbbbbbbbbbb"
        screenshot(monitor, "monitor-youtube-adapter-tv")
    finally:
        server.stop()


def test_the_spotify_adapter_registers_its_device_and_a_refused_play_is_shown(browsers):
    server, party = party_with_queue(("--spotify-client-id", "c", "--spotify-api-base", CLOSED + "/v1",
                                      "--spotify-accounts-base", CLOSED), "spotify", ["spotify:track:abc", "spotify:track:def"],
                                     tokens="access-token-1")
    try:
        monitor = open_monitor(browsers, server, party, FAKE_SPOTIFY)
        wait(monitor, lambda: monitor.execute_script("return window.__sp.token") == "access-token-1",
             message="the SDK gets its token from our endpoint with the monitor token (R28)")
        time.sleep(0.5)
        server.api("POST", f"/api/party/{party['id']}/track/start", auth=party["hostPin"])
        # The Web API is unreachable: the server's play command fails, and the TV says so instead of staying silent.
        wait(monitor, lambda: monitor.find_element(By.ID, "monitor-notice").is_displayed(), message="failure shown on the TV")
        assert "Musikdienst" in monitor.find_element(By.ID, "monitor-notice").text
        time.sleep(3.1)
        monitor.execute_script("""
            const player = __sp.player;
            player.emit('player_state_changed', { paused: false, position: 1000, duration: 200000,
              track_window: { current_track: { uri: 'spotify:track:abc' }, previous_tracks: [] } });
            player.emit('player_state_changed', { paused: true, position: 0, duration: 200000,
              track_window: { current_track: { uri: 'spotify:track:zzz' }, previous_tracks: [{ uri: 'spotify:track:abc' }] } });""")
        wait(monitor, lambda: server.api("GET", f"/api/party/{party['id']}/track/current").get("track", {}).get("uri") == "spotify:track:def",
             message="the SDK's end of track advances the queue")
        screenshot(monitor, "monitor-spotify-adapter-tv")
    finally:
        server.stop()
