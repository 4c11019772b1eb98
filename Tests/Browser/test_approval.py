"""R35: where the host approves songs, a guest's song waits ("wartet auf Freigabe"), the host approves or declines it on
the host page's card, updated live, and the guest's page says what became of it; the TV plays the approved song. In
both languages, at phone and TV sizes, axe clean."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import PHONE, TV, axe_violations, open_paired_tv, screenshot, search_for, visible_text, wait

TEXTS = {
    "de-DE": {"waiting": "wartet auf Freigabe", "approved": "freigegeben", "declined": "abgelehnt",
              "heading": "Wartet auf Freigabe", "approve": "Freigeben", "decline": "Ablehnen"},
    "en-US": {"waiting": "waiting for approval", "approved": "approved", "declined": "declined",
              "heading": "Waiting for approval", "approve": "Approve", "decline": "Decline"},
}


def shown(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return bool(found) and found[0].is_displayed()


def own_pending(driver):
    return [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#my-pending-list li")]


def host_rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#pending-list li")


def add_from_results(guest, name):
    """Searches for `name` on the guest page and presses its "+"."""
    search_for(guest, name)
    button = f'#results [data-action=add][aria-label$="{name}"]'
    wait(guest, lambda: guest.find_elements(By.CSS_SELECTOR, button), message=f"{name} in the results")
    guest.find_element(By.CSS_SELECTOR, button).click()


def walk_the_approval(server, browsers, language):
    texts = TEXTS[language]
    party = server.api("POST", "/api/party", {"provider": "demo", "approval": "all"})
    tv = browsers(TV, language=language)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    host = browsers(PHONE, language=language)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: shown(host, "pending-card"), message="the host's card (approval is on)")
    assert Select(host.find_element(By.ID, "approval")).first_selected_option.get_attribute("value") == "all"
    guest = browsers(PHONE, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: shown(guest, "party-view"), message="the guest page")

    add_from_results(guest, "Neon Boulevard")
    wait(guest, lambda: own_pending(guest) == [f"Neon Boulevard – {texts['waiting']}"], message="the guest sees its song wait")
    assert guest.find_elements(By.CSS_SELECTOR, '#results [aria-disabled=true][aria-label$="Neon Boulevard"]'), "no second +"
    assert axe_violations(guest) == []
    screenshot(guest, f"approval-guest-waiting-phone-{language}")

    wait(host, lambda: len(host_rows(host)) == 1, message="the song on the host's card, live")
    assert texts["heading"] in host.find_element(By.ID, "pending-heading").text
    assert "Neon Boulevard" in host_rows(host)[0].text
    host.execute_script("document.getElementById('pending-card').scrollIntoView()")
    assert axe_violations(host) == []
    screenshot(host, f"approval-host-card-phone-{language}")
    host.find_element(By.CSS_SELECTOR, "#pending-list [data-action=approve]").click()
    wait(guest, lambda: f"Neon Boulevard – {texts['approved']}" in own_pending(guest), message="the guest learns its fate")
    wait(tv, lambda: "Neon Boulevard" in visible_text(tv), message="the approved song plays on the TV")
    # Paused: the approved song is still the one in the queue when the steps below, however slow, are done.
    server.api("POST", f"/api/party/{party['id']}/track/pause", auth=party["hostPin"])

    add_from_results(guest, "Paper Planes at Noon")
    wait(host, lambda: len(host_rows(host)) == 1 and "Paper Planes" in host_rows(host)[0].text, message="the second song")
    host.find_element(By.CSS_SELECTOR, "#pending-list [data-action=decline]").click()
    wait(guest, lambda: f"Paper Planes at Noon – {texts['declined']}" in own_pending(guest), message="declined, said so")
    wait(host, lambda: len(host_rows(host)) == 0, message="the card empties")
    queue = server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"]
    requested = [entry["uri"] for entry in queue if not entry["autofilled"]]
    assert requested == ["demo:track:2"], "the approved song plays, the declined one never entered (the rest is R15's refill)"

    assert axe_violations(guest) == []
    screenshot(guest, f"approval-guest-fates-phone-{language}")
    assert axe_violations(tv) == []
    screenshot(tv, f"approval-tv-{language}")

    # The rules card turns it off; the card goes once nothing waits.
    Select(host.find_element(By.ID, "approval")).select_by_value("off")
    wait(host, lambda: server.api("GET", f"/api/party/{party['id']}/settings")["approval"] == "off", message="off on the server")
    wait(host, lambda: not shown(host, "pending-card"), message="the card hides")


def test_a_guests_song_waits_and_the_host_decides_it_in_german(server, browsers):
    walk_the_approval(server, browsers, "de-DE")


def test_a_guests_song_waits_and_the_host_decides_it_in_english(server, browsers):
    walk_the_approval(server, browsers, "en-US")


def test_the_start_page_offers_approval_switched_off(server, browsers):
    start = browsers(PHONE)
    start.get(server.base + "/")
    select = Select(start.find_element(By.ID, "create-approval"))
    assert select.first_selected_option.get_attribute("value") == "off"
    assert [option.get_attribute("value") for option in select.options] == ["off", "new-guests", "all"]
