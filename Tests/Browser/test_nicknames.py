"""R36: where the party shows nicknames, a guest names itself on its phone, the TV shows who asked for each song, a
taken name is refused in the page's language, markup in a name stays text, and the host's switch hides every
nickname at once. In both languages, at phone and TV sizes, axe clean."""
from selenium.webdriver.common.by import By

from conftest import PHONE, TV, axe_violations, open_paired_tv, screenshot, visible_text, wait

NAME = "<b>Anna</b> 🎧"
TEXTS = {
    "de-DE": {"by": "gewünscht von", "taken": "Diesen Spitznamen hat schon jemand."},
    "en-US": {"by": "requested by", "taken": "Somebody has this nickname already."},
}


def shown(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def page_device(driver):
    return (driver.execute_script("return localStorage.getItem('musicvoting.deviceId')") or "").strip('"')


def name_yourself(guest, name):
    field = guest.find_element(By.ID, "nickname")
    field.clear()
    field.send_keys(name)
    guest.find_element(By.CSS_SELECTOR, "#nickname-form button[type=submit]").click()


def walk_the_nicknames(server, browsers, language):
    texts = TEXTS[language]
    party = server.api("POST", "/api/party", {"provider": "demo", "nicknames": True})
    tv = browsers(TV, language=language)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    guest = browsers(PHONE, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: shown(guest, "nickname-form"), message="the nickname field (the party shows nicknames)")
    wait(guest, lambda: page_device(guest) != "", message="the page keeps its device id")
    name_yourself(guest, NAME)
    wait(guest, lambda: server.api("GET", f"/api/party/{party['id']}/track/queue?deviceId={page_device(guest)}").get("nickname") == NAME,
         message="the nickname on the server")
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:1", "deviceId": page_device(guest)})
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:2", "deviceId": page_device(guest)})
    wait(tv, lambda: f"{texts['by']} {NAME}" in visible_text(tv), message="the TV shows who asked for the song")
    # The waiting song's row may show it first: the now-playing part follows once the first song plays.
    wait(tv, lambda: tv.find_element(By.ID, "now-added-by").text == f"{texts['by']} {NAME}", message="the now-playing part too")
    # Paused: Anna's second song stays waiting in the guest's queue however long the next steps take.
    server.api("POST", f"/api/party/{party['id']}/track/pause", auth=party["hostPin"])
    assert not tv.find_elements(By.CSS_SELECTOR, "#now b, .track-list b"), "markup in a nickname is text"
    assert axe_violations(tv) == []
    screenshot(tv, f"nicknames-tv-{language}")
    guest.find_element(By.ID, "tab-queue").click()
    wait(guest, lambda: f"{texts['by']} {NAME}" in guest.find_element(By.ID, "queue-list").text, message="the guest's queue shows it")
    guest.find_element(By.ID, "tab-search").click()
    assert axe_violations(guest) == []
    screenshot(guest, f"nicknames-guest-phone-{language}")

    other = browsers(PHONE, language=language)
    other.get(f"{server.base}/join/{party['pin']}")
    wait(other, lambda: shown(other, "nickname-form"))
    name_yourself(other, "<B>ANNA</B> 🎧")
    wait(other, lambda: other.find_element(By.ID, "nickname-error").text == texts["taken"], message="a taken name, in the page's language")
    assert axe_violations(other) == []
    screenshot(other, f"nicknames-taken-phone-{language}")

    host = browsers(PHONE, language=language)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: shown(host, "controls-view") and host.find_element(By.ID, "nicknames").is_selected(), message="the host's switch")
    host.execute_script("document.getElementById('nicknames').scrollIntoView({block: 'center'})")
    host.find_element(By.ID, "nicknames").click()
    wait(tv, lambda: texts["by"] not in visible_text(tv), message="off hides every nickname on the TV at once")
    wait(guest, lambda: not shown(guest, "nickname-form"), message="the guest's field goes")
    assert axe_violations(host) == []
    screenshot(host, f"nicknames-host-rules-phone-{language}")


def test_guests_name_themselves_and_the_tv_shows_it_in_german(server, browsers):
    walk_the_nicknames(server, browsers, "de-DE")


def test_guests_name_themselves_and_the_tv_shows_it_in_english(server, browsers):
    walk_the_nicknames(server, browsers, "en-US")


def test_without_nicknames_guests_stay_anonymous(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: shown(guest, "party-view"))
    assert not shown(guest, "nickname-form")
    start = browsers(PHONE)
    start.get(server.base + "/")
    assert start.find_element(By.ID, "create-nicknames").get_attribute("checked") is None, "off unless the host asks"
