"""R34: the host makes a co-host link (a QR code and a link), a co-host's phone opens it and gets the host's controls
without ending the party, the settings, the co-hosts, the default playlist and the PINs; it skips a song; the host
revokes the link and the co-host's page says so at once. German and English, phone and TV sizes, axe-core clean."""
import re

from selenium.webdriver.common.by import By

from conftest import PHONE, TV, axe_violations, screenshot, severe_console_errors, unexpected_console_errors, visible_text, wait
from test_newcomer import SMALL_PHONE, open_host, playing_party

HOST_ONLY = ("end-party", "fair-queue", "show-host-pin", "rotate-host-pin", "playlist", "cohosts-card", "logout", "spotify-card", "login")
SHARED = ("play-pause", "skip", "queue-list", "blacklist-form", "lift-bans", "host-search", "tv-card", "played-card", "cohost-leave")


def make_link(host):
    create = host.find_element(By.ID, "cohost-create")
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", create)
    create.click()
    wait(host, lambda: host.find_element(By.ID, "cohost-new").is_displayed(), message="the new link is shown")
    wait(host, lambda: host.execute_script("return document.getElementById('cohost-qr').naturalWidth") > 0, message="its QR code")
    return host.find_element(By.ID, "cohost-url").text


def listed(host):
    return host.execute_script("return [...document.querySelectorAll('#cohost-list .cohost')].map(row => row.innerText)")


def confirm(driver):
    dialog = wait(driver, lambda: next(iter(driver.find_elements(By.CSS_SELECTOR, "dialog[open]")), None), message="asked")
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()


def open_cohost(browsers, url, size, language):
    phone = browsers(size, language)
    phone.get(url)
    wait(phone, lambda: phone.find_element(By.ID, "controls-view").is_displayed(), message="the co-host's controls")
    wait(phone, lambda: len(phone.find_elements(By.CSS_SELECTOR, "#queue-list .track")) >= 2, message="the queue")
    wait(phone, lambda: not phone.find_element(By.ID, "skip").get_attribute("disabled"), message="skip is enabled: the TV plays")
    return phone


def test_a_cohost_controls_the_party_without_the_hosts_own_cards_until_the_host_revokes_it(server, browsers):
    for language, words in (("de-DE", {"heading": "Co-Host-Steuerung", "joined": "dabei seit", "revoked": "zurückgezogen"}),
                            ("en-US", {"heading": "Co-host controls", "joined": "joined at", "revoked": "withdrawn"})):
        suffix = language[:2]
        party = playing_party(server)
        host = open_host(browsers, server, party, size=SMALL_PHONE, language=language)
        url = make_link(host)
        assert url.startswith(f"{server.base}/cohost#party={party['id']}&cohost=")
        screenshot(host, f"cohosts-host-new-link-phone-{suffix}")
        assert axe_violations(host) == []

        phone = open_cohost(browsers, url, PHONE, language)
        assert "#" not in phone.current_url, "the token left the address bar"
        assert phone.execute_script("return JSON.parse(localStorage.getItem('musicvoting.cohost')).partyId") == party["id"]
        assert phone.find_element(By.CSS_SELECTOR, ".bar-heading").text.strip() == words["heading"]
        assert [name for name in HOST_ONLY if phone.find_elements(By.ID, name)] == [], "the host's own cards are not on the page"
        assert [name for name in SHARED if not phone.find_elements(By.ID, name)] == []
        # The PIN as a value of its own (five random digits can also sit inside a colour or an asset's name).
        alone = re.compile(rf"(?<![0-9A-Za-z]){party['hostPin']}(?![0-9A-Za-z])")
        assert not alone.search(phone.page_source) and not alone.search(visible_text(phone))
        screenshot(phone, f"cohosts-cohost-phone-{suffix}")
        assert axe_violations(phone) == []
        phone.execute_script("document.getElementById('cohost-leave').scrollIntoView({block: 'end'})")
        screenshot(phone, f"cohosts-cohost-page-end-phone-{suffix}")
        phone.execute_script("window.scrollTo(0, 0)")

        # The host's list shows the co-host as joined; the co-host skips the song.
        wait(host, lambda: any(words["joined"] in row for row in listed(host)), message="joined in the host's list")
        host.find_element(By.ID, "cohost-done").click()
        assert host.find_element(By.ID, "cohost-url").text == "", "the link leaves the host's page once passed on"
        before = server.api("GET", f"/api/party/{party['id']}/track/current")["track"]["uri"]
        phone.find_element(By.ID, "skip").click()
        wait(phone, lambda: server.api("GET", f"/api/party/{party['id']}/track/current")["track"]["uri"] != before, message="skipped")
        screenshot(phone, f"cohosts-cohost-skipped-phone-{suffix}")

        # The host revokes it: the co-host's page says so at once, and its phone forgets the link.
        revoke = host.find_element(By.CSS_SELECTOR, "#cohost-list [data-action=revoke-cohost]")
        host.execute_script("arguments[0].scrollIntoView({block: 'center'})", revoke)
        revoke.click()
        confirm(host)
        wait(phone, lambda: phone.find_element(By.ID, "cohost-gone").is_displayed(), message="the co-host learns it")
        assert words["revoked"] in phone.find_element(By.ID, "cohost-gone-message").text
        assert not phone.find_element(By.ID, "controls-view").is_displayed()
        assert phone.execute_script("return localStorage.getItem('musicvoting.cohost')") is None
        wait(host, lambda: listed(host) == [], message="the host's list is empty")
        screenshot(phone, f"cohosts-cohost-revoked-phone-{suffix}")
        screenshot(host, f"cohosts-host-after-revoke-phone-{suffix}")
        assert axe_violations(phone) == []
        assert axe_violations(host) == []
        assert unexpected_console_errors(severe_console_errors(phone), []) == []


def test_on_a_tv_sized_screen_too_and_revoking_all_stops_every_cohost(server, browsers):
    party = playing_party(server)
    host = open_host(browsers, server, party, size=TV, language="en-US")
    first, second = make_link(host), make_link(host)
    screen = open_cohost(browsers, first, TV, "en-US")
    phone = open_cohost(browsers, second, SMALL_PHONE, "de-DE")
    screenshot(screen, "cohosts-cohost-tv-en")
    assert axe_violations(screen) == []
    wait(host, lambda: len(listed(host)) == 2 and all("joined at" in row for row in listed(host)), message="both joined")
    screenshot(host, "cohosts-host-list-tv-en")
    assert axe_violations(host) == []

    revoke_all = host.find_element(By.ID, "cohosts-revoke-all")
    host.execute_script("arguments[0].scrollIntoView({block: 'center'})", revoke_all)
    revoke_all.click()
    confirm(host)
    for page in (screen, phone):
        wait(page, lambda: page.find_element(By.ID, "cohost-gone").is_displayed(), message="every co-host learns it")
    screenshot(screen, "cohosts-cohost-revoked-tv-en")
    assert axe_violations(screen) == []

    # Opened again later, the revoked link says so instead of showing controls.
    again = browsers(SMALL_PHONE, "de-DE")
    again.get(first)
    wait(again, lambda: again.find_element(By.ID, "cohost-gone").is_displayed())
    assert "zurückgezogen" in again.find_element(By.ID, "cohost-gone-message").text
    assert unexpected_console_errors(severe_console_errors(again), [(r"^/api/party/[0-9a-f]+$", 403)]) == []
