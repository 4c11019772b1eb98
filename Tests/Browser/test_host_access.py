"""R24a: a host always gets back in. A new host PIN from the host page, a one-time link from the server's console
(`musicvoting host-link`), and a link into another party never silently replaces the saved host session."""
import subprocess
import urllib.error

from selenium.webdriver.common.by import By

from conftest import BINARY, axe_violations, screenshot, visible_text, wait
from test_newcomer import open_host, playing_party

SMALL_PHONE = (360, 640)


def session(driver):
    return driver.execute_script("return JSON.parse(localStorage.getItem('musicvoting.host'))")


def status(server, path, auth):
    try:
        server.api("GET", path, auth=auth)
        return 200
    except urllib.error.HTTPError as error:
        return error.code


def confirm_dialog(driver):
    return wait(driver, lambda: next(iter(driver.find_elements(By.CSS_SELECTOR, "dialog[open]")), None), message="asked")


def test_a_new_host_pin_from_the_host_page_locks_the_old_one_out_and_keeps_the_tv(server, browsers):
    for language, confirm_word, shown_word in (("de-DE", "Fernseher bleibt verbunden", "neue Host-PIN"),
                                               ("en-US", "TV stays connected", "new host PIN")):
        party = playing_party(server)
        host = open_host(browsers, server, party, size=SMALL_PHONE, language=language)
        stored = session(host)
        assert set(stored) == {"partyId", "hostToken"}, "the page keeps the host token, not the PIN"
        rotate = host.find_element(By.ID, "rotate-host-pin")
        host.execute_script("arguments[0].scrollIntoView({block: 'center'})", rotate)
        screenshot(host, f"host-access-card-{language}")
        rotate.click()
        dialog = confirm_dialog(host)
        assert confirm_word in dialog.text
        screenshot(host, f"host-rotate-confirm-{language}")
        assert axe_violations(host) == []
        dialog.find_element(By.CSS_SELECTOR, "[data-answer=yes]").click()
        wait(host, lambda: session(host) and session(host)["hostToken"] != stored["hostToken"], message="a new token")
        wait(host, lambda: host.find_element(By.ID, "controls-view").is_displayed())
        new_pin = wait(host, lambda: host.find_element(By.ID, "host-pin").text, message="the new PIN is shown once")
        assert new_pin != party["hostPin"] and len(new_pin) == 5
        assert shown_word.lower() in visible_text(host).lower()
        screenshot(host, f"host-rotated-{language}")
        assert axe_violations(host) == []
        base = f"/api/party/{party['id']}"
        assert status(server, f"{base}/blacklist", party["hostPin"]) == 403, "the old PIN is out"
        assert status(server, f"{base}/blacklist", stored["hostToken"]) == 403, "and the old token"
        assert status(server, f"{base}/blacklist", new_pin) == 200
        assert server.api("GET", f"{base}/track/current")["deviceActive"] is True, "the TV stays paired"


def test_a_console_link_brings_the_host_back_once_and_a_link_into_another_party_asks_first(server, browsers):
    mine, other = playing_party(server), playing_party(server)
    host = open_host(browsers, server, mine, size=SMALL_PHONE)
    # A link into another party (a guest could send one) does not silently replace the saved session. A link opens
    # as a new page (from a messenger), not as a change of this page's hash.
    host.get("about:blank")
    host.get(f"{server.base}/host#party={other['id']}&hostPin={other['hostPin']}")
    dialog = confirm_dialog(host)
    assert "anderen Party" in dialog.text
    screenshot(host, "host-switch-party-confirm-phone-360")
    assert axe_violations(host) == []
    dialog.find_element(By.CSS_SELECTOR, "[data-answer=no]").click()
    wait(host, lambda: host.find_element(By.ID, "host-guest-pin").text == mine["pin"], message="still my party")
    assert session(host)["partyId"] == mine["id"]

    # Every phone lost: the server's console makes a one-time link.
    console = subprocess.run([BINARY, "host-link", mine["pin"], "--data", server.data, "--port", str(server.port)],
                             capture_output=True, text=True, timeout=20)
    assert console.returncode == 0, console.stderr
    link = console.stdout.strip().splitlines()[-1]
    assert link.startswith(f"http://127.0.0.1:{server.port}/host#party={mine['id']}&recovery=")
    phone = browsers(SMALL_PHONE, "en-US")
    phone.get(link)
    wait(phone, lambda: phone.find_element(By.ID, "controls-view").is_displayed(), message="back in")
    wait(phone, lambda: "You are back in" in visible_text(phone))
    assert "#" not in phone.current_url, "the token left the address bar"
    screenshot(phone, "host-recovered-phone-360-en")
    assert axe_violations(phone) == []
    reveal = phone.find_element(By.ID, "show-host-pin")
    phone.execute_script("arguments[0].scrollIntoView({block: 'center'})", reveal)
    reveal.click()
    new_pin = wait(phone, lambda: phone.find_element(By.ID, "host-pin").text)
    assert new_pin != mine["hostPin"]
    assert status(server, f"/api/party/{mine['id']}/blacklist", mine["hostPin"]) == 403

    # The same link again, on a phone with no session: it says so and offers the login.
    again = browsers(SMALL_PHONE)
    again.get(link)
    wait(again, lambda: again.find_element(By.ID, "login").is_displayed())
    wait(again, lambda: "abgelaufen oder wurde schon benutzt" in visible_text(again))
    screenshot(again, "host-recovery-used-phone-360")
    assert axe_violations(again) == []
