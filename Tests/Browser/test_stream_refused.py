"""A guest page the server refuses a live stream (the party's guest streams are taken) is no dead page: it says so
quietly, keeps every button, adds and likes over plain requests and refreshes what others do every few seconds."""
from selenium.webdriver.common.by import By

from conftest import Server, axe_violations, screenshot, visible_text, wait

SMALL_PHONE = (360, 640)


def test_a_guest_without_a_live_stream_still_adds_likes_and_sees_the_queue_move(browsers):
    # Four streams for the party, two of them kept for the host and the TV: two guest pages take the rest.
    server = Server(arguments=("--max-streams-per-party", "4"))
    try:
        party = server.api("POST", "/api/party", {"provider": "demo"})
        server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:1", "deviceId": "early"})
        pages = []
        for _ in range(2):
            page = browsers(SMALL_PHONE)
            page.get(f"{server.base}/join/{party['pin']}")
            wait(page, lambda: page.find_elements(By.CSS_SELECTOR, "#queue-list .track"), message="queue shown")
            pages.append(page)
        for language, note in (("de-DE", "Live-Updates sind gerade ausgelastet"), ("en-US", "Live updates are busy right now")):
            late = browsers(SMALL_PHONE, language)
            late.get(f"{server.base}/join/{party['pin']}")
            wait(late, lambda: note in visible_text(late), message="the note says why")
            assert late.execute_script("return document.documentElement.dataset.offline") is None, "no outage banner"
            assert all(not banner.is_displayed() for banner in late.find_elements(By.ID, "offline-banner"))
            like = wait(late, lambda: late.find_element(By.CSS_SELECTOR, "#queue-list .track .like-button"))
            assert like.is_enabled(), "every button stays"
            like.click()
            wait(late, lambda: late.find_element(By.CSS_SELECTOR, "#queue-list .track .like-button").get_attribute("aria-pressed") == "true")
            # Another guest adds a song: the refused page shows it within a few seconds, without a stream.
            server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist",
                       {"uri": f"demo:track:{2 if language == 'de-DE' else 3}", "deviceId": f"other-{language}"})
            wait(late, lambda: len(late.find_elements(By.CSS_SELECTOR, "#queue-list .track")) == (2 if language == "de-DE" else 3),
                 timeout=12, message="polled")
            screenshot(late, f"guest-stream-refused-{language}")
            assert axe_violations(late) == []
        likes = server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"][0]["likeCount"]
        assert likes == 2, "both refused pages' likes counted"
    finally:
        server.stop()
