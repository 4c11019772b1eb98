"""Single-page checks: language, escaping in the live UI, narrow phones, PIN boxes."""
import os, sqlite3, time

from selenium.webdriver.common.by import By

from conftest import Server, axe_violations, screenshot, wait


def test_english_visitors_get_english_with_german_fallback(server, browsers):
    driver = browsers(language="en-US")
    driver.get(server.base + "/")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert driver.find_element(By.ID, "join-heading").text == "Join a party"
    assert driver.find_element(By.TAG_NAME, "h1").text == "MusicVoting"
    screenshot(driver, "start-english-phone")
    assert axe_violations(driver) == [], "the start page is accessible"


def test_provider_text_never_becomes_markup_in_the_live_page(browsers):
    first = Server()
    party = first.api("POST", "/api/party", {"provider": "demo"})
    first.stop()
    database = sqlite3.connect(os.path.join(first.data, "musicvoting.sqlite"))
    database.execute(
        "INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, image_url, duration_ms, added_at,"
        " added_by, autofilled) VALUES (?, 'demo:track:x', 'x', ?, ?, 'A', NULL, 1000, ?, 'x', 0)",
        (party["id"], "<img src=x onerror=alert(1)>", "<b>bold</b>", time.time()))
    database.commit()
    database.close()
    server = Server(first.data)
    try:
        driver = browsers()
        # The payload's alert(1), should it ever run, sets the flag checked below (before any page script runs).
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source":
                               "window.alertFired = false; window.alert = () => { window.alertFired = true; };"})
        driver.get(f"{server.base}/join/{party['pin']}")
        wait(driver, lambda: driver.execute_script(
            "return [...document.querySelectorAll('#queue-list .track-name')].some(n => n.textContent.includes('<img'))"))
        time.sleep(0.5)
        assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"], #queue-list b').length") == 0
        assert driver.execute_script("return window.alertFired") is False, "the override is in place and nothing called alert()"
        driver.execute_script("window.alert('probe')")
        assert driver.execute_script("return window.alertFired") is True, "the flag can tell"
    finally:
        server.stop()


def test_the_guest_page_fits_a_320px_phone(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:16", "deviceId": "d"})
    driver = browsers(size=(320, 700))
    driver.get(f"{server.base}/join/{party['pin']}")
    assert driver.execute_script("return window.innerWidth") == 320
    wait(driver, lambda: len(driver.find_elements(By.CSS_SELECTOR, "#results .track")) == 10)
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 320
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('button')].filter(b => b.offsetParent).map(b => [b.offsetWidth, b.offsetHeight])")
    assert sizes and all(width >= 44 and height >= 44 for width, height in sizes), sizes
    screenshot(driver, "guest-320px")
    assert axe_violations(driver) == [], "the guest page with results and queue is accessible"


def test_a_wrong_host_pin_shakes_and_clears_the_boxes(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    wrong = "00000" if party["hostPin"] != "00000" else "11111"
    driver = browsers()
    driver.get(server.base + "/host")
    wait(driver, lambda: driver.find_element(By.ID, "login").is_displayed())
    boxes = driver.find_elements(By.CSS_SELECTOR, '[data-pin="login"] input')
    boxes[0].send_keys(wrong)  # a five-digit paste-like burst fills every box and submits
    wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, '[data-error="login"]').text == "Falsche PIN.")
    assert "shake" in driver.find_element(By.CSS_SELECTOR, '[data-pin="login"]').get_attribute("class")
    assert all(box.get_attribute("value") == "" for box in boxes)
    boxes[0].send_keys(party["hostPin"])
    wait(driver, lambda: driver.find_element(By.ID, "controls-view").is_displayed(), message="right PIN opens the controls")
    assert driver.find_element(By.ID, "host-guest-pin").text == party["pin"]
    wait(driver, lambda: driver.find_element(By.ID, "host-qr").is_displayed(), message="QR replaces the spinner")
    screenshot(driver, "host-controls-phone")
    assert axe_violations(driver) == [], "the host controls are accessible"


def test_a_monitor_whose_browser_blocks_autoplay_offers_a_start_button(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    monitor = browsers(size=(1920, 1080), autoplay=False)
    monitor.get(f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    wait(monitor, lambda: monitor.find_element(By.ID, "stage").is_displayed())
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:5", "deviceId": "d"})
    wait(monitor, lambda: monitor.find_element(By.ID, "autoplay").is_displayed(), message="Start button offered")
    screenshot(monitor, "monitor-autoplay-blocked-tv")
    assert axe_violations(monitor) == [], "the TV with its Start button is accessible"
    monitor.find_element(By.ID, "autoplay-start").click()
    wait(monitor, lambda: monitor.execute_script("return document.getElementById('player').currentTime") > 0.5,
         message="a click starts the music")
    assert not monitor.find_element(By.ID, "autoplay").is_displayed()


def test_a_spotify_party_offers_the_host_login(browsers):
    # The Web API base points at a closed loopback port: nothing leaves this machine.
    server = Server(arguments=("--spotify-client-id", "client-1", "--spotify-api-base", "http://127.0.0.1:9/v1",
                               "--spotify-accounts-base", "http://127.0.0.1:9"))
    try:
        party = server.api("POST", "/api/party", {"provider": "spotify"})
        driver = browsers()
        driver.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
        wait(driver, lambda: driver.find_element(By.ID, "spotify-login").is_displayed(), message="login button")
        href = driver.find_element(By.ID, "spotify-login").get_attribute("href")
        # The page signs in with the host token (R24a), also here.
        assert href.endswith(f"/api/party/{party['id']}/spotify/login?source=web&hostPin={party['hostToken']}")
        assert driver.find_element(By.ID, "spotify-login").text == "Mit Spotify anmelden"
        screenshot(driver, "host-spotify-phone")
    finally:
        server.stop()


def test_a_playing_songs_bar_glides_on_the_compositor_and_steps_once_a_second_for_reduced_motion(server, browsers):
    from test_newcomer import playing_party
    party = playing_party(server)
    fill = "document.getElementById('now-fill')"
    glide = f"return {fill}.getAnimations().filter(a => a.playState === 'running').length"
    progress = f"return parseFloat({fill}.style.getPropertyValue('--progress'))"

    moving = browsers(motion=True)
    moving.get(f"{server.base}/join/{party['pin']}")
    wait(moving, lambda: moving.execute_script(glide) == 1, message="one running glide to the song's end")

    still = browsers()
    still.get(f"{server.base}/join/{party['pin']}")
    wait(still, lambda: still.execute_script(progress) > 0, message="the bar shows the position")
    assert still.execute_script(glide) == 0, "no animation where the device asks for reduced motion"
    before = still.execute_script(progress)
    wait(still, lambda: still.execute_script(progress) > before, message="the bar steps on")
