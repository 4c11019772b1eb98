#!/usr/bin/env python3
"""Page weight on slow party Wi-Fi: prints figures, asserts nothing.

  apt-get install -y nginx chromium chromium-driver python3-selenium     # .ci/apt-bench.txt, .ci/apt-test.txt
  swift build -c release && python3 Tests/Benchmarks/page_load.py [--runs 3]

Debian's Chromium loads a guest's page over a throttled link (150 ms latency per request, 1.6 Mbit/s down,
0.8 Mbit/s up: Chrome's network emulation) from our server, and, side by side, from Debian's nginx serving the
very same page bytes and asset files with gzip and a year's immutable caching for /assets/ (the API proxied to
our server, so both pages run alike). For each: first contentful paint and bytes over the wire on the first
visit (empty cache) and on the second (navigated to again). Medians of --runs; compare ratios.
"""
import argparse, json, os, re, shutil, statistics, tempfile, time

from bench import ROOT, call, free_port, run_nginx, start_server

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start_anchor(folder, our_port, page_path, page_bytes, version):
    """nginx with the page at `page_path`, Public/ under /assets/v-<version>/, /api/ proxied to our server."""
    port = free_port()
    page_file = os.path.join(folder, "page.html")
    with open(page_file, "wb") as file:
        file.write(page_bytes)
    os.makedirs(os.path.join(folder, "assets"))
    shutil.copytree(os.path.join(ROOT, "Public"), os.path.join(folder, "assets", f"v-{version}"))
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""user root; worker_processes 2; daemon off; pid {folder}/nginx.pid; error_log {folder}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  include /etc/nginx/mime.types;
  gzip on; gzip_comp_level 6; gzip_types text/css application/javascript text/javascript image/svg+xml; gzip_vary on;
  server {{
    listen 127.0.0.1:{port};
    location = {page_path} {{ alias {page_file}; default_type text/html; add_header Cache-Control no-store; gzip_types text/html; }}
    location /assets/ {{ root {folder}; add_header Cache-Control "public, max-age=31536000, immutable"; }}
    location /api/ {{ proxy_pass http://127.0.0.1:{our_port}; proxy_buffering off; proxy_http_version 1.1; proxy_set_header Connection ""; }}
    location /demo/ {{ proxy_pass http://127.0.0.1:{our_port}; }}
  }}
}}
""")
    return run_nginx(folder, config, f"http://127.0.0.1:{port}{page_path}"), port


def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=390,1000"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 800_000 / 8})
    return driver


def visit(driver, url):
    """Loads `url`, waits for its first contentful paint: (milliseconds, bytes over the wire, requests)."""
    driver.get(url)
    for _ in range(200):
        paint = driver.execute_script("return performance.getEntriesByName('first-contentful-paint')[0]?.startTime")
        if paint:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    sizes = driver.execute_script("""const nav = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource').filter(e => !e.name.includes('/api/'));
        return [nav.transferSize, ...resources.map(e => e.transferSize)]""")
    return paint, sum(sizes), sum(1 for size in sizes if size > 0)


def measure(url, runs):
    cold, warm = [], []
    for _ in range(runs):
        driver = browser()
        try:
            cold.append(visit(driver, url))
            driver.get("about:blank")
            warm.append(visit(driver, url))
        finally:
            driver.quit()
    median = lambda rows, index: statistics.median(row[index] for row in rows)
    return [(median(rows, 0), median(rows, 1), median(rows, 2)) for rows in (cold, warm)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/musicvoting"))
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    data, anchor_folder = tempfile.mkdtemp(prefix="mv-bench-"), tempfile.mkdtemp(prefix="mv-nginx-")
    server, port = start_server(arguments.binary, data)
    nginx = None
    try:
        party = json.loads(call(port, "POST", "/api/party", {"provider": "demo"}))
        for number in range(1, 6):
            call(port, "POST", f"/api/party/{party['id']}/track/addToPlaylist", {"uri": f"demo:track:{number}", "deviceId": "bench"})
        page_path = f"/join/{party['pin']}"
        page = call(port, "GET", page_path)
        version = re.search(rb"/assets/v-([0-9a-z]+)/", page).group(1).decode()
        nginx, nginx_port = start_anchor(anchor_folder, port, page_path, page, version)
        ours = measure(f"http://127.0.0.1:{port}{page_path}", arguments.runs)
        anchor = measure(f"http://127.0.0.1:{nginx_port}{page_path}", arguments.runs)
        print("Guest page at 150 ms latency, 1.6 Mbit/s (Chrome emulation), medians of", arguments.runs, "runs")
        for label, (our, their) in zip(("first visit ", "second visit"), zip(ours, anchor)):
            print(f"{label}  ours: paint {our[0]:6.0f} ms, {our[1] / 1024:6.1f} KiB in {our[2]:2.0f} requests   "
                  f"nginx (same bytes): paint {their[0]:6.0f} ms, {their[1] / 1024:6.1f} KiB in {their[2]:2.0f} requests   "
                  f"paint ratio {our[0] / their[0]:.2f}")
    finally:
        server.terminate()
        if nginx:
            nginx.terminate()
            nginx.wait()
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(anchor_folder, ignore_errors=True)


if __name__ == "__main__":
    main()
