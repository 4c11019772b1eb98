"""Big TV screens, a host who can always get back in, no dead ends on the host page, keyboard and focus,
the page's language for server errors, and covers under any of the server's names.

TVs at 1280×720, 1920×1080, 2560×1440 and 3840×2160 (a mini-PC on a 4K TV at 100 %); phones at 360×640 and 390×844;
axe-core on every new state; screenshots in test-output/screenshots/.
"""
import re
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
from selenium.webdriver.common.keys import Keys

from conftest import axe_violations, screenshot, search_for, type_code, visible_text, wait
from test_newcomer import german_outside_server_messages, host_row, in_viewport, open_host, playing_party, waiting

TV_SIZES = ((1280, 720), (1920, 1080), (2560, 1440), (3840, 2160))
PHONE, SMALL_PHONE = (390, 844), (360, 640)


def font_px(driver, selector):
    return driver.execute_script("return parseFloat(getComputedStyle(document.querySelector(arguments[0])).fontSize)", selector)


def active(driver, attribute="id"):
    return driver.switch_to.active_element.get_attribute(attribute)


def test_the_tv_pairing_screen_and_its_overlays_fit_and_read_from_the_sofa_at_every_size(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    for width, height in TV_SIZES:
        tv = browsers((width, height), autoplay=False)
        tv.get(server.base + "/tv")
        wait(tv, lambda: re.fullmatch(r"\d{3} \d{3}", tv.find_element(By.ID, "pair-code").text), message="code shown")
        wait(tv, lambda: tv.execute_script("return document.getElementById('pair-qr').naturalWidth") > 0, message="QR")
        for element in ("pair-heading", "pair-code", "pair-qr", "pair-fallback"):
            assert in_viewport(tv, element), (width, element)
        # Read from 3 m: the code is about a tenth of the screen's height, the text a fortieth, at every size.
        assert font_px(tv, "#pair-code") >= 0.08 * height, (width, font_px(tv, "#pair-code"))
        assert font_px(tv, "#pair-fallback summary") >= 0.025 * height
        qr = tv.find_element(By.ID, "pair-qr").rect
        assert qr["height"] >= 0.4 * height, (width, qr)
        screenshot(tv, f"tv-pairing-{width}")
        assert axe_violations(tv) == []
        # The host-PIN fallback opened: its boxes fit too.
        tv.find_element(By.CSS_SELECTOR, "#pair-fallback summary").click()
        wait(tv, lambda: tv.find_element(By.CSS_SELECTOR, '[data-pin="pair"] input').is_displayed())
        boxes = tv.find_elements(By.CSS_SELECTOR, '[data-pin="pair"] input')
        assert all(tv.execute_script("""const r = arguments[0].getBoundingClientRect();
            return r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth""", box) for box in boxes), width
        assert boxes[0].rect["height"] >= 0.08 * height
        assert in_viewport(tv, "pair-code") and in_viewport(tv, "pair-qr")
        screenshot(tv, f"tv-pairing-fallback-{width}")
        assert axe_violations(tv) == []

        # The autoplay overlay: a button and a sentence read from the sofa. (A fresh page: typing the PIN would
        # count as the tap that allows autoplay.)
        tv.get(f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
        wait(tv, lambda: tv.find_element(By.ID, "stage").is_displayed(), message="paired")
        if width == 1280:
            server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:5", "deviceId": "d"})
        wait(tv, lambda: tv.find_element(By.ID, "autoplay").is_displayed(), message="Start button offered")
        assert in_viewport(tv, "autoplay-start")
        assert font_px(tv, "#autoplay-start") >= 0.05 * height, (width, font_px(tv, "#autoplay-start"))
        assert font_px(tv, "#autoplay p") >= 0.03 * height
        # The stall it causes is named on the TV in the stage's size, not a small pill.
        assert font_px(tv, "#now-paused") >= 0.025 * height
        screenshot(tv, f"tv-autoplay-overlay-{width}")
        assert axe_violations(tv) == []
        tv.find_element(By.ID, "autoplay-start").click()
        wait(tv, lambda: not tv.find_element(By.ID, "autoplay").is_displayed())
        if (width, height) != TV_SIZES[-1]:
            # This TV leaves before the next size opens: a second connected TV would be asked about first.
            tv.get("about:blank")
            wait(tv, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["deviceActive"] is False,
                 timeout=15, message="the TV left")

    # A second 4K TV opened with the host PIN asks before it replaces the connected one, readable from the sofa.
    newer = browsers((3840, 2160))
    newer.get(f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    dialog = wait(newer, lambda: newer.find_element(By.CSS_SELECTOR, "dialog[open]"), message="asked to replace")
    assert font_px(newer, "dialog .dialog-message") >= 0.03 * 2160, font_px(newer, "dialog .dialog-message")
    assert font_px(newer, "dialog [data-answer=yes]") >= 0.025 * 2160
    assert newer.execute_script("""const r = document.querySelector('dialog[open]').getBoundingClientRect();
        return r.top >= 0 && r.bottom <= innerHeight && r.width >= innerWidth * 0.3""")
    screenshot(newer, "tv-replace-question-3840")
    assert axe_violations(newer) == []
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()
    wait(newer, lambda: newer.find_element(By.ID, "stage").is_displayed(), message="the new TV plays")
    # The replaced one says so: a screen for the room, in the room's size.
    wait(tv, lambda: tv.find_element(By.ID, "ended").is_displayed(), timeout=15, message="the replaced TV says so")
    assert font_px(tv, "#ended h1") >= 0.06 * 2160
    assert in_viewport(tv, "ended")
    screenshot(tv, "tv-replaced-3840")
    assert axe_violations(tv) == []


def test_the_host_sees_its_pin_behind_a_button_and_logging_out_asks_and_shows_the_way_back(server, browsers):
    party = playing_party(server)
    host = open_host(browsers, server, party, size=SMALL_PHONE)
    reveal = host.find_element(By.ID, "show-host-pin")
    assert party["hostPin"] not in visible_text(host), "not on screen until asked"
    assert reveal.get_attribute("aria-expanded") == "false"
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", reveal)
    reveal.click()
    wait(host, lambda: host.find_element(By.ID, "host-pin").text == party["hostPin"])
    assert reveal.get_attribute("aria-expanded") == "true" and reveal.text == "Host-PIN verbergen"
    screenshot(host, "host-pin-shown-phone-360")
    assert axe_violations(host) == []
    reveal.click()
    assert party["hostPin"] not in visible_text(host)

    # "Log out" asks, and the question carries the PIN the way back needs.
    logout = host.find_element(By.ID, "logout")
    logout.click()
    dialog = wait(host, lambda: next(iter(host.find_elements(By.CSS_SELECTOR, "dialog[open]")), None))
    assert party["hostPin"] in dialog.text and "Host-Login" in dialog.text
    screenshot(host, "host-logout-confirm-phone-360")
    assert axe_violations(host) == []
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=no]").click()
    assert host.find_element(By.ID, "controls-view").is_displayed(), "Cancel keeps the host logged in"
    assert active(host) == "logout"
    logout.click()
    wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog[open] [data-answer=yes]")).click()
    wait(host, lambda: host.current_url.rstrip("/") == server.base)
    # The way back: the start page's host login with that PIN.
    type_code(host, "host", party["hostPin"])
    wait(host, lambda: "/host" in host.current_url and host.find_element(By.ID, "controls-view").is_displayed(), message="back in")


def test_the_host_without_a_tv_is_told_where_the_tv_goes_and_may_play_here_only_on_purpose(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    host = browsers(PHONE, "en-US")
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.find_element(By.ID, "device-hint").is_displayed())
    hint = host.find_element(By.ID, "device-hint")
    assert host.find_element(By.ID, "device-hint-address").text == server.base + "/tv"
    assert "No TV connected." in hint.text and "Connect the TV" in hint.text
    assert not host.find_elements(By.CSS_SELECTOR, "a[href^='/monitor']"), "no link that turns the phone into the player"
    screenshot(host, "host-no-tv-phone-en")
    assert axe_violations(host) == []
    assert german_outside_server_messages(host) == []
    # "Enter the code" goes to the code boxes.
    hint.find_element(By.CSS_SELECTOR, "[data-action=enter-code]").click()
    assert host.switch_to.active_element.get_attribute("aria-label").startswith("TV code") or \
        host.execute_script("return document.activeElement.closest('[data-pin=tv]') !== null")
    # Playing here asks first; Cancel stays.
    play_here = hint.find_element(By.CSS_SELECTOR, "[data-action=play-here]")
    play_here.click()
    dialog = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog[open]"))
    assert "from this phone" in dialog.text
    screenshot(host, "host-play-here-confirm-phone-en")
    assert axe_violations(host) == []
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=no]").click()
    assert "/host" in host.current_url
    play_here.click()
    wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog[open] [data-answer=yes]")).click()
    wait(host, lambda: "/monitor" in host.current_url and host.find_element(By.ID, "stage").is_displayed(), message="this phone plays")
    wait(host, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["deviceActive"] is True)


def test_play_on_an_empty_party_with_nothing_to_refill_says_why(browsers):
    import shutil, tempfile
    from conftest import Server
    # A music folder with no song yet: ▶ has no refill to start (a demo party starts its charts).
    library = tempfile.mkdtemp(prefix="mv-empty-library-")
    server = Server(arguments=("--library", library))
    try:
        party = server.api("POST", "/api/party", {"provider": "local"})
        server.api("PUT", f"/api/party/{party['id']}/device", {"deviceId": "tv-api", "kind": "monitor"}, auth=party["hostPin"])
        host = browsers(SMALL_PHONE)
        host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
        play = wait(host, lambda: host.find_element(By.ID, "play-pause") if host.find_element(By.ID, "play-pause").is_enabled() else None)
        play.click()
        wait(host, lambda: host.find_element(By.ID, "toast").text.startswith("Nichts zu spielen: Die Warteschlange ist leer"),
             message="the empty start is explained")
        screenshot(host, "host-start-empty-phone-360")
        assert axe_violations(host) == []
    finally:
        server.stop()
        shutil.rmtree(library, ignore_errors=True)


def test_play_on_an_empty_party_starts_the_refill_and_the_host_adds_a_song_itself(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    server.api("PUT", f"/api/party/{party['id']}/device", {"deviceId": "tv-api", "kind": "monitor"}, auth=party["hostPin"])
    host = browsers(SMALL_PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    play = wait(host, lambda: host.find_element(By.ID, "play-pause") if host.find_element(By.ID, "play-pause").is_enabled() else None)
    # ▶ on the empty party starts the refill (R15's source: the demo charts); a party without any source says why
    # (`host.startEmpty`, checked end to end in YouTubeTests: the answer `empty` and the `playback-error`).
    play.click()
    wait(host, lambda: host.find_element(By.ID, "now-title").text != "", message="the refill plays")
    assert waiting(server, party) and all(entry["autofilled"] for entry in waiting(server, party))
    screenshot(host, "host-start-refill-phone-360")
    assert axe_violations(host) == []

    # Search and add, below the controls, with the host's own device id.
    search = host.find_element(By.ID, "host-search")
    assert search.location["y"] > play.location["y"]
    search_for(host, "Regen", field="host-search", results="host-results")
    add = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "#host-results .add-button"))
    assert add.get_attribute("aria-label") == "Zur Warteschlange hinzufügen: Regen auf Blech"
    screenshot(host, "host-search-phone-360")
    assert axe_violations(host) == []
    add.click()
    wait(host, lambda: host_row(host, "Regen auf Blech") is not None, message="queued")
    device = host.execute_script("return JSON.parse(localStorage.getItem('musicvoting.hostDeviceId'))")
    assert device and host.execute_script("return localStorage.getItem('musicvoting.deviceId')") is None
    # The host's song is a guest song: first in line, before the auto-filled ones (R9).
    wait(host, lambda: waiting(server, party)[0]["name"] == "Regen auf Blech", message="first in line")
    # A second song waits: its result shows ✓.
    search_for(host, "Bahnsteig", field="host-search", results="host-results")
    wait(host, lambda: host.find_element(By.CSS_SELECTOR, "#host-results .track-name").text == "Bahnsteig 9")
    host.find_element(By.CSS_SELECTOR, "#host-results .add-button").click()
    wait(host, lambda: host.find_element(By.CSS_SELECTOR, "#host-results .track button").text == "✓", message="marked queued")
    assert [entry["name"] for entry in waiting(server, party)[:2]] == ["Regen auf Blech", "Bahnsteig 9"]
    assert not waiting(server, party)[1]["autofilled"]
    screenshot(host, "host-added-phone-360")
    assert axe_violations(host) == []


def test_keyboard_only_removal_undo_unblock_and_end_keep_focus_in_sensible_places(server, browsers):
    party = playing_party(server)
    for word in ("Alpha", "Beta"):
        server.api("PUT", f"/api/party/{party['id']}/blacklist", {"word": word}, auth=party["hostPin"])
    names = [entry["name"] for entry in waiting(server, party)]
    host = open_host(browsers, server, party, size=PHONE)

    def open_menu_and_remove(name):
        # Live updates re-render the rows (the removal before this one can still be arriving): a row or menu item gone
        # stale starts the whole walk again from the row (`wait` retries on a stale element). Focus as Tab would put it.
        # The rows first end where the server's queue ends (the last removal has arrived), then the walk.
        wait(host, lambda: host.execute_script(
            "return [...document.querySelectorAll('#queue-list .track .track-name')].map(n => n.textContent)")[-1:]
            == [e["name"] for e in waiting(server, party)][-1:], message="the rows show the server's queue")

        def walk():
            try:
                menu = host_row(host, name).find_element(By.CSS_SELECTOR, "[data-action=menu]")
                host.execute_script("arguments[0].focus()", menu)
                host.switch_to.active_element.send_keys(Keys.ENTER)
                if host.execute_script("return document.activeElement.getAttribute('aria-expanded')") != "true":
                    return False
                for _ in range(8):  # "Play now" first (no TV: disabled look, still reachable), then on to "remove"
                    host.switch_to.active_element.send_keys(Keys.TAB)
                    if active(host, "data-action") == "remove":
                        host.switch_to.active_element.send_keys(Keys.ENTER)
                        return True
                return False
            except (StaleElementReferenceException, ElementNotInteractableException):
                return False  # the row was re-rendered under the walk (focus left with it): from the row again
        wait(host, walk, message="the row's menu opened and its removal chosen from the keyboard")

    # Removing moves focus to "Undo"; while it has focus, nothing is sent, even after 5 s.
    victim = names[2]
    open_menu_and_remove(victim)
    wait(host, lambda: active(host) == "undo", message="focus on Undo")
    screenshot(host, "host-undo-focused-phone")
    assert axe_violations(host) == []
    time.sleep(6)
    assert host.find_element(By.ID, "undo-bar").is_displayed() and victim in [e["name"] for e in waiting(server, party)]
    host.switch_to.active_element.send_keys(Keys.ENTER)
    wait(host, lambda: host_row(host, victim) is not None, message="undone")
    assert host.execute_script("return document.activeElement.closest('.track')?.querySelector('.track-name').textContent") == victim

    # Escape closes the bar, sends the removal and puts focus on the next row.
    open_menu_and_remove(victim)
    wait(host, lambda: active(host) == "undo")
    host.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(host, lambda: victim not in [e["name"] for e in waiting(server, party)], message="sent on Escape")
    focused_row = """const focused = document.activeElement;
        return [focused.closest('.track')?.querySelector('.track-name').textContent, focused.dataset.action]"""
    wait(host, lambda: host.execute_script(focused_row) == [names[3], "menu"], message="focus on the next row's menu")

    # The last row removed: focus goes to the previous row.
    last = [e["name"] for e in waiting(server, party)][-1]
    open_menu_and_remove(last)
    wait(host, lambda: active(host) == "undo")
    host.find_element(By.ID, "undo-dismiss").send_keys(Keys.ENTER)
    wait(host, lambda: last not in [e["name"] for e in waiting(server, party)])
    before_last = [e["name"] for e in waiting(server, party)][-1]
    wait(host, lambda: host.execute_script(focused_row) == [before_last, "menu"], message="focus on the previous row's menu")

    # Unblocking a word: focus on the word now in its place, then on the heading when none is left.
    host.find_element(By.CSS_SELECTOR, "#blacklist li:first-child button").send_keys(Keys.ENTER)
    wait(host, lambda: len(host.find_elements(By.CSS_SELECTOR, "#blacklist li")) == 1)
    assert active(host, "aria-label") == "Entsperren: Beta"
    host.switch_to.active_element.send_keys(Keys.ENTER)
    wait(host, lambda: not host.find_elements(By.CSS_SELECTOR, "#blacklist li"))
    assert active(host) == "blacklist-heading"

    # Ending the party: focus on the message that says so.
    host.find_element(By.ID, "end-party").send_keys(Keys.ENTER)
    wait(host, lambda: host.find_elements(By.CSS_SELECTOR, "dialog[open]"))
    host.switch_to.active_element.send_keys(Keys.TAB)
    assert active(host, "data-answer") == "yes"
    host.switch_to.active_element.send_keys(Keys.ENTER)
    wait(host, lambda: host.find_element(By.ID, "ended").is_displayed())
    assert active(host) == "ended-message"
    screenshot(host, "host-ended-focus-phone")
    assert axe_violations(host) == []


def test_a_tapped_removal_also_focuses_undo_but_is_sent_after_5_s(server, browsers):
    party = playing_party(server)
    names = [entry["name"] for entry in waiting(server, party)]
    host = open_host(browsers, server, party, size=SMALL_PHONE)
    wait(host, lambda: host_row(host, names[1]).find_element(By.CSS_SELECTOR, "[data-action=menu]").click() or True)
    wait(host, lambda: host_row(host, names[1]).find_element(By.CSS_SELECTOR, "[data-action=remove]").click() or True)
    wait(host, lambda: active(host) == "undo", message="focus on Undo")
    # A phone user never moves focus out of the bar: the removal goes out anyway, and focus to the next row.
    wait(host, lambda: names[1] not in [entry["name"] for entry in waiting(server, party)], message="sent after 5 s")
    wait(host, lambda: host.execute_script("return document.activeElement.closest('.track')?.querySelector('.track-name').textContent")
         == names[2], message="focus on the next row")


def test_a_guest_reaches_the_tabs_with_tab_and_moves_between_them_with_arrows(server, browsers):
    party = playing_party(server)
    guest = browsers(SMALL_PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: len(guest.find_elements(By.CSS_SELECTOR, "#queue-list .track")) == 10)
    body = guest.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    presses = 1
    while active(guest, "role") != "tab" and presses < 10:
        guest.switch_to.active_element.send_keys(Keys.TAB)
        presses += 1
    assert active(guest) == "tab-queue" and presses <= 3, (presses, active(guest))
    guest.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    assert active(guest) == "tab-search" and guest.find_element(By.ID, "tab-search").get_attribute("aria-selected") == "true"
    assert guest.find_element(By.ID, "panel-search").is_displayed()
    # Tab leaves the tab list for the panel (one tab stop for the list), Shift+Tab comes back to the selected tab.
    guest.switch_to.active_element.send_keys(Keys.TAB)
    assert active(guest) == "search"
    guest.switch_to.active_element.send_keys(Keys.SHIFT, Keys.TAB)
    assert active(guest) == "tab-search"
    guest.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert active(guest) == "tab-queue" and guest.find_element(By.ID, "panel-queue").is_displayed()
    screenshot(guest, "guest-tabs-keyboard-phone-360")
    assert axe_violations(guest) == []


def test_english_pages_show_server_errors_in_english_by_their_code(server, browsers):
    party = playing_party(server)
    host = open_host(browsers, server, party, size=PHONE, language="en-US")
    # The TV left (the host page with no device): the server's German "no device" reaches the page as English.
    result = host.execute_async_script("""const done = arguments[arguments.length - 1];
        const src = document.querySelector('script[type=module]').src.replace(/pages\\/host\\.js$/, '');
        Promise.all([import(src + 'api.js'), import(src + 'error-text.js')]).then(async ([{ api }, { errorText }]) => {
          const out = {};
          try { await api('PUT', `/api/party/${arguments[0]}/track/play`, { token: arguments[1], body: { uri: 'demo:track:99' } }); }
          catch (error) { out.notQueued = error.message; }
          out.noDevice = errorText('no_device', 'Kein Wiedergabegerät verbunden.');
          out.rateLimited = errorText('rate_limited', 'Zu viele Anfragen — bitte kurz warten.');
          out.guessing = errorText('pin_guessing', 'x', 30);
          out.unknown = errorText('some_new_code', 'Neuer Text.');
          done(out);
        }).catch((error) => done({ failed: String(error) }));""", party["id"], party["hostPin"])
    assert result == {"notQueued": "That song is not in the queue.", "noDevice": "No TV connected.",
                      "rateLimited": "Too many requests — please wait a moment.",
                      "guessing": "Many devices are trying wrong host PINs for this party right now. A device that was logged in before "
                                  "keeps working; here, please try again in 30 s.",
                      "unknown": "Neuer Text."}, result


def test_the_host_tab_title_shows_a_stall(server, browsers):
    party = playing_party(server)
    host = open_host(browsers, server, party)
    assert not host.title.startswith("⚠")
    token = server.api("PUT", f"/api/party/{party['id']}/device", {"deviceId": "tv-api", "kind": "monitor"},
                       auth=party["hostPin"])["monitorToken"]
    server.api("DELETE", f"/api/party/{party['id']}/device", auth=token)
    wait(host, lambda: host.title == "⚠ Pausiert – kein Fernseher verbunden · MusicVoting", timeout=20, message=host.title)
    wait(host, lambda: host.find_element(By.ID, "stall-banner").is_displayed())
    # The TV holds its token: it comes back by itself, so the banner says so and offers no re-pairing.
    banner = host.find_element(By.ID, "stall-banner")
    assert "verbindet sich von selbst wieder" in banner.text, banner.text
    assert not host.find_elements(By.CSS_SELECTOR, "#stall-banner a")
    screenshot(host, "host-stalled-title-phone-360")
    assert axe_violations(host) == []


def test_every_page_says_in_its_language_that_it_needs_javascript(server):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    expected = {"de-DE": "MusicVoting braucht JavaScript.", "en-US": "MusicVoting needs JavaScript."}
    for path in ("/", f"/join/{party['pin']}", "/tv", "/monitor", "/host"):
        for language, text in expected.items():
            request = urllib.request.Request(server.base + path, headers={"Accept-Language": language})
            with urllib.request.urlopen(request, timeout=10) as response:
                html = response.read().decode()
            assert re.search(r"<noscript><p class=\"noscript\">" + re.escape(text), html), (path, language)


def test_blacklisting_a_word_offers_to_remove_the_queued_songs_it_matches(server, browsers):
    party = playing_party(server)
    artist = waiting(server, party)[0]["artists"][0]["name"]
    matching = [entry["name"] for entry in waiting(server, party) if entry["artists"][0]["name"] == artist]
    # Typed with accents the artist does not have: the server's fold still matches (the page could not).
    word = artist.replace("o", "ö").replace("a", "á").upper()
    host = open_host(browsers, server, party, size=PHONE)
    field = host.find_element(By.ID, "blacklist-word")
    field.send_keys(word)
    field.send_keys(Keys.ENTER)
    dialog = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog[open]"), message="asked")
    count = len(matching)
    question = "1 Song in der Warteschlange passt dazu. Entfernen?" if count == 1 else \
        f"{count} Songs in der Warteschlange passen dazu. Entfernen?"
    assert dialog.find_element(By.CSS_SELECTOR, ".dialog-message").text == question
    screenshot(host, "host-blacklist-matching-phone")
    assert axe_violations(host) == []
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()
    wait(host, lambda: not [e for e in waiting(server, party) if e["artists"][0]["name"] == artist], message="removed")
    wait(host, lambda: all(host_row(host, name) is None for name in matching))
    wait(host, lambda: host.find_element(By.ID, "toast").text == f"Entfernt: {count}")


def test_covers_load_when_the_page_is_opened_under_another_name_of_the_server(server, browsers):
    party = playing_party(server)
    other = server.base.replace("127.0.0.1", "localhost")
    guest = browsers(PHONE)
    guest.get(f"{other}/join/{party['pin']}")
    wait(guest, lambda: len(guest.find_elements(By.CSS_SELECTOR, "#results .track img")) == 10, message="search covers")
    wait(guest, lambda: guest.execute_script("""return [...document.querySelectorAll('#results img, #now img')]
        .every(image => image.complete && image.naturalWidth > 0)"""), message="every cover loaded")
    sources = guest.execute_script("return [...document.querySelectorAll('#results img')].map(image => image.src)")
    assert all(source.startswith(other + "/") for source in sources), sources
    host = browsers(PHONE)
    host.get(f"{other}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.execute_script("""const images = [...document.querySelectorAll('#queue-list img, #now img')];
        return images.length > 5 && images.every(image => image.complete && image.naturalWidth > 0)"""), message="host covers")
    screenshot(guest, "guest-covers-other-host-name")
