"""The crowd features as a newcomer meets them: a party of three skips a song with the votes the page says it needs
(R17a counts the guests who could veto it), everyone the removal concerns is told once in their language, focus
stays on a control, the ban is offered on waiting songs only, and plurals read right."""
from selenium.webdriver.common.by import By

from conftest import PHONE, TV, add, axe_violations, name_of, open_paired_tv, reporting_tv, screenshot, wait


def device_of(driver):
    return driver.execute_script("return JSON.parse(localStorage.getItem('musicvoting.deviceId') || 'null')")


def text_of(driver, element_id):
    return driver.execute_script("const node = document.getElementById(arguments[0]); return node.hidden ? '' : node.textContent", element_id)


def record_toasts(*drivers):
    """Keeps every toast a page shows from now on: a toast hides after 4 s, and a busy machine's other pages can take
    longer than that to catch up before the test looks."""
    for driver in drivers:
        driver.execute_script("""window.toastsShown = [];
            const toast = document.getElementById('toast');
            new MutationObserver(() => { if (!toast.hidden) window.toastsShown.push(toast.textContent); })
                .observe(toast, {attributes: true, childList: true, characterData: true, subtree: true});""")


def toast_says(driver, text):
    """Whether the page shows the toast `text`, or showed it since `record_toasts`."""
    return driver.execute_script("""const toast = document.getElementById('toast');
        return (!toast.hidden && toast.textContent === arguments[0]) || (window.toastsShown || []).includes(arguments[0])""", text)


def open_guest(browsers, server, party, language):
    guest = browsers(PHONE, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: device_of(guest), message="the guest page has its device id")
    return guest


def test_a_party_of_three_skips_a_song_with_the_votes_the_page_says_and_everyone_is_told(long_server, browsers):
    server = long_server
    party = dict(server.api("POST", "/api/party", {"provider": "local", "fairQueue": True, "vetoShare": 0.4}), provider="local")
    tv = browsers(TV)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    adder = open_guest(browsers, server, party, "en-US")
    voters = [open_guest(browsers, server, party, "de-DE") for _ in range(2)]
    add(server, party, 1, device_of(adder))
    add(server, party, 2, device_of(voters[0]))
    add(server, party, 3, device_of(voters[1]))
    first, second = name_of(server, party, 1), name_of(server, party, 2)
    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
    wait(tv, lambda: text_of(tv, "now-title") == first, message="the TV plays the adder's song")

    # Three guests: the two others could veto the adder's song, and both are needed. The adder's page offers none.
    for voter in voters:
        wait(voter, lambda: "0 von 2" in text_of(voter, "now-veto"), message="the page says two are needed")
    wait(adder, lambda: adder.execute_script("""return [...document.querySelectorAll('#queue-list .track')]
        .filter(row => [arguments[0], arguments[1]].includes(row.querySelector('.track-name').textContent))
        .every(row => row.querySelector('.veto-button'))""", second, name_of(server, party, 3)), message="the adder sees the others' songs' veto")
    assert text_of(adder, "now-veto") == "", "never a veto on one's own song"

    voters[0].execute_script("document.querySelector('#now-veto button').focus()")
    voters[0].switch_to.active_element.click()
    wait(voters[0], lambda: "1 von 2" in text_of(voters[0], "now-veto"))
    wait(tv, lambda: text_of(tv, "now-veto") == "1 von 2 wollen weiter", message="the TV shows the tally")
    assert voters[0].execute_script("return document.activeElement.closest('#now-veto') !== null"), "focus stays on the veto"
    for page in (voters[0], tv):
        assert axe_violations(page) == []
    screenshot(voters[0], "guest-veto-small-party-phone")

    record_toasts(adder, host)
    voters[1].execute_script("document.querySelector('#now-veto button').focus()")
    voters[1].switch_to.active_element.click()
    wait(tv, lambda: text_of(tv, "now-title") == second, message="two of two skip the song")
    wait(adder, lambda: toast_says(adder, f"Your song “{first}” was voted away by the crowd."), message="the adder is told, in English")
    wait(host, lambda: toast_says(host, f"Die Crowd hat „{first}“ übersprungen."), message="the host is told")
    wait(tv, lambda: text_of(tv, "monitor-notice") == f"Von der Crowd übersprungen: „{first}“", message="the TV says a short line")
    focused = voters[1].execute_script("return document.activeElement === document.body ? 'body' : document.activeElement.id || document.activeElement.tagName")
    assert focused != "body", "focus moves to the next sensible control, never the page body"
    screenshot(adder, "guest-song-voted-away-phone")
    screenshot(tv, "tv-crowd-skipped")
    assert axe_violations(adder) == []


def test_a_waiting_song_voted_away_or_removed_by_the_host_is_told_to_its_adder_once(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo", "vetoShare": 0.4})
    add(server, party, 1, "host-phone")
    guest = open_guest(browsers, server, party, "de-DE")
    add(server, party, 2, device_of(guest))
    add(server, party, 3, device_of(guest))
    second, third = name_of(server, party, 2), name_of(server, party, 3)
    wait(guest, lambda: not guest.find_element(By.ID, "my-songs").get_attribute("hidden"), message="Meine Songs")
    # Two others veto the guest's waiting song 2 (four active guests: three could, max(2, ⌈1.2⌉) = 2 needed).
    for voter in ("v1", "v2"):
        server.api("POST", f"/api/party/{party['id']}/track/veto", {"uri": "demo:track:2", "deviceId": voter})
    wait(guest, lambda: toast_says(guest, f"Dein Song „{second}“ wurde von der Crowd abgewählt."), message="voted away")
    server.api("DELETE", f"/api/party/{party['id']}/track/remove", {"uri": "demo:track:3"}, auth=party["hostPin"])
    wait(guest, lambda: toast_says(guest, f"Der Host hat deinen Song „{third}“ entfernt."), message="removed by the host")
    wait(guest, lambda: guest.find_element(By.ID, "my-songs").get_attribute("hidden") is not None, message="Meine Songs empty")


def test_the_ban_is_offered_on_waiting_songs_lift_has_its_own_place_and_plurals_read_right(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo", "vetoShare": 0.4})
    reporting_tv(server, party)
    add(server, party, 1, "troll")
    add(server, party, 2, "troll")
    add(server, party, 3, "friend")
    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
    rows = lambda: host.execute_script("""return [...document.querySelectorAll('#queue-list .track')].map(row =>
        ({playing: row.classList.contains('is-current'), ban: !!row.querySelector('[data-action=ban]'),
          name: row.querySelector('.track-name').textContent}))""")
    wait(host, lambda: len(rows()) >= 3)
    playing_name = name_of(server, party, 1)
    assert not next(row for row in rows() if row["name"] == playing_name)["ban"], "no ban on the playing song"
    assert sum(1 for row in rows() if row["ban"]) == 2, rows()
    lift = host.find_element(By.ID, "lift-bans")
    card = lift.find_element(By.XPATH, "ancestor::section")
    assert card.find_element(By.TAG_NAME, "h2").text == "Gesperrte Gäste"
    assert "blacklist" not in (card.get_attribute("aria-labelledby") or "")
    # One song left with the ban: "1 Song", never "1 Songs".
    row = host.execute_script("""return [...document.querySelectorAll('#queue-list .track')]
        .find(row => row.querySelector('[data-action=ban]') && row.querySelector('.track-name').textContent === arguments[0])""",
                              name_of(server, party, 3))
    host.execute_script("arguments[0].querySelector('[data-action=menu]').click()", row)
    ban = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "#queue-list .row-actions:not([hidden]) [data-action=ban]"))
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", ban)
    ban.click()
    wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog.dialog[open] [data-answer=yes]")).click()
    wait(host, lambda: toast_says(host, "Gesperrt: 1 Song entfernt."), message="singular")
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    assert axe_violations(host) == []
    screenshot(host, "host-bans-card-phone")


def test_one_like_reads_as_one_like(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    add(server, party, 1, "a")
    add(server, party, 2, "b")
    server.api("POST", f"/api/party/{party['id']}/track/vote", {"uri": "demo:track:2", "deviceId": "c"})
    for language, one in (("de-DE", "1 Like"), ("en-US", "1 like")):
        guest = browsers(PHONE, language=language)
        guest.get(f"{server.base}/join/{party['pin']}")
        label = wait(guest, lambda: guest.execute_script("""const button = document.querySelector('#queue-list .like-button');
            return button && button.getAttribute('aria-label')"""))
        assert f"({one})" in label, label


def test_a_guests_playing_song_counts_in_fair_order_and_its_own_songs_are_marked(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo", "fairQueue": True})
    reporting_tv(server, party)
    flooder = open_guest(browsers, server, party, "en-US")
    neighbour = open_guest(browsers, server, party, "de-DE")
    add(server, party, 1, device_of(flooder))
    add(server, party, 2, device_of(flooder))
    add(server, party, 3, "b")
    add(server, party, 4, "c")
    wait(flooder, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["state"] == "playing")
    # R9b: the flooder's first song plays, so its second waits behind B's and C's first.
    expected = [name_of(server, party, number) for number in (3, 4, 2)]
    rows = lambda driver: driver.execute_script("""return [...document.querySelectorAll('#queue-list .track')].map(row =>
        [row.querySelector('.track-name').textContent, (row.querySelector('.track-badge.mine') || {}).textContent || ''])""")
    wait(flooder, lambda: [name for name, _ in rows(flooder)][:3] == expected, message="B1, C1, then A2")
    marks = dict(rows(flooder))
    assert marks[expected[2]] == "yours" and marks[expected[0]] == "", marks
    wait(neighbour, lambda: [name for name, _ in rows(neighbour)][:3] == expected)
    assert all(mark == "" for _, mark in rows(neighbour)), "never who else added a song"
    neighbour_mine = device_of(neighbour)
    add(server, party, 5, neighbour_mine)
    wait(neighbour, lambda: dict(rows(neighbour)).get(name_of(server, party, 5)) == "dein Song", message="marked in German")
    assert axe_violations(flooder) == [] and axe_violations(neighbour) == []
    screenshot(flooder, "guest-own-song-marked-phone")
