"""The TV as the room reads it: every text scales with the screen (none under 1.5 % of its height at 1080p and 4K),
the up-next rows fill the height, the empty screen shows the way in, the remote's OK starts the music, a like
reaches the TV without a fetch, and the host's advice matches the TV's state."""
import time

from selenium.webdriver.common.by import By

from conftest import PHONE, add, axe_violations, make_browser, open_paired_tv, screenshot, wait

SIZES = ((1920, 1080, "de-DE"), (3840, 2160, "en-US"))

SMALLEST_TEXT = """const smallest = [];
    const walker = document.createTreeWalker(document.getElementById('stage'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const element = node.parentElement;
      if (element.closest('[hidden], .visually-hidden')) continue;
      const box = element.getBoundingClientRect();
      if (!box.width || !box.height || box.bottom < 0 || box.top > innerHeight) continue;
      smallest.push([parseFloat(getComputedStyle(element).fontSize), node.textContent.trim().slice(0, 30)]);
    }
    return smallest.sort((a, b) => a[0] - b[0]).slice(0, 3);"""


def current(server, party):
    return server.api("GET", f"/api/party/{party['id']}/track/current")


def visible(driver, element_id):
    return driver.execute_script("""const node = document.getElementById(arguments[0]);
        return !!node && !node.closest('[hidden]') && node.getClientRects().length > 0""", element_id)


def test_every_text_on_the_tv_scales_and_up_next_fills_the_screen(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo", "vetoShare": 0.4})
    for index, (width, height, language) in enumerate(SIZES):
        tv = browsers((width, height), language=language)
        open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
        if index == 0:
            for number in range(1, 14):
                add(server, party, number, f"guest-{number}")
            # One veto on the playing song and one on a waiting one: the TV shows both tallies.
            for uri in ("demo:track:1", "demo:track:5"):
                server.api("POST", f"/api/party/{party['id']}/track/veto", {"uri": uri, "deviceId": "v1"})
            # Paused on the vetoed song: every size shows it, however long the TVs take (the song would end in 32 s).
            wait(tv, lambda: current(server, party).get("state") == "playing", message="the first song plays")
            server.api("POST", f"/api/party/{party['id']}/track/pause", auth=party["hostToken"])
            assert current(server, party)["track"]["uri"] == "demo:track:1"
        wait(tv, lambda: visible(tv, "now-veto"), message="the playing song's veto line")
        wait(tv, lambda: tv.execute_script("return document.querySelectorAll('#queue-list li:not([hidden])').length") >= 4)
        smallest = tv.execute_script(SMALLEST_TEXT)
        assert smallest[0][0] >= 0.015 * height, (width, smallest)
        veto_line = tv.execute_script("return parseFloat(getComputedStyle(document.getElementById('now-veto')).fontSize)")
        assert veto_line >= 0.015 * height, veto_line
        # The rows fill the side down to the screen's bottom: the room left is less than one more row.
        gap, row = tv.execute_script("""const rows = [...document.querySelectorAll('#queue-list li:not([hidden])')];
            const more = document.getElementById('queue-more');
            const last = more.hidden ? rows[rows.length - 1] : more;
            const side = document.querySelector('.up-next').getBoundingClientRect();
            return [side.bottom - last.getBoundingClientRect().bottom, rows[0].getBoundingClientRect().height];""")
        assert gap < row * 1.2, (width, gap, row)
        assert axe_violations(tv) == []
        screenshot(tv, f"tv-stage-{width}")


def test_the_empty_tv_shows_the_way_in_and_the_remote_starts_the_music(server, browsers):
    other = server.api("POST", "/api/party", {"provider": "demo"})
    english = browsers((3840, 2160), language="en-US")
    open_paired_tv(english, f"{server.base}/monitor#party={other['id']}&hostPin={other['hostPin']}")
    wait(english, lambda: visible(english, "first-song"), message="the empty screen in English")
    assert "Scan the code" in english.find_element(By.ID, "first-song").text
    assert english.find_element(By.ID, "monitor-qr").rect["height"] >= 0.3 * 2160
    screenshot(english, "tv-empty-3840")

    party = server.api("POST", "/api/party", {"provider": "demo"})
    tv = browsers((1920, 1080), autoplay=False)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    wait(tv, lambda: visible(tv, "first-song"), message="the empty screen says how to add the first song")
    assert "Scanne den Code" in tv.find_element(By.ID, "first-song").text
    qr = tv.find_element(By.ID, "monitor-qr").rect
    assert qr["height"] >= 0.3 * 1080, qr
    assert axe_violations(tv) == []
    screenshot(tv, "tv-empty-1080")

    add(server, party, 1, "first-guest")
    start = wait(tv, lambda: visible(tv, "autoplay") and tv.find_element(By.ID, "autoplay-start"), message="Musik starten")
    wait(tv, lambda: tv.switch_to.active_element == start, message="focused for the remote's OK")
    assert not visible(tv, "first-song")
    screenshot(tv, "tv-start-button-1080")
    from selenium.webdriver.common.keys import Keys
    tv.switch_to.active_element.send_keys(Keys.ENTER)
    wait(tv, lambda: not visible(tv, "autoplay"), message="OK started the music")
    wait(tv, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["state"] == "playing")


def queue_fetches(driver):
    return driver.execute_script("return performance.getEntriesByType('resource').filter(e => e.name.indexOf('/track/queue') >= 0).length")


def test_a_like_reaches_the_tv_and_the_liker_without_a_fetch(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    for number in (1, 2, 3):
        add(server, party, number, f"guest-{number}")
    tv = browsers((1920, 1080))
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    like = wait(guest, lambda: guest.find_element(By.CSS_SELECTOR, "#queue-list .like-button"))
    wait(tv, lambda: tv.execute_script("return document.querySelectorAll('#queue-list li').length") >= 2)
    time.sleep(1)
    before_tv, before_guest = queue_fetches(tv), queue_fetches(guest)
    like.click()
    wait(tv, lambda: "♥ 1" in tv.find_element(By.ID, "queue-list").text.replace("\n", " "), message="the TV shows the like")
    wait(guest, lambda: guest.execute_script("return document.querySelector('#queue-list .like-button').getAttribute('aria-pressed')") == "true")
    time.sleep(1)
    assert queue_fetches(tv) == before_tv, "the TV applied the like from its event"
    assert queue_fetches(guest) == before_guest, "the liker too"


def test_the_host_is_told_the_tv_reconnects_while_it_is_paired_and_away(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    tv = make_browser((1280, 720))
    try:
        open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
        add(server, party, 1, "someone")
        wait(tv, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["state"] == "playing")
    finally:
        tv.quit()
    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    banner = wait(host, lambda: host.find_element(By.ID, "stall-banner").is_displayed() and host.find_element(By.ID, "stall-banner"),
                  timeout=30, message="the stall is shown")
    assert "verbindet sich von selbst wieder" in banner.text, banner.text
    assert "Code eingeben" not in banner.text, "no re-pairing advice for a paired TV"
    screenshot(host, "host-tv-reconnecting-phone")
