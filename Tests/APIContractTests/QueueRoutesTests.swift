import Foundation
import PartyTestSupport
import Testing

@Suite("Search and queue (R9–R13, R17, R18)")
struct QueueRoutesTests {
    @Test func searchAnswersSpotifyShapedTracksAndTopTenOnEmptyQuery() throws {
        let party = try TestParty.given()
        let top = try party.client.get("\(party.base)/track/search?q=")
        let items = (top.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        #expect(top.status == 200 && items.count == 10, "\(top)")
        let found = try party.client.get("\(party.base)/track/search?q=treppenhaus")
        let first = ((found.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]])?.first ?? [:]
        #expect(first["uri"] as? String == "demo:track:9")
        #expect(first["id"] as? String == "9")
        #expect(first["name"] as? String == "Disco im Treppenhaus")
        #expect((first["artists"] as? [[String: Any]])?.first?["name"] as? String == "Die Hausmeister")
        let album = first["album"] as? [String: Any]
        #expect(album?["name"] as? String == "Erdgeschoss")
        let cover = (album?["images"] as? [[String: Any]])?.first?["url"] as? String ?? ""
        #expect(cover.hasPrefix(InProcessServer.publicURL + "/") && cover.hasSuffix(".png"), "an absolute PNG cover: \(cover)")
        #expect(first["duration_ms"] as? Int == 33_000)
        let accent = try party.client.get("\(party.base)/track/search?q=SPATI")
        #expect((((accent.json["tracks"] as? [String: Any])?["items"]) as? [Any])?.count == 1, "accent- and case-insensitive")
        let single = try party.client.get("\(party.base)/track/9")
        #expect(single.status == 200 && single.json["uri"] as? String == "demo:track:9" && single.json["name"] as? String == "Disco im Treppenhaus")
        let unknown = try party.client.get("\(party.base)/track/999")
        #expect(unknown.isError(404, "Song nicht gefunden."), "\(unknown)")
    }

    @Test func addingRefusesDuplicatesUnknownSongsAndLinks() throws {
        let party = try TestParty.given()
        let added = try party.add(4)
        #expect(added.status == 200 && added.json["status"] as? String == "added", "\(added)")
        let duplicate = try party.add(4, device: "guest-2")
        #expect(duplicate.isError(409, "Song ist schon in der Warteschlange.") && duplicate.code == "duplicate", "\(duplicate)")
        let unknown = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:999", "deviceId": "g"])
        #expect(unknown.isError(404, "Song nicht gefunden."), "\(unknown)")
        let link = try party.client.send("POST", "\(party.base)/track/addToPlaylist",
                                         json: ["uri": "https://open.spotify.com/track/abc", "deviceId": "g"])
        #expect(link.isError(400, "Ungültige Song-URI."), "R13: links are not parsed: \(link)")
        let none = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: [String]())
        #expect(none.isError(400, "No tracks provided"), "\(none)")
        let noUri = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["deviceId": "g"])
        #expect(noUri.isError(400, "No tracks provided"), "\(noUri)")
        let batch = try party.client.send("POST", "\(party.base)/track/addToPlaylist?deviceId=g3", json: ["demo:track:5", "demo:track:6"])
        #expect(batch.status == 200 && batch.json["status"] as? String == "added", "\(batch)")
        #expect(try party.queueUris() == ["demo:track:4", "demo:track:5", "demo:track:6"])
        let mixed = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["demo:track:7", "demo:track:4"],
                                          headers: ["X-Device-Id": "g4"])
        #expect(mixed.isError(409, "Song ist schon in der Warteschlange."), "\(mixed)")
        #expect(try !party.queueUris().contains("demo:track:7"), "a refused batch adds nothing")
    }

    @Test func theEleventhAddPerDeviceWithinAMinuteIsRateLimited() throws {
        let party = try TestParty.given()
        for number in 1...10 { #expect(try party.add(number, device: "fast").status == 200) }
        let limited = try party.add(11, device: "fast")
        #expect(limited.isError(429, "Zu viele Anfragen — bitte kurz warten."), "\(limited)")
        #expect(Int(limited.header("retry-after") ?? "") ?? 0 > 0)
        #expect(try party.add(11, device: "other").status == 200)
        party.clock.advance(by: 61)
        let later = try party.add(12, device: "fast")
        #expect(later.status == 200, "the minute rolls on: \(later)")
    }

    @Test func blacklistedTitlesAndArtistsAreRefused() throws {
        let party = try TestParty.given()
        #expect(try party.host("PUT", "/blacklist", json: ["word": "hausMEISTER"]).status == 200)
        let listed = try party.host("PUT", "/blacklist", json: ["word": "Bahnsteig"])
        #expect(listed.status == 200 && listed.json["words"] as? [String] == ["Bahnsteig", "hausMEISTER"], "\(listed)")
        let read = try party.host("GET", "/blacklist")
        #expect(read.status == 200 && read.json["words"] as? [String] == ["Bahnsteig", "hausMEISTER"], "\(read)")
        let byArtist = try party.add(9)
        #expect(byArtist.isError(403, "Nicht erlaubt."), "\(byArtist)")
        #expect(try party.add(11).isError(403, "Nicht erlaubt."), "title substring")
        #expect(try party.add(1).status == 200)
        let removed = try party.host("DELETE", "/blacklist", json: ["word": "hausMEISTER"])
        #expect(removed.status == 200 && removed.json["words"] as? [String] == ["Bahnsteig"], "\(removed)")
        #expect(try party.add(9).status == 200)
        let byQuery = try party.client.send("DELETE", "\(party.base)/blacklist?word=Bahnsteig", auth: party.hostPin)
        #expect(byQuery.status == 200 && byQuery.json["words"] as? [String] == [], "the word may come as a query: \(byQuery)")
        let guest = try party.client.get("\(party.base)/blacklist")
        #expect(guest.isError(401, "Host-PIN fehlt."), "the list is the host's: \(guest)")
        let blank = try party.host("PUT", "/blacklist", json: ["word": " "])
        #expect(blank.status == 400 && blank.error != nil, "\(blank)")
    }

    @Test func addingABlacklistWordNamesTheWaitingSongsItNowBlocks() throws {
        let party = try TestParty.given()
        for number in [9, 1, 23] { #expect(try party.add(number).status == 200) }
        // The server's rule (folded case), not the page's: "HausMeister" matches the artist "Die Hausmeister".
        let added = try party.host("PUT", "/blacklist", json: ["word": "HausMeister"])
        #expect(added.json["words"] as? [String] == ["HausMeister"])
        #expect(added.json["matching"] as? [String] == ["demo:track:9", "demo:track:23"])
        #expect(try party.host("PUT", "/blacklist", json: ["word": "Nichtvorhanden"]).json["matching"] as? [String]
            == ["demo:track:9", "demo:track:23"], "the whole list, not only the new word")
        // The playing song is not offered for removal.
        _ = try party.registerMonitor()
        #expect(try party.host("POST", "/track/start").json["status"] as? String == "playing")
        #expect(try party.host("PUT", "/blacklist", json: ["word": "Erdgeschoss"]).json["matching"] as? [String] == ["demo:track:23"])
        #expect(try party.host("DELETE", "/track/remove", json: ["uri": "demo:track:23"]).status == 200)
        #expect(try party.host("PUT", "/blacklist", json: ["word": "Kanal"]).json["matching"] as? [String] == ["demo:track:1"])
    }

    @Test func searchResultsTheBlacklistRefusesAreMarkedBlocked() throws {
        let party = try TestParty.given()
        #expect(try party.host("PUT", "/blacklist", json: ["word": "bahnSTEIG"]).status == 200)
        let items = { (query: String) throws -> [[String: Any]] in
            let tracks = try party.client.get("\(party.base)/track/search?q=\(query)").json["tracks"] as? [String: Any]
            return tracks?["items"] as? [[String: Any]] ?? []
        }
        let refused = try items("Bahnsteig")
        #expect(!refused.isEmpty && refused.allSatisfy { $0["blocked"] as? Bool == true })
        let allowed = try items("Tanz")
        #expect(!allowed.isEmpty && allowed.allSatisfy { $0["blocked"] == nil })
    }

    @Test func likesToggleReorderTheQueueAndShowHasVoted() throws {
        let party = try TestParty.given()
        for number in [1, 2, 3] { try party.add(number) }
        #expect(try party.queueUris() == ["demo:track:1", "demo:track:2", "demo:track:3"])
        let liked = try party.vote(3, device: "a")
        #expect(liked.status == 200 && liked.json["liked"] as? Bool == true && liked.json["likeCount"] as? Int == 1, "\(liked)")
        try party.vote(3, device: "b")
        try party.vote(2, device: "a")
        #expect(try party.queueUris() == ["demo:track:3", "demo:track:2", "demo:track:1"])
        let mine = try party.queue(device: "b")
        #expect(mine.map { $0["hasVoted"] as? Bool } == [true, false, false])
        #expect(mine.map { $0["likeCount"] as? Int } == [2, 1, 0])
        #expect(try party.queue().first?["hasVoted"] == nil)
        let unliked = try party.vote(3, device: "b")
        #expect(unliked.json["liked"] as? Bool == false && unliked.json["likeCount"] as? Int == 1)
        let missing = try party.vote(8, device: "a")
        #expect(missing.isError(404, "Song nicht in der Warteschlange."), "\(missing)")
        let incomplete = try party.client.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:3"])
        #expect(incomplete.isError(400, "Missing uri or deviceId"), "\(incomplete)")
        let noUri = try party.client.send("POST", "\(party.base)/track/vote", json: ["deviceId": "a"])
        #expect(noUri.isError(400, "Missing uri or deviceId"), "\(noUri)")
    }

    @Test func queueEntriesCarryTheContractsFields() throws {
        let party = try TestParty.given()
        try party.add(5)
        let entry = try #require(try party.queue().first)
        for key in ["id", "uri", "name", "artists", "album", "duration_ms", "likeCount", "isCurrentlyPlaying", "autofilled"] {
            #expect(entry[key] != nil, "\(key) in \(entry)")
        }
        #expect(entry["isCurrentlyPlaying"] as? Bool == false && entry["autofilled"] as? Bool == false && entry["likeCount"] as? Int == 0)
    }

    @Test func hostRemovesSongs() throws {
        let party = try TestParty.given()
        try party.add(1)
        try party.add(2)
        let guest = try party.client.send("DELETE", "\(party.base)/track/remove", json: ["uri": "demo:track:1"])
        #expect(guest.isError(401, "Host-PIN fehlt."), "\(guest)")
        let removed = try party.host("DELETE", "/track/remove", json: ["uri": "demo:track:1"])
        #expect(removed.status == 200 && removed.json["status"] as? String == "removed")
        #expect(try party.queueUris() == ["demo:track:2"])
        let byQuery = try party.client.send("DELETE", "\(party.base)/track/remove?uri=demo:track:2", auth: party.hostPin)
        #expect(byQuery.status == 200 && byQuery.json["status"] as? String == "removed", "the uri may come as a query: \(byQuery)")
        #expect(try party.queueUris().isEmpty)
        let again = try party.host("DELETE", "/track/remove", json: ["uri": "demo:track:1"])
        #expect(again.isError(404, "Song nicht in der Warteschlange."), "\(again)")
        let noUri = try party.host("DELETE", "/track/remove", json: [String: String]())
        #expect(noUri.isError(400, "Missing uri"), "\(noUri)")
    }

    /// R10: the playing track may be queued again, once; a like and a removal of its uri then mean the waiting copy.
    @Test func removeAndVoteTargetTheWaitingCopyOfThePlayingTrack() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1)
        #expect(try party.currentUri() == "demo:track:1", "R16: it plays")
        let playingId = try #require((party.current()["track"] as? [String: Any])?["id"] as? String)
        let again = try party.add(1, device: "guest-2")
        #expect(again.status == 200, "the playing track may be queued again: \(again)")
        let twice = try party.add(1, device: "guest-3")
        #expect(twice.isError(409, "Song ist schon in der Warteschlange."), "but only once: \(twice)")
        func copies() throws -> (playing: [String: Any]?, waiting: [String: Any]?) {
            let queue = try party.queue(device: "fan").filter { $0["uri"] as? String == "demo:track:1" }
            return (queue.first { $0["isCurrentlyPlaying"] as? Bool == true }, queue.first { $0["isCurrentlyPlaying"] as? Bool == false })
        }
        #expect(try copies().waiting != nil && copies().playing?["id"] as? String == playingId)

        let liked = try party.vote(1, device: "fan")
        #expect(liked.status == 200 && liked.json["liked"] as? Bool == true && liked.json["likeCount"] as? Int == 1, "\(liked)")
        let afterLike = try copies()
        #expect(afterLike.waiting?["likeCount"] as? Int == 1 && afterLike.waiting?["hasVoted"] as? Bool == true, "the waiting copy is liked")
        #expect(afterLike.playing?["likeCount"] as? Int == 0 && afterLike.playing?["hasVoted"] as? Bool == false, "not the playing one")

        let removed = try party.host("DELETE", "/track/remove", json: ["uri": "demo:track:1"])
        #expect(removed.status == 200, "\(removed)")
        let afterRemove = try copies()
        #expect(afterRemove.waiting == nil, "the waiting copy is gone")
        #expect(afterRemove.playing?["id"] as? String == playingId, "the playing entry plays on")
        #expect(try (party.current()["track"] as? [String: Any])?["id"] as? String == playingId)
    }

    @Test func defaultPlaylistIsSetAndCleared() throws {
        let party = try TestParty.given()
        let playlists = try party.host("GET", "/spotify/playlists")
        let first = (playlists.json["playlists"] as? [[String: Any]])?.first
        #expect(first?["id"] as? String == "album1" && first?["trackCount"] as? Int ?? 0 > 0, "\(playlists)")
        let guestList = try party.client.get("\(party.base)/spotify/playlists")
        #expect(guestList.isError(401, "Host-PIN fehlt."), "\(guestList)")
        let set = try party.host("PUT", "/default-playlist", json: ["playlistId": "album1"])
        #expect(set.status == 200 && set.json["defaultPlaylistId"] as? String == "album1", "\(set)")
        let cleared = try party.host("PUT", "/default-playlist", json: ["playlistId": " "])
        #expect(cleared.status == 200 && cleared.json["defaultPlaylistId"] is NSNull, "\(cleared)")
        let guest = try party.client.send("PUT", "\(party.base)/default-playlist", json: ["playlistId": "album1"])
        #expect(guest.isError(401, "Host-PIN fehlt."), "\(guest)")
    }

    /// R17: a like may name the state it wants (`liked`); sent again after an answer that never came (a 503 while the
    /// database was away, after it had saved the like), it counts once. Without it, it toggles (the original clients).
    @Test func aLikeThatNamesItsStateCountsOnceHoweverOftenItIsSent() throws {
        let party = try TestParty.given()
        try party.add(1)
        let like = ["uri": "demo:track:1", "deviceId": "phone", "liked": true] as [String: Any]
        let first = try party.client.send("POST", "\(party.base)/track/vote", json: like)
        let again = try party.client.send("POST", "\(party.base)/track/vote", json: like)
        #expect(first.json["liked"] as? Bool == true && first.json["likeCount"] as? Int == 1, "\(first)")
        #expect(again.json["liked"] as? Bool == true && again.json["likeCount"] as? Int == 1, "\(again)")
        var unlike = like
        unlike["liked"] = false
        for _ in 0..<2 {
            let reply = try party.client.send("POST", "\(party.base)/track/vote", json: unlike)
            #expect(reply.json["liked"] as? Bool == false && reply.json["likeCount"] as? Int == 0, "\(reply)")
        }
        #expect(try party.vote(1, device: "phone").json["liked"] as? Bool == true, "a toggle without it")
        var odd = like
        odd["liked"] = "yes"
        #expect(try party.client.send("POST", "\(party.base)/track/vote", json: odd).isError(400, "Invalid liked"))
    }
}
