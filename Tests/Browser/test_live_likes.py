"""A like reaches every page as an event that carries the new count and order; pages apply it without
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


def test_a_live_update_keeps_the_rows_it_did_not_change_and_the_keyboard_users_place(server, browsers):
    # A keyboard user is inside a row's menu when another phone's like arrives: the rows that did not change are the
    # same nodes afterwards (a screen reader keeps its place), the open menu stays open and focus stays on its item.
    party = playing_party(server)
    songs = waiting(server, party)
    first, last = songs[0], songs[-1]
    host = open_host(browsers, server, party, size=PHONE)
    wait(host, lambda: last["name"] in row_names(host, "queue-list"), message="host rows shown")
    host.execute_script("""const row = [...document.querySelectorAll('#queue-list .track')]
        .find(row => row.querySelector('.track-name').textContent === arguments[0]);
        row.querySelector('[data-action=menu]').click();""", first["name"])
    wait(host, lambda: host.execute_script(
        "return document.querySelector('#queue-list [aria-expanded=true]') !== null"), message="menu open")
    host.execute_script("""const open = document.querySelector('#queue-list [aria-expanded=true]').closest('.track');
        open.querySelector('[data-action=remove]').focus();
        window.markedRows = [...document.querySelectorAll('#queue-list .track')]
          .filter(row => row.querySelector('.track-name').textContent !== arguments[0]);""", last["name"])

    server.api("POST", f"/api/party/{party['id']}/track/vote", {"uri": last["uri"], "deviceId": "elsewhere"})
    wait(host, lambda: row_names(host, "queue-list")[1:2] == [last["name"]], message="host reordered")
    kept = host.execute_script("""const rows = new Set(document.querySelectorAll('#queue-list .track'));
        return window.markedRows.filter(row => rows.has(row)).length === window.markedRows.length""")
    assert kept, "the rows the like did not change are the same nodes"
    assert host.execute_script("return document.activeElement.dataset.action") == "remove", "focus stayed in the menu"
    assert host.execute_script("""return document.activeElement.closest('.track').querySelector('.track-name').textContent""") \
        == first["name"], "on the same row"
    assert host.execute_script("return document.querySelector('#queue-list [aria-expanded=true]') !== null"), "menu still open"
