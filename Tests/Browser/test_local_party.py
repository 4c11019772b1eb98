"""A party on the host's own files (`--library`): created in the UI, played by the monitor's <audio>."""
import math, os, shutil, struct, tempfile, wave

from selenium.webdriver.common.by import By

from conftest import PHONE, TV, Server, screenshot, search_for, wait


def write_song(path, seconds, pitch):
    with wave.open(path, "wb") as song:
        song.setnchannels(1)
        song.setsampwidth(2)
        song.setframerate(16000)
        song.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(i * pitch))) for i in range(16000 * seconds)))


def test_a_party_plays_the_hosts_own_files(browsers):
    library = tempfile.mkdtemp(prefix="mv-library-")
    os.makedirs(os.path.join(library, "Hochzeit"))
    write_song(os.path.join(library, "Hochzeit", "Erster Tanz.wav"), 6, 0.05)
    write_song(os.path.join(library, "Hochzeit", "Polonaise.wav"), 6, 0.08)
    server = Server(arguments=("--library", library))
    try:
        host = browsers(PHONE)
        host.get(server.base + "/")
        host.find_element(By.CSS_SELECTOR, 'input[name="provider"][value="local"]').click()
        host.find_element(By.CSS_SELECTOR, "#create-form button[type=submit]").click()
        wait(host, lambda: host.find_element(By.ID, "created").is_displayed())
        pin = host.find_element(By.ID, "created-pin").text
        monitor_link = host.find_element(By.ID, "created-monitor").get_attribute("href")

        monitor = browsers(TV)
        monitor.get(monitor_link)
        wait(monitor, lambda: monitor.find_element(By.ID, "stage").is_displayed())

        guest = browsers(PHONE)
        guest.get(f"{server.base}/join/{pin}")
        wait(guest, lambda: len(guest.find_elements(By.CSS_SELECTOR, "#results .track")) == 2, message="the library's songs")
        search_for(guest, "polonaise")
        wait(guest, lambda: len(guest.find_elements(By.CSS_SELECTOR, "#results .track .add-button")) == 1)
        guest.find_element(By.CSS_SELECTOR, "#results .track .add-button").click()

        # R16: the monitor is connected, so the first song starts by itself.
        wait(monitor, lambda: monitor.find_element(By.ID, "now-title").text == "Polonaise", message="monitor plays it")
        wait(monitor, lambda: monitor.execute_script("return document.getElementById('player').currentTime") > 1.0,
             message="the file plays in <audio>")
        assert "/local/audio/" in monitor.execute_script("return document.getElementById('player').currentSrc")
        screenshot(monitor, "monitor-local-tv")
    finally:
        server.stop()
        shutil.rmtree(library, ignore_errors=True)
