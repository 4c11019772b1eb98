import Foundation
import MusicVotingKit

/// `musicvoting-cli host HOSTPIN`: the dashboard; `p` play/pause, `s` skip, `r N` remove song N, `end`, `q` quit.
@MainActor
struct HostScreen {
    let dashboard: HostDashboard
    let strings: KitStrings

    func render() {
        var lines = ["MusicVoting · Host", ""]
        if dashboard.ended {
            Terminal.draw(lines + [dashboard.message ?? strings[.partyEnded]])
            return
        }
        if let current = dashboard.current ?? dashboard.preview {
            let label = dashboard.current == nil ? strings[.preview] : strings[.nowPlaying]
            lines.append("\(label): \(current.name) – \(current.track.artistNames)")
        } else {
            lines.append(strings[.nothingPlaying])
        }
        lines.append("\(dashboard.playIcon == .pause ? "⏸" : "▶")  \(dashboard.progressText)")
        if let stall = dashboard.stallText { lines.append("! \(stall)") }
        if let hint = dashboard.controlsHint { lines.append("(\(hint))") }
        lines += ["", "\(strings[.upNext]):"]
        if dashboard.upNext.isEmpty { lines.append("  " + strings[.queueEmpty]) }
        for (index, entry) in dashboard.upNext.enumerated() {
            lines.append(String(format: "%3d. ♥ %2d  ", index + 1, entry.likeCount) + "\(entry.name) – \(entry.track.artistNames)")
        }
        if let message = dashboard.message { lines += ["", message] }
        lines += ["", "p: play/pause · s: skip · r N: remove · end: end the party · q: quit"]
        Terminal.draw(lines)
    }

    func handle(_ line: String) async -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        switch text {
        case "q": return false
        case "p": await dashboard.playPause()
        case "s": await dashboard.skip()
        case "end": await dashboard.endParty()
        default:
            if let number = GuestScreen.command("r", text), dashboard.upNext.indices.contains(number - 1) {
                await dashboard.remove(dashboard.upNext[number - 1])
            }
        }
        return true
    }
}
