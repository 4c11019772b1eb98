"""Issue 14: a party a newcomer runs from across the room, at the viewports of real devices.

TV 1920×1080 and 1280×720, phones 390×844 and 360×640, desktop 1440×900; German and English; axe-core on every
state; a screenshot of each state in test-output/screenshots/.
"""
import re

from selenium.webdriver.common.by import By

from conftest import axe_violations, screenshot, type_code, visible_text, wait

TV, TV720 = (1920, 1080), (1280, 720)
PHONE, SMALL_PHONE, DESKTOP = (390, 844), (360, 640), (1440, 900)


def create_party_on_the_start_page(driver, server):
    driver.get(server.base + "/")
    driver.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
    wait(driver, lambda: driver.find_element(By.ID, "created").is_displayed())
    wait(driver, lambda: driver.execute_script("return document.getElementById('created-qr').naturalWidth") > 0)
    return driver.execute_script("return JSON.parse(localStorage.getItem('musicvoting.host'))")


def in_viewport(driver, element_id):
    return driver.execute_script("""const r = document.getElementById(arguments[0]).getBoundingClientRect();
        return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && r.height > 0""", element_id)


def test_the_ready_screen_hides_the_host_pin_until_asked_and_names_the_tv_address(server, browsers):
    for size, language, name in ((SMALL_PHONE, "de-DE", "phone-360"), (DESKTOP, "en-US", "desktop")):
        driver = browsers(size, language)
        session = create_party_on_the_start_page(driver, server)
        host_pin = session["hostPin"]
        assert host_pin not in visible_text(driver), "the host PIN is not on screen before it is asked for"
        guests = driver.find_element(By.CSS_SELECTOR, "#created .created-part").get_attribute("innerText")
        assert host_pin not in guests and driver.find_element(By.ID, "created-qr").is_displayed()
        assert driver.find_element(By.ID, "created-tv-address").text == server.base + "/tv"
        # The join card and the login card give way to the ready screen.
        assert not driver.find_element(By.ID, "join-heading").is_displayed()
        screenshot(driver, f"start-ready-{name}")
        assert axe_violations(driver) == []

        reveal = driver.find_element(By.ID, "show-host-pin")
        assert reveal.get_attribute("aria-expanded") == "false"
        reveal.click()
        wait(driver, lambda: driver.find_element(By.ID, "created-host-pin").text == host_pin)
        assert reveal.get_attribute("aria-expanded") == "true"
        assert "keep" not in guests.lower()
        hint = "Merk sie dir" if language == "de-DE" else "Remember it"
        assert hint in visible_text(driver)
        screenshot(driver, f"start-ready-host-pin-shown-{name}")
        reveal.click()
        assert host_pin not in visible_text(driver), "hidden again"


def test_a_tv_pairs_in_one_step_with_its_code_or_its_qr_code(server, browsers):
    host = browsers(PHONE)
    session = create_party_on_the_start_page(host, server)
    party = server.api("GET", f"/api/party/{session['partyId']}")

    # The TV at its short address shows a code and the QR code of the host page that claims it.
    tv = browsers(TV)
    tv.get(server.base + "/tv")
    wait(tv, lambda: re.fullmatch(r"\d{3} \d{3}", tv.find_element(By.ID, "pair-code").text), message="code shown")
    wait(tv, lambda: tv.execute_script("return document.getElementById('pair-qr').naturalWidth") > 0, message="QR")
    assert in_viewport(tv, "pair-code") and in_viewport(tv, "pair-qr")
    code = tv.find_element(By.ID, "pair-code").text.replace(" ", "")
    screenshot(tv, "tv-pairing-tv")
    assert axe_violations(tv) == []

    # The host types it on the ready screen; the TV starts by itself.
    type_code(host, "tv", code)
    wait(host, lambda: host.find_element(By.ID, "created-tv-paired").text == "Fernseher verbunden.")
    wait(tv, lambda: tv.find_element(By.ID, "stage").is_displayed(), message="the TV shows the party")
    wait(tv, lambda: tv.find_element(By.ID, "monitor-pin").text == party["pin"])
    assert server.api("GET", f"/api/party/{party['id']}/track/current")["deviceActive"] is True

    # A second TV (720p, English) is paired by scanning its QR code with a phone that is not logged in yet.
    tv2 = browsers(TV720, "en-US")
    tv2.get(server.base + "/tv")
    wait(tv2, lambda: re.fullmatch(r"\d{3} \d{3}", tv2.find_element(By.ID, "pair-code").text))
    wait(tv2, lambda: tv2.execute_script("return document.getElementById('pair-qr').naturalWidth") > 0)
    assert in_viewport(tv2, "pair-code") and in_viewport(tv2, "pair-qr")
    screenshot(tv2, "tv-pairing-tv720-en")
    assert axe_violations(tv2) == []
    code2 = tv2.find_element(By.ID, "pair-code").text.replace(" ", "")
    phone = browsers(SMALL_PHONE)
    phone.get(f"{server.base}/host#pairTv={code2}")
    wait(phone, lambda: phone.find_element(By.ID, "login").is_displayed())
    assert phone.find_element(By.ID, "login-tv-hint").is_displayed()
    screenshot(phone, "host-login-for-tv-phone-360")
    assert axe_violations(phone) == []
    type_code(phone, "login", session["hostPin"])
    wait(phone, lambda: phone.find_element(By.ID, "tv-paired").text == "Fernseher verbunden.")
    wait(tv2, lambda: tv2.find_element(By.ID, "stage").is_displayed(), message="the second TV shows the party")
    assert "#" not in phone.current_url, "the code left the address bar"

    # The PIN stays the fallback: a third TV opens the fallback and types the host PIN with the remote.
    tv3 = browsers(TV720)
    tv3.get(server.base + "/tv")
    tv3.find_element(By.CSS_SELECTOR, "#pair-fallback summary").click()
    type_code(tv3, "pair", session["hostPin"])
    wait(tv3, lambda: tv3.find_element(By.ID, "stage").is_displayed(), message="paired with the PIN")
