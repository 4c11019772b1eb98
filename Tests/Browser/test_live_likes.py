"""Issue 24: a like reaches every page as an event that carries the new count and order; pages apply it without
fetching the queue (at 50 guests every like once cost ~100 requests)."""
from selenium.webdriver.common.by import By

from conftest import PHONE, wait
from test_newcomer import open_host, playing_party, waiting


def queue_fetches(driver):
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(entry => entry.name.includes('/track/queue')).length")


def row_names(driver, list_id):
    return driver.execute_script(f"""return [...document.querySelectorAll('#{list_id} .track .track-name')]
        .map(name => name.textContent)""")


def test_a_like_reorders_guest_and_host_pages_without_a_queue_fetch(server, browsers):
    party = playing_party(server)
    last = waiting(server, party)[-1]
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: len(row_names(guest, "queue-list")) == len(waiting(server, party)), message="queue shown")
    host = open_host(browsers, server, party, size=PHONE)
    wait(host, lambda: last["name"] in row_names(host, "queue-list"), message="host rows shown")
    guest_before, host_before = queue_fetches(guest), queue_fetches(host)

    # Another phone likes the last waiting song: it moves to the top on both pages, its count shows.
    server.api("POST", f"/api/party/{party['id']}/track/vote", {"uri": last["uri"], "deviceId": "elsewhere"})
    wait(guest, lambda: row_names(guest, "queue-list")[:1] == [last["name"]], message="guest reordered")
    # The host's list starts with the playing song.
    wait(host, lambda: row_names(host, "queue-list")[1:2] == [last["name"]], message="host reordered")
    assert waiting(server, party)[0]["name"] == last["name"], "the order the server says"
    assert "1" in guest.find_element(By.CSS_SELECTOR, "#queue-list .track").text
    assert queue_fetches(guest) == guest_before and queue_fetches(host) == host_before, "applied from the event"


def current_fetches(driver):
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(entry => entry.name.includes('/track/current')).length")


def test_a_song_change_shows_on_guest_and_host_pages_without_fetching(server, browsers):
    party = playing_party(server)
    upcoming = waiting(server, party)
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: len(row_names(guest, "queue-list")) == len(upcoming), message="queue shown")
    host = open_host(browsers, server, party, size=PHONE)
    wait(host, lambda: upcoming[0]["name"] in row_names(host, "queue-list"), message="host rows shown")
    before = {page: (queue_fetches(page), current_fetches(page)) for page in (guest, host)}

    # The host skips from elsewhere (the iOS app): the first waiting song plays, every page shows it from the event.
    server.api("POST", f"/api/party/{party['id']}/track/next", auth=party["hostPin"])
    for page in (guest, host):
        wait(page, lambda: page.find_element(By.ID, "now-title").text == upcoming[0]["name"], message="new song shown")
    wait(guest, lambda: row_names(guest, "queue-list") == [entry["name"] for entry in upcoming[1:]],
         message="the guest's list lost the song that plays now, the rest in order")
    wait(host, lambda: row_names(host, "queue-list") == [entry["name"] for entry in upcoming],
         message="the host's list starts with the song that plays now")
    assert [entry["name"] for entry in waiting(server, party)] == [entry["name"] for entry in upcoming[1:]], "what the server says"
    for page in (guest, host):
        assert (queue_fetches(page), current_fetches(page)) == before[page], "applied from the event"
