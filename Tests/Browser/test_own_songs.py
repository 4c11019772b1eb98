"""R18b: the guest page shows what the guest may still add, counting down, and takes back the guest's own waiting
songs with an undo, in both languages."""
import re

from selenium.webdriver.common.by import By

from conftest import PHONE, TV, axe_violations, screenshot, wait


def page_device(driver):
    device = driver.execute_script("return localStorage.getItem('musicvoting.deviceId')")
    return (device or "").strip('"')


def budget_text(driver):
    line = driver.find_element(By.ID, "add-budget")
    return line.text if line.is_displayed() else ""


def queue_rows(driver):
    return driver.execute_script("""return [...document.querySelectorAll('#queue-list .track')].map(row => ({
        uri: row.dataset.uri, removable: !!row.querySelector('[data-action=remove]') }))""")


def join_and_add(server, browsers, party, language, uris, size=PHONE):
    guest = browsers(size, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: page_device(guest) != "", message="the page keeps its device id")
    device = page_device(guest)
    for uri in uris:
        server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": uri, "deviceId": device})
    return guest


def test_the_guest_sees_its_budget_and_takes_back_its_own_song(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:9", "deviceId": "someone-else"})
    guest = join_and_add(server, browsers, party, "de-DE", ["demo:track:1", "demo:track:2", "demo:track:3"])
    guest.find_element(By.ID, "tab-search").click()
    wait(guest, lambda: re.fullmatch(r"Noch 7 Songs, nächster in ~\d+ s", budget_text(guest)), message="the budget line")
    first = int(re.search(r"~(\d+) s", budget_text(guest)).group(1))
    assert 50 <= first <= 60, budget_text(guest)
    wait(guest, lambda: int(re.search(r"~(\d+) s", budget_text(guest)).group(1)) < first,
         message="the wait counts down without a reload")
    assert axe_violations(guest) == []
    screenshot(guest, "guest-budget-phone")

    guest.find_element(By.ID, "tab-queue").click()
    wait(guest, lambda: len(queue_rows(guest)) == 4)
    removable = {row["uri"]: row["removable"] for row in queue_rows(guest)}
    assert removable == {"demo:track:9": False, "demo:track:1": True, "demo:track:2": True, "demo:track:3": True}, removable
    guest.find_element(By.CSS_SELECTOR, '#queue-list [data-uri="demo:track:2"] [data-action=remove]').click()
    wait(guest, lambda: guest.find_element(By.ID, "undo-bar").is_displayed(), message="the undo bar")
    assert "entfernt" in guest.find_element(By.ID, "undo-text").text
    wait(guest, lambda: "demo:track:2" not in [row["uri"] for row in queue_rows(guest)])
    queued = [entry["uri"] for entry in server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"]]
    assert "demo:track:2" not in queued, "removed on the server at once"
    screenshot(guest, "guest-own-song-removed-phone")
    # The bar offers Undo for 6 s: the click comes before the slower checks.
    guest.find_element(By.ID, "undo").click()
    wait(guest, lambda: "demo:track:2" in [row["uri"] for row in queue_rows(guest)], message="undo adds it again")
    assert not guest.find_element(By.ID, "undo-bar").is_displayed()
    assert axe_violations(guest) == []


def show(driver, tab):
    """The tab on a phone; a wide screen shows search and queue side by side, without tabs."""
    button = driver.find_element(By.ID, tab)
    if button.is_displayed():
        button.click()


def test_the_budget_and_removal_speak_english_on_a_big_screen(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    guest = join_and_add(server, browsers, party, "en-US", ["demo:track:4"], size=TV)
    show(guest, "tab-search")
    wait(guest, lambda: re.fullmatch(r"9 more songs, next in ~\d+ s", budget_text(guest)), message="the English budget line")
    assert axe_violations(guest) == []
    screenshot(guest, "guest-budget-tv-en")
    show(guest, "tab-queue")
    button = guest.find_element(By.CSS_SELECTOR, '#queue-list [data-uri="demo:track:4"] [data-action=remove]')
    assert button.get_attribute("aria-label").startswith("Remove my song: ")
    button.click()
    wait(guest, lambda: guest.find_element(By.ID, "undo").text == "Undo")
    assert axe_violations(guest) == []
    screenshot(guest, "guest-own-song-removed-tv-en")
