"""One real party with the demo provider: a monitor tab, a host tab and two guest tabs."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import PHONE, TV, axe_violations, screenshot, search_for, severe_console_errors, unexpected_console_errors, wait


def text(driver, selector):
    elements = driver.find_elements(By.CSS_SELECTOR, selector)
    return elements[0].text if elements else ""


def queue_names(driver):
    return driver.execute_script("""return [...document.querySelectorAll('#queue-list .track .track-name')]
        .map(name => name.firstChild ? name.firstChild.textContent : '')""")


def type_pin(driver, container, pin):
    boxes = driver.find_elements(By.CSS_SELECTOR, f'[data-pin="{container}"] input')
    assert len(boxes) == 5
    boxes[0].click()
    for digit in pin:
        driver.switch_to.active_element.send_keys(digit)


def search_and_add(driver, query, name):
    search_for(driver, query)

    def click_add():
        row = next((r for r in driver.find_elements(By.CSS_SELECTOR, "#results .track")
                    if r.find_element(By.CSS_SELECTOR, ".track-name").text == name), None)
        if row is None:
            return False
        row.find_element(By.CSS_SELECTOR, "button").click()
        return True

    wait(driver, click_add, message=f"result {name}")


def toast_text(driver):
    return text(driver, "#toast")


def audio_time(driver):
    return driver.execute_script("return document.getElementById('player').currentTime")


def test_a_whole_party(server, browsers):
    host = browsers(PHONE)
    host.get(server.base + "/")
    host.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
    wait(host, lambda: host.find_element(By.ID, "created").is_displayed())
    pin = text(host, "#created-pin")
    host.find_element(By.ID, "show-host-pin").click()
    host_pin = text(host, "#created-host-pin")
    assert len(pin) == 5 and len(host_pin) == 5
    wait(host, lambda: host.execute_script("return document.getElementById('created-qr').naturalWidth") > 0)
    screenshot(host, "start-created-phone")
    monitor_link = host.find_element(By.ID, "created-monitor").get_attribute("href")

    host.get(server.base + "/host")
    wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
    play = host.find_element(By.ID, "play-pause")
    assert not play.is_enabled(), "controls are disabled until a monitor registers"
    assert host.find_element(By.ID, "device-hint").is_displayed()
    assert "Kein Fernseher verbunden." in text(host, "#device-hint")

    guest1, guest2 = browsers(PHONE), browsers(PHONE)
    for guest in (guest1, guest2):
        guest.get(server.base + "/")
        type_pin(guest, "join", pin)
        wait(guest, lambda: guest.current_url.endswith(f"/join/{pin}"))
        wait(guest, lambda: len(guest.find_elements(By.CSS_SELECTOR, "#results .track")) == 10, message="top 10")

    search_and_add(guest1, "Tanz", "Tanz auf dem Dach")
    wait(guest1, lambda: queue_names(guest1) == ["Tanz auf dem Dach"])
    search_and_add(guest1, "Neon", "Neon Boulevard")
    wait(guest2, lambda: queue_names(guest2) == ["Tanz auf dem Dach", "Neon Boulevard"], message="live queue on guest 2")

    # The duplicate: queued songs show a disabled check. A guest whose view is stale (its queue reloads
    # are blocked while guest 1 adds) still sees "+", hits the server's 409 and is offered the like.
    field = guest2.find_element(By.ID, "search")
    search_for(guest2, "Rollschuh")
    wait(guest2, lambda: len(guest2.find_elements(By.CSS_SELECTOR, "#results .track .add-button")) == 1)
    guest2.execute_cdp_cmd("Network.enable", {})
    guest2.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/track/queue*"]})
    search_and_add(guest1, "Rollschuh", "Rollschuh-Romanze")
    wait(guest1, lambda: "Rollschuh-Romanze" in queue_names(guest1))
    # Blocked until the question is open: however late guest 2's reload after guest 1's add comes, it cannot turn
    # the "+" into a check first. Open before the answer, which reads the queue again.
    guest2.find_element(By.CSS_SELECTOR, "#results .track .add-button").click()
    dialog = wait(guest2, lambda: next(iter(guest2.find_elements(By.CSS_SELECTOR, "dialog[open]")), None), message="in-page dialog")
    guest2.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    # R10a: the server says where the waiting copy is, and the question names its place.
    assert dialog.find_element(By.CSS_SELECTOR, ".dialog-message").text == \
        "Der Song (oder eine Version davon) wartet schon auf Platz 3. Stattdessen liken?"
    assert guest2.switch_to.active_element.get_attribute("data-answer") == "yes", "focus moves into the dialog"
    assert axe_violations(guest2) == [], "the duplicate dialog is accessible"
    screenshot(guest2, "guest-duplicate-dialog-phone")
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()
    wait(guest2, lambda: "liked" in like_button_class(guest2, "Rollschuh-Romanze"), message="liked instead")
    wait(guest2, lambda: guest2.find_elements(By.CSS_SELECTOR, "#results .track button[aria-disabled=true]"), message="check shown")
    screenshot(guest2, "guest-duplicate-phone")

    # Rate limit: guest 2 adds ten songs; the page knows its budget (R18b) and says when the eleventh may go.
    names = ["Kaffee um Mitternacht", "Glitter & Gravel", "Fahrradklingel-Funk", "Wolken aus Zucker",
             "Disco im Treppenhaus", "Polaroid Summer", "Bahnsteig 9", "Marmalade Skies", "Der letzte Bus",
             "Satellite Heart", "Regen auf Blech"]
    field.clear()
    for name in names:
        search_and_add(guest2, name.split(" ")[0], name)
        if name != names[-1]:
            wait(guest2, lambda: name in queue_names(guest2), message=f"{name} queued")
    wait(guest2, lambda: "Zu viele Anfragen — bitte kurz warten." in toast_text(guest2) or "Neue Wünsche in" in toast_text(guest2),
         message="rate limit toast")
    assert "Regen auf Blech" not in queue_names(guest2)

    # Likes from guest 1 reorder guest 2's queue live.
    guest1.find_element(By.ID, "tab-queue").click()
    like = wait(guest1, lambda: next((row.find_element(By.CSS_SELECTOR, ".like-button")
                                      for row in guest1.find_elements(By.CSS_SELECTOR, "#queue-list .track")
                                      if "Satellite Heart" in row.text), None))
    like.click()
    wait(guest1, lambda: "liked" in like_button_class(guest1, "Satellite Heart"), message="optimistic like")
    # One like each: Rollschuh-Romanze (older) then Satellite Heart, above every song without likes.
    wait(guest2, lambda: queue_names(guest2)[:2] == ["Rollschuh-Romanze", "Satellite Heart"], message="like reorders guest 2")

    # The monitor pairs through the host's link; the host's controls unlock live.
    monitor = browsers(TV)
    monitor.get(monitor_link)
    wait(monitor, lambda: monitor.find_element(By.ID, "stage").is_displayed(), message="monitor stage")
    wait(monitor, lambda: text(monitor, "#monitor-pin") == pin)
    wait(monitor, lambda: queue_names(monitor)[:2] == ["Rollschuh-Romanze", "Satellite Heart"], message="monitor queue")
    wait(host, lambda: host.find_element(By.ID, "play-pause").is_enabled(), message="host controls unlock")
    assert not host.find_element(By.ID, "device-hint").is_displayed()

    # Start plays audio on the monitor.
    host.find_element(By.ID, "play-pause").click()
    wait(monitor, lambda: text(monitor, "#now-title") == "Rollschuh-Romanze", message="monitor now playing")
    wait(monitor, lambda: audio_time(monitor) > 1.0, message="audio plays")
    wait(host, lambda: host.find_element(By.ID, "play-pause").get_attribute("data-state") == "playing", message="⏸ while playing")
    wait(guest2, lambda: text(guest2, "#now-title") == "Rollschuh-Romanze")
    screenshot(monitor, "monitor-tv")
    guest1.execute_script("window.scrollTo(0, 0)")
    screenshot(guest1, "guest-phone")
    screenshot(host, "host-phone")

    # Skip advances everywhere.
    host.find_element(By.ID, "skip").click()
    for driver in (monitor, guest1, guest2, host):
        wait(driver, lambda: text(driver, "#now-title") == "Satellite Heart", message="skip advances")
    wait(monitor, lambda: audio_time(monitor) > 0.5)

    # The host plays a queued song right now.
    host.execute_script("""[...document.querySelectorAll('#queue-list .track')]
        .find(r => r.textContent.includes('Neon Boulevard')).querySelector('.play-now-button').click()""")
    for driver in (monitor, guest1):
        wait(driver, lambda: text(driver, "#now-title") == "Neon Boulevard", message="play now")
    wait(monitor, lambda: audio_time(monitor) > 0.5)

    # The monitor reloads and continues at the same position without a PIN.
    time.sleep(2)
    before = server.api("GET", f"/api/party/{host_party_id(host)}/track/current")["progressMs"] / 1000
    monitor.refresh()
    wait(monitor, lambda: monitor.find_element(By.ID, "stage").is_displayed(), message="monitor back without PIN")
    wait(monitor, lambda: audio_time(monitor) > 0.5)
    after = server.api("GET", f"/api/party/{host_party_id(host)}/track/current")["progressMs"] / 1000
    position = audio_time(monitor)
    assert position >= before - 2, (before, position)
    assert abs(position - after) <= 2, (after, position)

    # At the natural end the monitor itself moves on, once.
    queue_before = queue_names(monitor)
    monitor.execute_script("const p = document.getElementById('player'); p.currentTime = p.duration - 0.3;")
    wait(monitor, lambda: text(monitor, "#now-title") == queue_before[0], message="natural end advances")
    wait(guest1, lambda: text(guest1, "#now-title") == queue_before[0])
    time.sleep(1.5)
    assert text(monitor, "#now-title") == queue_before[0], "one song end, one advance"

    # Ending the party tells every tab; the TV shows a "party over" screen for the room.
    ending = time.time() * 1000
    host.find_element(By.ID, "end-party").click()
    confirm = wait(host, lambda: next(iter(host.find_elements(By.CSS_SELECTOR, "dialog[open] [data-answer=yes]")), None))
    confirm.click()
    wait(host, lambda: host.find_element(By.ID, "ended").is_displayed())
    for guest in (guest1, guest2):
        wait(guest, lambda: guest.find_element(By.ID, "ended").is_displayed(), message="guest sees the end")
    wait(monitor, lambda: monitor.find_element(By.ID, "ended").is_displayed(), message="the TV says the party is over")
    assert not monitor.find_element(By.ID, "stage").is_displayed()
    screenshot(monitor, "monitor-party-over-tv")
    screenshot(guest1, "guest-ended-phone")

    # Only the failures this story provokes are excused, by path and status: guest 2's duplicate add (409) and its
    # eleventh add (429), and a TV report or a queue read that was on its way when the party ended (404, R5). A missing
    # script or stylesheet, or any other failed call, fails the test.
    expected = {guest2: [(r"^/api/party/[^/]+/track/addToPlaylist$", 409), (r"^/api/party/[^/]+/track/addToPlaylist$", 429)]}
    for driver in (host, guest1, guest2, monitor):
        errors = severe_console_errors(driver)
        errors = [entry for entry in errors if entry["timestamp"] < ending
                  or unexpected_console_errors([entry], [(r"^/api/party/[^/]+/track/(progress|queue)$", 404)])]
        assert unexpected_console_errors(errors, expected.get(driver, [])) == [], errors


def like_button_class(driver, name):
    return driver.execute_script("""const row = [...document.querySelectorAll('#queue-list .track')]
        .find(r => r.querySelector('.track-name').textContent.startsWith(arguments[0]));
        return row ? row.querySelector('.like-button').className : ''""", name)


def host_party_id(host):
    return host.execute_script("return JSON.parse(localStorage.getItem('musicvoting.host') || '{}').partyId")
