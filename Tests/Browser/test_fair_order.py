"""R9b fair order: the start page offers it switched on, the host switches it live, every page shows the new order."""
from selenium.webdriver.common.by import By

from conftest import PHONE, add, axe_violations, screenshot, wait


def queue_names(driver):
    return driver.execute_script("""return [...document.querySelectorAll('#queue-list .track .track-name')]
        .map(name => name.firstChild ? name.firstChild.textContent : '')""")


def names_in_order(server, party, numbers):
    queue = server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"]
    name = {entry["uri"]: entry["name"] for entry in queue}
    return [name[f"demo:track:{number}"] for number in numbers]


def test_the_start_page_offers_fair_order_switched_on_in_both_languages(server, browsers):
    german = browsers(PHONE)
    german.get(server.base + "/")
    switch = german.find_element(By.ID, "create-fair-queue")
    assert switch.is_selected(), "offered switched on"
    assert german.find_element(By.CSS_SELECTOR, "label:has(#create-fair-queue)").text == "Faire Reihenfolge"
    assert axe_violations(german) == []
    screenshot(german, "start-fair-order-phone")
    german.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
    wait(german, lambda: german.find_element(By.ID, "created").is_displayed())
    party_id = german.find_element(By.ID, "created-monitor").get_attribute("href").split("party=")[1].split("&")[0]
    assert server.api("GET", f"/api/party/{party_id}/settings")["fairQueue"] is True

    english = browsers(PHONE, language="en-US")
    english.get(server.base + "/")
    assert english.find_element(By.CSS_SELECTOR, "label:has(#create-fair-queue)").text == "Fair order"
    assert "nobody fills the queue alone" in english.find_element(By.ID, "create-fair-queue-hint").text


def test_the_host_switches_fair_order_live_and_the_guest_sees_the_new_order(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    for number in (1, 2, 3):
        add(server, party, number, "guest-a")
    add(server, party, 4, "guest-b")
    plain = names_in_order(server, party, (1, 2, 3, 4))
    fair = names_in_order(server, party, (1, 4, 2, 3))

    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: queue_names(guest) == plain, message="R9 while fair order is off (the API default)")

    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    switch = wait(host, lambda: host.find_element(By.ID, "fair-queue"))
    wait(host, lambda: queue_names(host) == plain)
    assert not switch.is_selected()
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", switch)
    switch.click()
    wait(host, lambda: host.find_element(By.ID, "toast").text == "Faire Reihenfolge ist an.")
    wait(host, lambda: queue_names(host) == fair, message="the host's queue in fair order")
    wait(guest, lambda: queue_names(guest) == fair, message="the guest's queue follows without a reload")
    assert server.api("GET", f"/api/party/{party['id']}/settings")["fairQueue"] is True
    assert axe_violations(host) == []
    screenshot(host, "host-rules-fair-order-phone")

    switch.click()
    wait(guest, lambda: queue_names(guest) == plain, message="switched off: R9 again")
    assert not host.find_element(By.ID, "fair-queue").is_selected()
