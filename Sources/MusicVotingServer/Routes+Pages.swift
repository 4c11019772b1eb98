import Foundation
import HTTPServer
import PartyCore
import PartyEngine
import Rendering

extension Routes {
    func addPageRoutes(to router: inout Router, pages: PageRenderer) {
        let service = self.service
        router.add("GET", "/", summary: "Start page") { request in
            let providers: [MustacheValue] = service.providers.configuredNames.enumerated().map { index, name in
                ["name": .string(name), "checked": .bool(index == 0)]
            }
            return pages.render("start", for: request, title: "app.name", data: ["providers": .list(providers)])
        }
        router.add("GET", "/join/{pin}", summary: "Guest page") { request in
            guard let party = try? service.joinParty(guestPin: request.parameter("pin"), clientAddress: request.clientAddress),
                  let view = try? PageData.guest(party: party, service: service) else {
                var response = pages.render("guest", for: request, title: "app.name", data: ["notFound": true])
                response.status = 404
                return response
            }
            return pages.render("guest", for: request, title: "app.name", data: view)
        }
        // `/tv` is the short address a host types on a TV remote; `/monitor` as SPEC names it.
        for path in ["/monitor", "/tv"] {
            router.add("GET", path, summary: "Monitor / TV page") { request in
                // The provider players load their own scripts: YouTube's IFrame API, Spotify's Web Playback SDK.
                pages.render("monitor", for: request, title: "monitor.title",
                             extraScriptSources: ["https://www.youtube.com", "https://s.ytimg.com", "https://sdk.scdn.co"])
            }
        }
        router.add("GET", "/host", summary: "Host page") { request in
            pages.render("host", for: request, title: "host.title")
        }
        // R34: the host page for a co-host; the cards only the host may use are not on it at all.
        router.add("GET", "/cohost", summary: "Co-host page (R34)") { request in
            pages.render("host", for: request, title: "cohost.title", data: ["cohost": true])
        }
    }
}

/// What the server-rendered first paint of a page shows.
enum PageData {
    static func guest(party: Party, service: PartyService) throws -> [String: MustacheValue] {
        let queue = try service.queue(of: party)
        let playback = try service.playback(of: party)
        var data: [String: MustacheValue] = [
            "partyId": .string(party.id), "pin": .string(party.guestPin), "provider": .string(party.provider),
            "queue": .list(queue.waiting.map(entry)), "queueEmpty": .bool(queue.waiting.isEmpty),
            "queueCount": .string(String(queue.waiting.count)),
        ]
        if let current = queue.current {
            let position = min(playback.positionMs(at: service.now), current.track.durationMs)
            var now = entry(current)
            now["positionText"] = .string(clock(position))
            now["percent"] = .string(String(format: "%.1f", current.track.durationMs > 0 ? Double(position) * 100 / Double(current.track.durationMs) : 0))
            now["isPlaying"] = .bool(playback.isPlaying)
            data["now"] = .object(now.objectMembers)
        }
        return data
    }

    static func entry(_ entry: QueueEntry) -> MustacheValue {
        .object([
            "uri": .string(entry.track.uri), "name": .string(entry.track.name),
            // No artist (an untagged file): the template says "unknown" in the page's language.
            "artist": entry.track.artists.isEmpty ? .null : .string(entry.track.artists.joined(separator: ", ")),
            "album": .string(entry.track.album),
            "cover": entry.track.imageURL.map(MustacheValue.string) ?? .null,
            "likeCount": .number(Double(entry.likeCount)), "autofilled": .bool(entry.autofilled),
            "durationText": .string(clock(entry.track.durationMs)),
        ])
    }

    /// `m:ss` (or `h:mm:ss`), as the pages' script formats it.
    static func clock(_ milliseconds: Int) -> String {
        let seconds = max(0, milliseconds / 1000)
        let hours = seconds / 3600, minutes = seconds / 60 % 60, rest = seconds % 60
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}

private extension MustacheValue {
    var objectMembers: [String: MustacheValue] {
        if case .object(let members) = self { return members }
        return [:]
    }

    subscript(key: String) -> MustacheValue? {
        get { objectMembers[key] }
        set {
            var members = objectMembers
            members[key] = newValue
            self = .object(members)
        }
    }
}
