"""A page in QtWebEngine 5.15 (Chromium 87, Debian's python3-pyqt5.qtwebengine), offscreen, driven over stdin/stdout:
the test writes one JSON line per command and reads one JSON line per answer. Commands: {"open": url},
{"eval": "expression"} (the expression's value, JSON-able), {"console": true} (the console messages so far),
{"screenshot": path}. Run by test_older_tv_browser.py; it ends when stdin closes."""
import json, os, sys, threading

# "minimal" draws nowhere yet lays the page out at its size (a shown view on "offscreen" cannot fork renderers).
os.environ["QT_QPA_PLATFORM"] = "minimal"
os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = "--no-sandbox --disable-gpu --autoplay-policy=no-user-gesture-required --mute-audio"
os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"

from PyQt5.QtCore import QCoreApplication, QObject, Qt, QUrl, pyqtSignal
from PyQt5.QtWidgets import QApplication
from PyQt5.QtWebEngineWidgets import QWebEnginePage, QWebEngineSettings, QWebEngineView

LEVELS = {QWebEnginePage.InfoMessageLevel: "info", QWebEnginePage.WarningMessageLevel: "warning",
          QWebEnginePage.ErrorMessageLevel: "error"}


class Page(QWebEnginePage):
    def __init__(self, profile, parent=None):
        super().__init__(profile, parent)
        self.messages = []

    def javaScriptConsoleMessage(self, level, message, line, source):
        self.messages.append({"level": LEVELS.get(level, "info"), "message": message, "source": f"{source}:{line}"})


class Commands(QObject):
    arrived = pyqtSignal(str)


def answer(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def main():
    # The offscreen platform has no OpenGL: Chromium draws in software.
    QCoreApplication.setAttribute(Qt.AA_UseSoftwareOpenGL)
    app = QApplication(sys.argv[:1])
    view = QWebEngineView()
    page = Page(view.page().profile(), view)
    view.setPage(page)
    page.settings().setAttribute(QWebEngineSettings.PlaybackRequiresUserGesture, False)
    view.resize(1920, 1080)
    view.show()

    def handle(line):
        command = json.loads(line)
        if "open" in command:
            page.loadFinished.connect(lambda ok: answer({"loaded": ok}))
            page.load(QUrl(command["open"]))
        elif "eval" in command:
            page.runJavaScript(f"JSON.stringify((function () {{ return ({command['eval']}); }})())",
                               lambda result: answer({"value": None if result is None else json.loads(result)}))
        elif "console" in command:
            answer({"messages": page.messages})
        elif "screenshot" in command:
            answer({"saved": view.grab().save(command["screenshot"])})

    commands = Commands()
    commands.arrived.connect(handle)

    def read():
        for line in sys.stdin:
            if line.strip():
                commands.arrived.emit(line)
        app.quit()

    threading.Thread(target=read, daemon=True).start()
    app.exec_()


if __name__ == "__main__":
    main()
