"""Browser end-to-end tests: Debian's chromium + chromium-driver over WebDriver (python3-selenium).

The real `musicvoting` binary runs on 127.0.0.1, port 0, with a fresh data folder per test, serving the pages and
assets built into it, as users get them (a test that needs the checkout's files says why and passes resources=True).
Screenshots go to test-output/screenshots/.
"""
import json, os, random, shutil, socket, subprocess, tempfile, time, urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("MUSICVOTING_BINARY", os.path.join(ROOT, ".build", "debug", "musicvoting"))
SCREENSHOTS = os.path.join(ROOT, "test-output", "screenshots")
PHONE = (390, 844)
TV = (1920, 1080)


class Server:
    def __init__(self, data=None, arguments=(), resources=False):
        self.data = data or tempfile.mkdtemp(prefix="mv-browser-")
        self.log = open(self.data + ".log", "w")
        override = ["--resources", ROOT] if resources else []
        self.process = subprocess.Popen(
            [BINARY, "--host", "127.0.0.1", "--port", "0", "--data", self.data, *override, *arguments],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("MusicVoting listening on"), line
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def api(self, method, path, body=None, auth=None):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        if auth:
            request.add_header("Authorization", "Bearer " + auth)
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return json.loads(raw) if raw else None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


def make_browser(size, language="de-DE", autoplay=True, motion=False):
    options = webdriver.ChromeOptions()
    # --disable-gpu: without a GPU, headless Chromium emulates one in software (SwiftShader) and composites every frame
    # through it; its own software compositor draws the same pages for about a fifth less of the suite's CPU.
    arguments = ["--headless=new", "--no-sandbox", "--mute-audio", "--disable-gpu",
                 f"--window-size={size[0]},{size[1] + 160}", f"--lang={language}"]
    # Chromium shares memory between its processes in /dev/shm; where that is a container's small default (64 MiB)
    # it must use files in /tmp instead, which cost more of the kernel's time.
    if shutil.disk_usage("/dev/shm").total < 1 << 30:
        arguments.append("--disable-dev-shm-usage")
    # Kiosk TVs run with this flag (docs/hosting.md); without it the monitor must offer its Start button.
    arguments.append("--autoplay-policy=no-user-gesture-required" if autoplay else "--autoplay-policy=document-user-activation-required")
    # The browsers ask for reduced motion, a setting every page honours: a playing song's bar then steps once a second
    # instead of gliding. Drawn in software, the glide is 60 frames a second for as long as a song plays, and took
    # several times the CPU of an idle page (a guest's phone about 10 % of a core against 1.5 %). The glide itself
    # is tested in a browser that asks for motion (motion=True).
    if not motion:
        arguments.append("--force-prefers-reduced-motion")
    for argument in arguments:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver", port=driver_port()), options=options)
    driver.set_page_load_timeout(20)
    fit_viewport(driver, size)
    return driver


def driver_port():
    """A free port for chromedriver below the kernel's ephemeral range. Selenium's own pick is a free ephemeral port,
    closed again before chromedriver binds it; the Swift tests running beside the browsers open thousands of loopback
    connections, and one of them took that port as its own first (chromedriver then exits with status 1)."""
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    while True:
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


def fit_viewport(driver, size):
    """The exact viewport (a window's size includes the browser's own frame), for the tab the driver is in."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600})


@pytest.fixture
def server():
    instance = Server()
    yield instance
    instance.stop()
    shutil.rmtree(instance.data, ignore_errors=True)


# Chromium takes about a second of both cores to start, as long as many a test's own steps: each test worker keeps
# the browsers its tests have quit and hands them out again, whatever the screen size (each hand-out sets the
# viewport). A kept browser is as good as a new one for the next test: its server listens on a new port, so its
# storage and cache are another origin's; a fresh tab replaces the old one, so no history or back-forward cache
# carries over; its console log is read empty. A browser whose test failed, changed it through DevTools (blocked
# URLs, offline, scripts) or left other windows open is quit instead. A worker keeps at most KEPT, enough for the
# largest test's browsers in each of the languages and autoplay settings: a kept browser waits minimized on a blank
# tab for about 0.1 % of a core (and some 200 MB), where starting one takes over a second of a core.
KEPT = 8
_kept = []  # (key, driver, tracked), the most recently returned last
_REUSABLE_CDP = {"Emulation.setDeviceMetricsOverride", "Page.captureScreenshot", "Browser.getWindowForTarget",
                 "Browser.setWindowBounds"}


def _window_state(driver, state):
    """A kept browser waits minimized: a shown window, even an empty one, draws frames and took about three times the
    CPU of a minimized one while it waited; it is shown again before its next test."""
    window = driver.execute_cdp_cmd("Browser.getWindowForTarget", {})["windowId"]
    driver.execute_cdp_cmd("Browser.setWindowBounds", {"windowId": window, "bounds": {"windowState": state}})


class _Tracked:
    """Marks a browser as changed when a test sends it a DevTools command beyond the viewport."""

    def __init__(self, driver):
        self.changed = False
        original = driver.execute_cdp_cmd

        def execute_cdp_cmd(command, arguments):
            if command not in _REUSABLE_CDP:
                self.changed = True
            return original(command, arguments)
        driver.execute_cdp_cmd = execute_cdp_cmd


def _checked_out(key, size):
    """A kept browser for `key` (language, autoplay, motion) at `size`, or a new one."""
    while True:
        index = next((index for index in range(len(_kept) - 1, -1, -1) if _kept[index][0] == key), None)
        if index is None:
            break
        _, driver, tracked = _kept.pop(index)
        try:
            _window_state(driver, "normal")
            fit_viewport(driver, size)
            driver.get_log("browser")
            return driver, tracked
        except Exception:
            _quit(driver)
    driver = make_browser(size, *key)
    return driver, _Tracked(driver)


def _returned(key, driver, tracked, test_failed):
    try:
        if test_failed or tracked.changed or len(driver.window_handles) != 1:
            raise RuntimeError("not as new")
        old = driver.current_window_handle
        driver.switch_to.new_window("tab")
        fresh = driver.current_window_handle
        driver.switch_to.window(old)
        driver.close()
        driver.switch_to.window(fresh)
        driver.get_log("browser")
        _window_state(driver, "minimized")
        _kept.append((key, driver, tracked))
        while len(_kept) > KEPT:
            _quit(_kept.pop(0)[1])
    except Exception:
        _quit(driver)


def _quit(driver):
    try:
        driver.quit()
    except Exception:
        pass


# The longest tests start first, so that none of them is left running alone at the end of a run on several workers.
# The order only affects the time: a test missing here runs after these, in its file's order.
LONGEST_FIRST = (
    "test_host_and_screens.py::test_the_tv_pairing_screen_and_its_overlays_fit_and_read_from_the_sofa_at_every_size",
    "test_stalls.py::test_a_wifi_drop_across_a_song_end_is_reported_and_the_next_song_follows",
    "test_party.py::test_a_whole_party",
    "test_stream_refused.py::test_a_guest_without_a_live_stream_still_adds_likes_and_sees_the_queue_move",
    "test_cohosts.py::test_a_cohost_controls_the_party_without_the_hosts_own_cards_until_the_host_revokes_it",
    "test_approval.py::test_a_guests_song_waits_and_the_host_decides_it_in_german",
    "test_approval.py::test_a_guests_song_waits_and_the_host_decides_it_in_english",
    "test_crowd_veto.py::test_guests_veto_the_playing_song_and_tv_and_host_see_the_skip",
    "test_liveness.py::test_connections_dropped_at_a_network_switch_recover_without_a_reload",
    "test_stalls.py::test_an_offline_guest_sees_it_and_a_failed_like_rolls_back",
    "test_liveness.py::test_held_packets_say_why_on_every_page_and_the_pages_recover_when_released",
    "test_host_access.py::test_a_new_host_pin_from_the_host_page_locks_the_old_one_out_and_keeps_the_tv",
)


def pytest_collection_modifyitems(items):
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.rsplit("/", 1)[-1], len(rank)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        item.failed_somewhere = True


def pytest_sessionfinish(session):
    for _, driver, _ in _kept:
        _quit(driver)
    _kept.clear()


@pytest.fixture
def browsers(request):
    opened = []

    def open_browser(size=PHONE, language="de-DE", autoplay=True, motion=False):
        key = (language, autoplay, motion)
        driver, tracked = _checked_out(key, tuple(size))
        opened.append((key, driver, tracked))
        return driver

    yield open_browser
    failed = getattr(request.node, "failed_somewhere", False)
    for key, driver, tracked in opened:
        _returned(key, driver, tracked, failed)


def screenshot(driver, name):
    """The viewport as a PNG, encoded for speed rather than size (at TV sizes the default encoding took more of
    Chromium's time than the page's own checks)."""
    import base64
    os.makedirs(SCREENSHOTS, exist_ok=True)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
    with open(os.path.join(SCREENSHOTS, name + ".png"), "wb") as file:
        file.write(base64.b64decode(shot["data"]))


AXE_SCRIPT = os.path.join(ROOT, ".build", "test-python", "axe_playwright_python", "axe.min.js")


_axe_source = None


def axe_violations(driver, include=None):
    """axe-core 4 (the script shipped by the axe-playwright-python package, installed by the test command from
    .ci/pip-test.txt; never fetched at test time) run in the page: the violations as "id: target" strings. The script
    (over half a megabyte) goes into a page once; a later check of the same page runs the copy already there."""
    global _axe_source
    if _axe_source is None:
        with open(AXE_SCRIPT, encoding="utf-8") as script:
            _axe_source = script.read()
    if not driver.execute_script("return typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        driver.execute_script(_axe_source)
    context = {"include": [[include]]} if include else None
    result = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        axe.run(arguments[0] || document, {resultTypes: ['violations']}).then(r => done(r.violations.map(
            v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')))).catch(e => done(['axe failed: ' + e]));""",
        context)
    return result


def severe_console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
            and "favicon" not in entry["message"]]


def unexpected_console_errors(entries, expected):
    """The console errors left once the expected failed requests are taken out. `expected` holds (path pattern,
    status) pairs: Chromium logs a failed request as "<url> - Failed to load resource: the server responded with a
    status of <status> (...)"; only that exact shape, for a listed path and status, is excused."""
    import re
    from urllib.parse import urlparse
    left = []
    for entry in entries:
        match = re.match(r"^(\S+) - Failed to load resource: the server responded with a status of (\d+) ", entry["message"])
        if match and any(re.search(pattern, urlparse(match.group(1)).path) and int(match.group(2)) == status
                         for pattern, status in expected):
            continue
        left.append(entry)
    return left


def wait(driver, condition, timeout=15, message=""):
    """Polls `condition`; live re-renders replace rows, so stale elements just mean "look again"."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)) \
        .until(lambda _: condition(), message)


def search_for(driver, query, field="search", results="results"):
    """Types `query` into a search field as a person would and waits for its results: until then the list is
    `aria-busy` and its rows are the last query's, about to be replaced under a click."""
    from selenium.webdriver.common.by import By
    box = driver.find_element(By.ID, field)
    box.clear()
    box.send_keys(query)
    wait(driver, lambda: driver.find_element(By.ID, results).get_attribute("aria-busy") is None, message=f"results for {query}")


def type_code(driver, container, code):
    """Types a PIN or TV code into the digit boxes `[data-pin=container]` as a person would."""
    from selenium.webdriver.common.by import By
    boxes = driver.find_elements(By.CSS_SELECTOR, f'[data-pin="{container}"] input')
    assert len(boxes) == len(code), (container, len(boxes))
    boxes[0].click()
    for digit in code:
        driver.switch_to.active_element.send_keys(digit)


def visible_text(driver):
    """What a person sees on the page (hidden elements and the strings table excluded)."""
    return driver.execute_script("return document.body.innerText")


def reporting_tv(server, party, device="tv-api"):
    """A TV registered through the API that reports once a second, as the monitor page does (a TV silent for
    8 s is gone): the position the server says, audible unless the host paused. The thread ends with the server."""
    import threading
    token = server.api("PUT", f"/api/party/{party['id']}/device", {"deviceId": device, "kind": "monitor"},
                       auth=party["hostPin"])["monitorToken"]

    def report():
        while True:
            try:
                current = server.api("GET", f"/api/party/{party['id']}/track/current")
                server.api("POST", f"/api/party/{party['id']}/track/progress",
                           {"position": current["progressMs"], "duration": (current.get("track") or {}).get("duration_ms", 0),
                            "paused": current["state"] in ("paused", "idle")}, auth=token)
            except Exception:
                return
            time.sleep(1)

    threading.Thread(target=report, daemon=True).start()
    return token


def open_paired_tv(driver, url):
    """Opens a TV page that registers with the host PIN (`#party=…&hostPin=…`) and waits for its stage. A later TV of a
    party whose TV is connected asks before it takes over: the test says yes."""
    from selenium.webdriver.common.by import By
    driver.get(url)

    def ready():
        for answer in driver.find_elements(By.CSS_SELECTOR, "dialog[open] [data-answer=yes]"):
            answer.click()
            return False
        return driver.find_element(By.ID, "stage").is_displayed()
    wait(driver, ready, timeout=15, message="the TV shows the party")


# Songs far longer than any test: a test about what happens while a song plays never races the song's end, however
# loaded the machine (the demo's songs last about 30 s).
LONG_SONGS = ("Sonnenaufgang am Kanal", "Neon Boulevard", "Tanz auf dem Dach", "Paper Planes at Noon")


@pytest.fixture(scope="session")
def long_library(tmp_path_factory):
    """A music folder of LONG_SONGS, each 20 minutes of a quiet tone, made by Debian's ffmpeg (MP3, 16 kbit/s): ten
    seconds encoded once, then repeated 120 times by copying its frames (encoding 20 minutes four times took half a
    minute of both cores)."""
    folder = tmp_path_factory.mktemp("long-library")
    for index, title in enumerate(LONG_SONGS):
        piece = str(folder / f"piece-{index + 1}.mp3")
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi",
                        "-i", f"sine=frequency={330 + 55 * index}:duration=10", "-ac", "1", "-b:a", "16k", piece],
                       check=True)
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-stream_loop", "119", "-i", piece, "-c", "copy",
                        "-metadata", f"title={title}", "-metadata", "artist=Die Langspieler",
                        str(folder / f"{index + 1:02d}.mp3")], check=True)
        os.remove(piece)
    return str(folder)


@pytest.fixture
def long_server(long_library):
    """A server whose `local` provider holds LONG_SONGS; `long_song_uri` names them by their number (1-based)."""
    instance = Server(arguments=("--library", long_library))
    yield instance
    instance.stop()
    shutil.rmtree(instance.data, ignore_errors=True)


def long_song_uri(server, party, number):
    """The uri of LONG_SONGS[number - 1] in `party` (a `local` party of `long_server`)."""
    title = LONG_SONGS[number - 1]
    from urllib.parse import quote
    found = server.api("GET", f"/api/party/{party['id']}/track/search?q={quote(title)}")["tracks"]["items"]
    return next(track["uri"] for track in found if track["name"] == title)


def uri_of(server, party, number):
    """Song `number` of the demo catalog, or of the long songs in a `local` party."""
    return long_song_uri(server, party, number) if party.get("provider") == "local" else f"demo:track:{number}"


def add(server, party, number, device):
    """Song `number` (`uri_of`) added by the phone `device`, through the API."""
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": uri_of(server, party, number), "deviceId": device})


def name_of(server, party, number):
    """The name of song `number` (`uri_of`) as the party's queue shows it."""
    queue = server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"]
    return next(entry["name"] for entry in queue if entry["uri"] == uri_of(server, party, number))
