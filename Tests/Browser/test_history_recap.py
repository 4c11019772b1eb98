"""R33: a party that keeps its history shows the host what played (with the playlist files), and once it ends the
TV, the guest's phone and the host's phone show a recap instead of a dead end, in both languages. A party without
history ends as before."""
from selenium.webdriver.common.by import By

from conftest import PHONE, TV, axe_violations, open_paired_tv, screenshot, visible_text, wait

TEXTS = {
    "de-DE": {"heading": "So war die Party", "counts": "3 Songs · ", "top": "Am meisten geliked", "played": "Gespielt",
              "skipped": "übersprungen"},
    "en-US": {"heading": "How the party went", "counts": "3 songs · ", "top": "Most liked", "played": "Played",
              "skipped": "skipped"},
}


def shown(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def open_screens(server, browsers, party, language):
    tv = browsers(TV, language=language)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    host = browsers(PHONE, language=language)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: shown(host, "controls-view"), message="the host page")
    guest = browsers(PHONE, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: shown(guest, "party-view"), message="the guest page")
    return tv, host, guest


def run_through_a_party(server, browsers, language):
    texts = TEXTS[language]
    party = server.api("POST", "/api/party", {"provider": "demo", "history": True})
    party_path = f"/api/party/{party['id']}"
    tv, host, guest = open_screens(server, browsers, party, language)
    for number in (1, 2, 3):
        server.api("POST", f"{party_path}/track/addToPlaylist", {"uri": f"demo:track:{number}", "deviceId": "guest-a"})
    server.api("POST", f"{party_path}/track/vote", {"uri": "demo:track:2", "deviceId": "guest-b"})
    wait(host, lambda: server.api("GET", f"{party_path}/track/current").get("track") is not None, message="music plays")
    for _ in range(2):
        server.api("POST", f"{party_path}/track/next", auth=party["hostPin"])
    # Paused: the third song is still the one playing when the party ends, however slow the checks between.
    server.api("POST", f"{party_path}/track/pause", auth=party["hostPin"])

    wait(host, lambda: len(host.find_elements(By.CSS_SELECTOR, "#played-list li")) == 2, message="the played list")
    assert host.find_element(By.ID, "history").is_selected(), "the rules card shows the history on"
    assert texts["skipped"] in host.find_element(By.ID, "played-list").text
    assert shown(host, "played-m3u8") and shown(host, "played-jspf")
    assert not shown(host, "played-save"), "the demo has no playlists to save to (R32)"
    host.execute_script("document.getElementById('played-card').scrollIntoView()")
    assert axe_violations(host) == []
    screenshot(host, f"host-played-list-phone-{language}")

    server.api("DELETE", party_path, auth=party["hostPin"])
    for name, driver in (("tv", tv), ("host", host), ("guest", guest)):
        wait(driver, lambda: shown(driver, "recap"), message=f"the recap on the {name} screen")
        text = visible_text(driver)
        for key in ("heading", "counts", "top", "played"):
            assert texts[key].lower() in text.lower(), (name, key, text)
        assert len(driver.find_elements(By.CSS_SELECTOR, "#recap-songs li")) == 3
        top = driver.find_elements(By.CSS_SELECTOR, "#recap-top li")
        assert len(top) == 1 and "♥ 1" in top[0].text, (name, [row.text for row in top])
        assert "guest-a" not in text, "never who added a song"
        assert axe_violations(driver) == [], name
        screenshot(driver, f"recap-{name}-{language}")


def test_a_party_with_history_ends_in_a_recap_on_every_screen_in_german(server, browsers):
    run_through_a_party(server, browsers, "de-DE")


def test_a_party_with_history_ends_in_a_recap_on_every_screen_in_english(server, browsers):
    run_through_a_party(server, browsers, "en-US")


def test_without_history_the_end_screen_stays_as_it_was(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: shown(guest, "party-view"))
    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: shown(host, "controls-view"))
    assert shown(host, "played-off") and not shown(host, "played-on"), "the card says how to turn the history on"
    assert not host.find_element(By.ID, "history").is_selected()
    server.api("DELETE", f"/api/party/{party['id']}", auth=party["hostPin"])
    for driver in (guest, host):
        wait(driver, lambda: shown(driver, "ended"), message="today's end screen")
        assert not shown(driver, "recap")
    screenshot(guest, "ended-without-history-phone")


def test_the_start_page_offers_the_history_switched_on(server, browsers):
    start = browsers(PHONE)
    start.get(server.base + "/")
    box = start.find_element(By.ID, "create-history")
    assert box.get_attribute("checked") is not None
