"""A page opened under a host name the server does not answer to (a router's DNS name): a page in the browser's
language that names the address to use and the option that allows the name, never raw JSON."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from conftest import axe_violations, driver_port, screenshot


def browser_resolving(name, language):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,1000", f"--lang={language}",
                     f"--host-resolver-rules=MAP {name} 127.0.0.1"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver", port=driver_port()), options=options)


def test_an_unknown_host_name_gets_a_page_that_says_what_to_do_in_both_languages(server):
    for language, heading, hint in (("de-DE", "Diese Adresse kennt der Server nicht", "starte den Server mit"),
                                    ("en-US", "The server doesn't know this address", "start the server with")):
        driver = browser_resolving("party.fritz.box", language)
        try:
            driver.get(f"http://party.fritz.box:{server.port}/join/12345")
            assert driver.find_element(By.TAG_NAME, "h1").text == heading
            text = driver.find_element(By.TAG_NAME, "main").text
            assert hint in text and "--allowed-host party.fritz.box" in text, text
            link = driver.find_element(By.CSS_SELECTOR, "main a.button").get_attribute("href")
            assert link.startswith("http://") and "party.fritz.box" not in link, link
            assert '"code"' not in driver.page_source and "unknown_host" not in driver.page_source, "never the raw JSON"
            styled = driver.execute_script("return getComputedStyle(document.querySelector('a.button')).borderRadius")
            assert styled not in ("", "0px"), "the page's styles load under the unknown name too"
            assert axe_violations(driver) == []
            screenshot(driver, f"unknown-host-{language}")
        finally:
            driver.quit()
