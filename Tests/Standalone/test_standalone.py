"""The binary is the one file to copy.

Copied alone into an empty folder (no checkout, no --resources) it serves every page and asset with the same bytes
as the checkout's files; it needs no Swift runtime library, only the Debian packages of .ci/apt-target.txt.
The test command links it from its build's objects with the Swift libraries inside (Tests/link-standalone.sh), as
`swift build -c release --static-swift-stdlib` links a release, and names it in MUSICVOTING_STANDALONE_BINARY.
"""
import gzip, os, re, shutil, subprocess, tempfile, urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY_ALONE = os.path.abspath(os.environ["MUSICVOTING_STANDALONE_BINARY"]) if os.environ.get("MUSICVOTING_STANDALONE_BINARY") else ""


class Running:
    def __init__(self, binary, folder, arguments=()):
        self.process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", os.path.join(folder, "data"), *arguments],
                                        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("MusicVoting listening on"), line
        self.base = "http://127.0.0.1:" + line.strip().rsplit(":", 1)[1]

    def get(self, path, headers=None):
        request = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture(scope="module")
def alone():
    assert BINARY_ALONE and os.path.isfile(BINARY_ALONE), "MUSICVOTING_STANDALONE_BINARY must name the standalone binary (Tests/run-all.sh links it)"
    folder = tempfile.mkdtemp(prefix="mv-alone-")
    shutil.copy2(BINARY_ALONE, os.path.join(folder, "musicvoting"))
    assert sorted(os.listdir(folder)) == ["musicvoting"]
    server = Running(os.path.join(folder, "musicvoting"), folder)
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_every_asset_has_the_bytes_of_the_checkout(alone):
    status, _, page = alone.get("/")
    assert status == 200
    version = re.search(rb'/assets/(v-[0-9a-z]+)/css/app\.css', page).group(1).decode()
    public = os.path.join(ROOT, "Public")
    files = [os.path.relpath(os.path.join(folder, name), public) for folder, _, names in os.walk(public) for name in names]
    assert len(files) >= 20
    for relative in files:
        with open(os.path.join(public, relative), "rb") as file:
            expected = file.read()
        status, headers, body = alone.get(f"/assets/{version}/{relative}")
        assert status == 200 and body == expected, relative
        status, headers, body = alone.get(f"/assets/{version}/{relative}", {"Accept-Encoding": "gzip"})
        if headers.get("Content-Encoding") == "gzip":
            assert gzip.decompress(body) == expected, relative


def same_but_address(ours, theirs):
    address = re.compile(rb'(<meta name="musicvoting-public-url" content=")[^"]*(")')
    return address.sub(rb"\1\2", ours) == address.sub(rb"\1\2", theirs)


def test_every_page_equals_the_one_rendered_from_the_checkout(alone):
    checkout = Running(BINARY_ALONE, tempfile.mkdtemp(prefix="mv-checkout-"), ("--resources", ROOT))
    try:
        for path in ("/", "/host", "/tv", "/monitor", "/join/00000", "/no-such-page"):
            for language in ("de", "en"):
                headers = {"Accept-Language": language, "Accept": "text/html"}
                ours, theirs = alone.get(path, headers), checkout.get(path, headers)
                assert ours[0] == theirs[0] and ours[0] in (200, 404), path
                # Each page names the address it is served under (its own port here): compared without it.
                assert same_but_address(ours[2], theirs[2]) and b"<html" in ours[2], (path, language)
    finally:
        checkout.stop()


def test_the_binary_needs_no_swift_runtime_only_the_listed_packages():
    assert BINARY_ALONE, "MUSICVOTING_STANDALONE_BINARY must name the standalone binary"
    linked = subprocess.run(["ldd", BINARY_ALONE], capture_output=True, text=True, check=True).stdout
    assert "not found" not in linked
    swift = [line for line in linked.splitlines() if re.search(r"swift|Foundation|dispatch|BlocksRuntime|ICU", line)]
    assert swift == [], swift
    # Each library the binary names itself comes from a package of .ci/apt-target.txt (or libc's and the C++ runtime).
    needed = re.findall(r"NEEDED\s+Shared library: \[(.+?)\]", subprocess.run(["readelf", "-d", BINARY_ALONE], capture_output=True, text=True, check=True).stdout)
    with open(os.path.join(ROOT, ".ci", "apt-target.txt")) as file:
        allowed = set(file.read().split()) | {"libc6", "libstdc++6", "libgcc-s1"}
    for library in needed:
        owner = subprocess.run(["dpkg", "-S", library], capture_output=True, text=True).stdout
        packages = {line.split(":")[0] for line in owner.splitlines() if "/" in line and ("/lib/" in line or "/usr/lib/" in line)}
        assert packages & allowed, (library, packages)


def test_the_deb_installs_starts_and_is_removed_keeping_the_data():
    """The .deb of .ci/package-deb on this machine (CI has no systemd running: the service is not started, so the
    test starts the installed binary itself, as the service would, as the user the package made)."""
    assert BINARY_ALONE, "MUSICVOTING_STANDALONE_BINARY must name the standalone binary"
    assert os.geteuid() == 0, "dpkg -i needs root (CI runs as root)"
    assert not os.path.exists("/run/systemd/system"), "would start the real service on port 8080"
    folder = tempfile.mkdtemp(prefix="mv-deb-")
    try:
        # Uncompressed (dpkg-deb reads the compressor from the environment): the same files, without seconds of xz.
        package = subprocess.run(["bash", os.path.join(ROOT, ".ci", "package-deb"), BINARY_ALONE, folder],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "DPKG_DEB_COMPRESSOR_TYPE": "none"}).stdout.strip()
        contents = subprocess.run(["dpkg-deb", "-c", package], capture_output=True, text=True, check=True).stdout
        for path in ("./usr/local/bin/musicvoting", "./etc/musicvoting.conf", "./etc/systemd/system/musicvoting.service"):
            assert path in contents, path
        depends = subprocess.run(["dpkg-deb", "-f", package, "Depends"], capture_output=True, text=True, check=True).stdout.split(", ")
        with open(os.path.join(ROOT, ".ci", "apt-target.txt")) as file:
            assert [name.strip() for name in depends] == file.read().split()
        subprocess.run(["dpkg", "-i", package], capture_output=True, text=True, check=True)
        assert subprocess.run(["getent", "passwd", "musicvoting"], capture_output=True).returncode == 0
        assert oct(os.stat("/var/lib/musicvoting").st_mode & 0o777) == "0o700"
        with open("/etc/systemd/system/musicvoting.service") as unit:
            assert "ExecStart=/usr/local/bin/musicvoting --config /etc/musicvoting.conf" in unit.read()
        # What the unit runs, as its user, on another port.
        service = subprocess.Popen(["runuser", "-u", "musicvoting", "--", "/usr/local/bin/musicvoting", "--config",
                                    "/etc/musicvoting.conf", "--host", "127.0.0.1", "--port", "0"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = service.stdout.readline()
            assert line.startswith("MusicVoting listening on"), line
            with urllib.request.urlopen("http://127.0.0.1:" + line.strip().rsplit(":", 1)[1] + "/healthz", timeout=10) as answer:
                assert answer.read() == b'{"status":"ok"}'
        finally:
            service.terminate()
            service.wait(10)
        assert os.path.exists("/var/lib/musicvoting/musicvoting.sqlite"), "the data went to /var/lib/musicvoting"
        subprocess.run(["dpkg", "--purge", "musicvoting"], capture_output=True, text=True, check=True)
        for gone in ("/usr/local/bin/musicvoting", "/etc/musicvoting.conf", "/etc/systemd/system/musicvoting.service"):
            assert not os.path.exists(gone), gone
        assert os.path.exists("/var/lib/musicvoting/musicvoting.sqlite"), "removal keeps the data"
    finally:
        subprocess.run(["dpkg", "--purge", "musicvoting"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
