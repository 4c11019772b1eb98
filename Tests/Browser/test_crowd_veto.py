"""R17a crowd veto and R30 ban on the pages: guests veto beside the like and under the playing song, the TV and the
host show the tally, the skip reaches every screen; the host bans an adder with a confirmation, never learning who."""
from selenium.webdriver.common.by import By

from conftest import PHONE, TV, add, axe_violations, name_of, open_paired_tv, screenshot, uri_of, wait


def now_title(driver):
    return driver.execute_script("return document.getElementById('now-title').textContent")


def now_veto(driver):
    return driver.execute_script("""const box = document.getElementById('now-veto');
        return box.hidden ? '' : box.textContent""")


def open_guest(browsers, server, party, language="de-DE"):
    guest = browsers(PHONE, language=language)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: guest.execute_script("return !!document.querySelector('#now-veto button')"),
         message="the veto under the playing song")
    return guest


def veto_now(guest):
    guest.execute_script("document.querySelector('#now-veto button').click()")


def test_guests_veto_the_playing_song_and_tv_and_host_see_the_skip(long_server, browsers):
    server = long_server
    party = dict(server.api("POST", "/api/party", {"provider": "local", "fairQueue": True, "vetoShare": 0.4}), provider="local")
    tv = browsers(TV)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    add(server, party, 1, "host-phone")
    add(server, party, 2, "someone")
    add(server, party, 3, "someone-else")
    first, second = name_of(server, party, 1), name_of(server, party, 2)
    wait(tv, lambda: now_title(tv) == first, message="the TV plays the first song")

    guests = [open_guest(browsers, server, party) for _ in range(3)]
    host = browsers(PHONE)
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
    wait(host, lambda: now_title(host) == first)

    # Six active guests (three adders, three pages); song 1 is the host phone's, so five could veto it:
    # max(2, ⌈0.4 × 5⌉) = 2. One veto: every screen shows the tally; the song plays on.
    veto_now(guests[0])
    wait(guests[0], lambda: "1 von 2" in guests[0].find_element(By.ID, "now-veto").text, message="the guest's own tally")
    wait(tv, lambda: now_veto(tv) == "1 von 2 wollen weiter", message="the TV shows the tally")
    wait(host, lambda: now_veto(host) == "1 von 2 wollen weiter", message="the host shows the tally")
    wait(guests[2], lambda: "1 von 2" in guests[2].find_element(By.ID, "now-veto").text, message="the other guests see it live")
    assert now_title(tv) == first
    pressed = guests[0].find_element(By.CSS_SELECTOR, "#now-veto button").get_attribute("aria-pressed")
    assert pressed == "true"
    # The waiting songs carry their own veto beside the like.
    wait(guests[0], lambda: guests[0].execute_script("return document.querySelectorAll('#queue-list .veto-button').length") >= 2)
    for page in (guests[0], tv, host):
        assert axe_violations(page) == []
    screenshot(guests[0], "guest-veto-phone")
    screenshot(tv, "tv-veto")
    screenshot(host, "host-veto-phone")

    # The second veto skips it exactly as a host next: TV and host show the next song (polled, generous ceiling).
    veto_now(guests[2])
    wait(tv, lambda: now_title(tv) == second, message="the TV plays the next song")
    wait(host, lambda: now_title(host) == second, message="the host sees the skip")
    wait(guests[1], lambda: now_title(guests[1]) == second, message="the guests see it")
    wait(tv, lambda: now_veto(tv) == "", message="the new song has no vetoes")
    queue = server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"]
    assert not any(entry["uri"] == uri_of(server, party, 1) for entry in queue), "the skipped song left; nothing plays twice"


def test_the_host_bans_who_added_a_song_after_a_confirmation(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo", "vetoShare": 0.4})
    add(server, party, 1, "host-phone")
    add(server, party, 2, "troll")
    add(server, party, 3, "troll")
    add(server, party, 4, "friend")
    troll_song, friend_song = name_of(server, party, 2), name_of(server, party, 4)
    host = browsers(PHONE, language="en-US")
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
    row = wait(host, lambda: host.execute_script("""return [...document.querySelectorAll('#queue-list .track')]
        .find(row => row.querySelector('.track-name').textContent === arguments[0]) || null""", troll_song))
    host.execute_script("arguments[0].querySelector('[data-action=menu]').click()", row)
    ban = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "#queue-list .row-actions:not([hidden]) [data-action=ban]"))
    assert ban.text == "Ban whoever added this"
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", ban)
    ban.click()
    dialog = wait(host, lambda: host.find_element(By.CSS_SELECTOR, "dialog.dialog[open]"))
    assert "won't learn who" in dialog.text
    assert axe_violations(host) == []
    screenshot(host, "host-ban-confirm-phone")
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()
    wait(host, lambda: host.find_element(By.ID, "toast").text == "Banned: 2 songs removed.")
    names = lambda: host.execute_script("return [...document.querySelectorAll('#queue-list .track-name')].map(n => n.textContent)")
    wait(host, lambda: troll_song not in names() and friend_song in names(), message="the adder's songs left")
    assert "troll" not in host.execute_script("return document.body.innerText"), "the host never learns who"


def test_the_start_page_offers_the_veto_and_the_host_switches_it_live(server, browsers):
    from selenium.webdriver.support.ui import Select
    starter = browsers(PHONE)
    starter.get(server.base + "/")
    assert starter.find_element(By.ID, "create-veto").is_selected(), "offered switched on"
    assert starter.find_element(By.CSS_SELECTOR, "label:has(#create-veto)").text == "Überspringen per Abstimmung"
    starter.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
    wait(starter, lambda: starter.find_element(By.ID, "created").is_displayed())
    created = starter.find_element(By.ID, "created-monitor").get_attribute("href").split("party=")[1].split("&")[0]
    assert server.api("GET", f"/api/party/{created}/settings")["vetoShare"] == 0.4, "SPEC: the start page offers 0.4"

    # A party made through the API has the veto off; the host turns it on and the guest's buttons appear.
    # Two adders and the guest: three guests, so each song has two who could veto it (R17a offers it from there).
    party = server.api("POST", "/api/party", {"provider": "demo"})
    add(server, party, 1, "someone")
    add(server, party, 2, "someone-else")
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: guest.execute_script("return document.querySelectorAll('#queue-list .like-button').length") == 2)
    assert guest.execute_script("return document.querySelectorAll('.veto-button').length") == 0, "off: no veto buttons"
    host = browsers(PHONE, language="en-US")
    host.get(f"{server.base}/host#party={party['id']}&hostPin={party['hostPin']}")
    share = wait(host, lambda: host.find_element(By.ID, "veto-share"))
    wait(host, lambda: Select(share).first_selected_option.text == "Off")
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", share)
    Select(share).select_by_value("0.4")
    wait(host, lambda: host.find_element(By.ID, "toast").text == "Skipping at 40 % of the guests.")
    wait(guest, lambda: guest.execute_script("return document.querySelectorAll('#queue-list .veto-button').length") == 2,
         message="the guest's rows offer the veto without a reload")
    assert server.api("GET", f"/api/party/{party['id']}/settings")["vetoShare"] == 0.4
    assert axe_violations(host) == []
    screenshot(host, "host-rules-veto-phone")
