"""R18a: guests see when each waiting song starts and their own songs with place and time; the TV shows the times."""
from selenium.webdriver.common.by import By

from conftest import PHONE, TV, axe_violations, open_paired_tv, screenshot, wait


def start_texts(driver):
    return driver.execute_script("""return [...document.querySelectorAll('#queue-list .track')]
        .map(row => (row.querySelector('.track-start') || {}).textContent || '')""")


def test_guests_see_start_times_and_their_own_songs_and_the_tv_shows_the_times(server, browsers):
    party = server.api("POST", "/api/party", {"provider": "demo"})
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:1", "deviceId": "someone-else"})
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    wait(guest, lambda: len(start_texts(guest)) == 1)
    device = guest.execute_script("return localStorage.getItem('musicvoting.deviceId')")
    device = (device or "").strip('"')
    assert device, "the page keeps its device id"
    server.api("POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": "demo:track:2", "deviceId": device})
    wait(guest, lambda: start_texts(guest) == ["in ~1 Min.", "in ~1 Min."], message="every waiting song says when")
    entry = [e for e in server.api("GET", f"/api/party/{party['id']}/track/queue")["queue"] if e["uri"] == "demo:track:2"][0]
    wait(guest, lambda: guest.find_element(By.ID, "my-songs").is_displayed(), message="my songs")
    items = [item.text for item in guest.find_elements(By.CSS_SELECTOR, "#my-songs-list li")]
    assert items == [f"{entry['name']} – Platz 2, in ~1 Min."], items
    assert axe_violations(guest) == []
    screenshot(guest, "guest-start-times-phone")

    tv = browsers(TV)
    open_paired_tv(tv, f"{server.base}/monitor#party={party['id']}&hostPin={party['hostPin']}")
    wait(tv, lambda: [e.text for e in tv.find_elements(By.CSS_SELECTOR, "#queue-list .track-start") if e.is_displayed()] != [],
         message="the TV's up-next rows show their times")
    screenshot(tv, "tv-start-times")

    english = browsers(PHONE, language="en-US")
    english.get(f"{server.base}/join/{party['pin']}")
    wait(english, lambda: "in ~1 min" in start_texts(english))


def test_start_times_count_down_only_while_the_song_plays(server, browsers):
    """R18a on the pages: the page's times are from when it read the queue; `StartClock` takes off the time the
    current song has played since (not while paused). Checked on the module itself with a moved clock: waiting a
    real minute for "in ~N Min." to change would make the test slow."""
    party = server.api("POST", "/api/party", {"provider": "demo"})
    guest = browsers(PHONE)
    guest.get(f"{server.base}/join/{party['pin']}")
    result = guest.execute_async_script("""const done = arguments[arguments.length - 1];
        const url = document.querySelector('script[type=module]').src.replace('pages/guest.js', 'start-times.js');
        import(url).then(({ StartClock }) => {
          const nowPlaying = { state: { isPlaying: true } };
          const clock = new StartClock(nowPlaying);
          clock.sampledAt -= 120000;                   // two minutes of playing
          const playing = clock.remaining(300000);
          nowPlaying.state.isPlaying = false;
          clock.sampledAt -= 60000;                    // a paused minute
          const paused = clock.remaining(300000);
          const queue = [{ isCurrentlyPlaying: false, startsInMs: 300000 }];
          clock.settle(queue);                         // an event retimes from what the page holds
          done({ playing, paused, settled: queue[0].startsInMs, after: clock.remaining(queue[0].startsInMs) });
        }).catch((error) => done({ error: String(error) }));""")
    assert "error" not in result, result
    assert 179000 <= result["playing"] <= 181000, result
    assert 179000 <= result["paused"] <= 181000, "a paused song moves nothing"
    assert 179000 <= result["settled"] <= 181000 and 179000 <= result["after"] <= 181000, result
