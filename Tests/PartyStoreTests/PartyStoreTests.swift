import Foundation
import PartyCore
import TestSupport
import Testing
@testable import PartyStore

private let epoch = Date(timeIntervalSince1970: 1_800_000_000)

private func temporaryDatabase() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-store-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("test.sqlite").path
}

/// The store's rules hold on both backends; each test gets a new SQLite file or a new database on the
/// test process's PostgreSQL server (`PostgreSQLCluster`).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgreSQL

    var testDescription: String { rawValue }

    /// A new, empty place for a store: a file path or a database URL.
    func newLocation() throws -> String {
        switch self {
        case .sqlite: temporaryDatabase()
        case .postgreSQL: try PostgreSQLCluster.shared().createDatabase()
        }
    }

    func open(_ location: String) throws -> PartyStore {
        switch self {
        case .sqlite: try PartyStore(path: location)
        case .postgreSQL: try PartyStore(postgreSQL: location)
        }
    }

    func newStore() throws -> PartyStore { try open(newLocation()) }

    /// A bare connection to `location`, beside any store.
    func connection(_ location: String) throws -> any SQLConnection {
        switch self {
        case .sqlite: try Database(path: location)
        case .postgreSQL: try PostgreSQLConnection(url: location)
        }
    }
}

private func party(_ id: String, guest: String = "11111", host: String = "22222") -> Party {
    Party(id: id, guestPin: guest, hostPin: host, provider: "demo", createdAt: epoch)
}

private let song = Track(id: "5", uri: "demo:track:5", name: "Tanz & \"Quotes\" 'n' <tags>", artists: ["A", "B"],
                         album: "Album", imageURL: "/demo/cover/5.svg", durationMs: 31_000, isrc: "DEX124000005")

@Suite("R7, R8 persistence")
struct PartyStoreTests {
    @Test(arguments: Backend.allCases) func aPartyRoundTripsWithItsPlaybackState(_ backend: Backend) throws {
        let store = try backend.newStore()
        var stored = party("p1")
        stored.defaultPlaylistId = "album1"
        stored.playback = Playback(currentEntryId: 4, startedAt: epoch.addingTimeInterval(5), pausedPositionMs: 0,
                                   isPlaying: true, pausedByHost: false, lastAdvanceAt: epoch)
        try store.insert(stored)
        #expect(try store.party(id: "p1") == stored)
        #expect(try store.activeParty(guestPin: "11111")?.id == "p1")
        #expect(try store.activeParty(hostPin: "22222")?.id == "p1")
        #expect(try store.party(id: "nope") == nil)
    }

    @Test(arguments: Backend.allCases) func everythingSurvivesReopeningTheDatabase(_ backend: Backend) throws {
        let location = try backend.newLocation()
        do {
            let store = try backend.open(location)
            try store.insert(party("p1"))
            let id = try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "phone", autofilled: false)
            #expect(try store.setVote(entryId: id, deviceId: "phone", wanted: nil).liked)
            try store.addBlacklistWord("Schlager", partyId: "p1")
            try store.save(tokens: ProviderTokens(provider: "spotify", accessToken: "a", refreshToken: "r", expiresAt: epoch), partyId: "p1")
            try store.setMonitor(token: "token", partyId: "p1")
            var playback = Playback()
            playback.play(entryId: id, fromMs: 1_000, at: epoch)
            try store.save(playback: playback, partyId: "p1")
        }
        let reopened = try backend.open(location)
        let entries = try reopened.entries(partyId: "p1")
        #expect(entries.count == 1)
        #expect(entries.first?.track == song)
        #expect(try entries.first?.likeCount == 1 && reopened.entriesLiked(by: "phone", partyId: "p1") == [entries.first?.id ?? 0])
        #expect(try reopened.blacklist(partyId: "p1").words == ["Schlager"])
        #expect(try reopened.tokens(partyId: "p1")?.refreshToken == "r")
        #expect(try reopened.monitorToken(partyId: "p1") == "token")
        #expect(try reopened.party(id: "p1")?.playback.currentEntryId == entries.first?.id)
        #expect(try reopened.party(id: "p1")?.playback.positionMs(at: epoch) == 1_000)
    }

    @Test(arguments: Backend.allCases) func votesToggleOnePerDevice(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        let id = try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "phone", autofilled: false)
        #expect(try store.setVote(entryId: id, deviceId: "a", wanted: nil).liked)
        #expect(try store.setVote(entryId: id, deviceId: "b", wanted: nil).liked)
        #expect(try !store.setVote(entryId: id, deviceId: "a", wanted: nil).liked)
        #expect(try store.entries(partyId: "p1").first?.likeCount == 1)
        #expect(try store.entriesLiked(by: "b", partyId: "p1") == [id] && store.entriesLiked(by: "a", partyId: "p1").isEmpty)
        #expect(try store.entries(partyId: "p1", uri: song.uri).map(\.id) == [id])
        #expect(try store.entries(partyId: "p1", uri: "demo:track:other").isEmpty)
    }

    /// R17: a like set to a state (`wanted`) changes nothing when it is in that state already, so a request repeated
    /// after a lost answer counts once.
    @Test(arguments: Backend.allCases) func aLikeSetTwiceCountsOnce(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        let id = try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "phone", autofilled: false)
        #expect(try store.setVote(entryId: id, deviceId: "a", wanted: true) == (true, true))
        #expect(try store.setVote(entryId: id, deviceId: "a", wanted: true) == (true, false))
        #expect(try store.entries(partyId: "p1").first?.likeCount == 1)
        #expect(try store.setVote(entryId: id, deviceId: "a", wanted: false) == (false, true))
        #expect(try store.setVote(entryId: id, deviceId: "a", wanted: false) == (false, false))
        #expect(try store.entries(partyId: "p1").first?.likeCount == 0 && store.entriesLiked(by: "a", partyId: "p1").isEmpty)
    }

    @Test(arguments: Backend.allCases) func endingEmptiesTheQueueDeletesTokensAndFreesThePins(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "x", autofilled: false)
        try store.save(tokens: ProviderTokens(provider: "spotify", accessToken: "a", refreshToken: "r", expiresAt: nil), partyId: "p1")
        #expect(try store.isPinTaken("11111"))
        #expect(throws: (any Error).self) { try store.insert(party("p2")) }
        try store.end(partyId: "p1", at: epoch)
        #expect(try store.entries(partyId: "p1").isEmpty)
        #expect(try store.tokens(partyId: "p1") == nil)
        #expect(try store.party(id: "p1")?.isActive == false)
        #expect(try !store.isPinTaken("11111"))
        try store.insert(party("p2"))
        #expect(try store.activeParty(guestPin: "11111")?.id == "p2")
    }

    @Test(arguments: Backend.allCases) func purgeDeletesPartiesEndedBeforeTheCutoffWithTheirRows(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("old", guest: "10000", host: "20000"))
        try store.insert(party("new", guest: "10001", host: "20001"))
        try store.addBlacklistWord("x", partyId: "old")
        try store.end(partyId: "old", at: epoch)
        try store.end(partyId: "new", at: epoch.addingTimeInterval(100))
        #expect(try store.purge(endedBefore: epoch.addingTimeInterval(50)) == 1)
        #expect(try store.party(id: "old") == nil)
        #expect(try store.party(id: "new") != nil)
        #expect(try store.blacklist(partyId: "old").words.isEmpty)
    }

    @Test(arguments: Backend.allCases) func migrationsRunOnceAndRecordTheSchemaVersion(_ backend: Backend) throws {
        let location = try backend.newLocation()
        #expect(try backend.open(location).schemaVersion == Schema.migrations.count)
        let again = try backend.open(location)
        #expect(try again.schemaVersion == Schema.migrations.count)
    }

    /// A database made by an older server: the first `migrations` applied, then `rows` inserted.
    func olderDatabase(_ backend: Backend, migrations: Int, rows: String) throws -> String {
        let location = try backend.newLocation()
        let connection = try backend.connection(location)
        try connection.migrate(Array(Schema.migrations(connection.dialect).prefix(migrations)))
        try connection.execute(rows)
        return location
    }

    /// Migration 8 keeps each entry's like count with it; a database made before carries its votes over.
    @Test(arguments: Backend.allCases) func likeCountsOfAnOlderDatabaseAreCarriedOver(_ backend: Backend) throws {
        let location = try olderDatabase(backend, migrations: 7, rows: """
                INSERT INTO parties (id, guest_pin, host_pin, provider, created_at) VALUES ('p1', '11111', '22222', 'demo', 0);
                INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, duration_ms, added_at, added_by, autofilled)
                    VALUES ('p1', 'demo:track:1', '1', 'One', 'A', 'X', 1000, 0, 'd', 0), ('p1', 'demo:track:2', '2', 'Two', 'A', 'X', 1000, 0, 'd', 0);
                INSERT INTO votes (entry_id, device_id) SELECT id, 'a' FROM queue_entries WHERE uri = 'demo:track:1';
                INSERT INTO votes (entry_id, device_id) SELECT id, 'b' FROM queue_entries WHERE uri = 'demo:track:1';
                INSERT INTO votes (entry_id, device_id) SELECT id, 'c' FROM queue_entries WHERE uri = 'demo:track:2';
                """)
        let store = try backend.open(location)
        let entries = try store.entries(partyId: "p1").sorted { $0.track.uri < $1.track.uri }
        #expect(entries.map(\.likeCount) == [2, 1])
        #expect(try !store.setVote(entryId: entries[0].id, deviceId: "a", wanted: nil).liked && store.setVote(entryId: entries[1].id, deviceId: "d", wanted: nil).liked)
        #expect(try store.entries(partyId: "p1").sorted { $0.track.uri < $1.track.uri }.map(\.likeCount) == [1, 2])
    }

    /// Migration 17 rebuilds the event log as a rowid table; what an older database logged is still replayed,
    /// and the next event is numbered after it.
    @Test(arguments: Backend.allCases) func theEventLogOfAnOlderDatabaseIsCarriedOver(_ backend: Backend) throws {
        let location = try olderDatabase(backend, migrations: 16, rows: """
                INSERT INTO parties (id, guest_pin, host_pin, provider, created_at, last_event_seq) VALUES ('p1', '11111', '22222', 'demo', 0, 2);
                INSERT INTO party_events (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
                    VALUES ('p1', 1, 'queue-updated', '{"n":1}', NULL, NULL, 0), ('p1', 2, 'login-success', '{"n":2}', 'ios', 'i1', 1);
                """)
        let store = try backend.open(location)
        #expect(try store.schemaVersion == Schema.migrations.count)
        let logged = try store.events(partyId: "p1", after: 0, limit: 10)
        #expect(logged.map(\.sequence) == [1, 2] && logged.map(\.message) == [#"{"n":1}"#, #"{"n":2}"#])
        #expect(logged.last?.audienceSource == "ios" && logged.last?.audienceInstallationId == "i1")
        let next = LoggedEvent(type: "vote-updated", message: #"{"n":3}"#, audienceSource: nil, audienceInstallationId: nil, createdAt: epoch)
        #expect(try store.appendEvents([next], partyId: "p1") == [3])
        #expect(try store.events(partyId: "p1", after: 2, limit: 10).map(\.message) == [#"{"n":3}"#])
    }

    /// SQLite numbers events after its log's newest, or after the party's counter where that is higher (a
    /// database whose older version pruned events, counting on in the counter).
    @Test(arguments: Backend.allCases) func aCounterAheadOfItsLogNumbersOn(_ backend: Backend) throws {
        let location = try olderDatabase(backend, migrations: 17, rows: """
                INSERT INTO parties (id, guest_pin, host_pin, provider, created_at, last_event_seq) VALUES ('p1', '11111', '22222', 'demo', 0, 7);
                INSERT INTO party_events (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
                    VALUES ('p1', 6, 'queue-updated', '{"n":6}', NULL, NULL, 0);
                """)
        let store = try backend.open(location)
        #expect(try store.lastEventSequence(partyId: "p1") == 7)
        let next = LoggedEvent(type: "vote-updated", message: #"{"n":8}"#, audienceSource: nil, audienceInstallationId: nil, createdAt: epoch)
        #expect(try store.appendEvents([next, next], partyId: "p1") == [8, 9])
        #expect(try store.lastEventSequence(partyId: "p1") == 9)
        #expect(try store.events(partyId: "p1", after: 0, limit: 10).map(\.sequence) == [6, 8, 9])
    }

    @Test(arguments: Backend.allCases) func aDatabaseFromANewerServerIsRefused(_ backend: Backend) throws {
        let location = try backend.newLocation()
        _ = try backend.open(location)
        do {
            let connection = try backend.connection(location)
            try connection.execute(connection.dialect.writeSchemaVersion(99))
        }
        #expect(throws: DatabaseError.self) { try backend.open(location) }
    }

    /// Where the backends differ: a failed statement whose error the caller swallowed aborts a PostgreSQL
    /// transaction, so its commit fails (and nothing lands) instead of committing the rest as SQLite does.
    @Test(arguments: Backend.allCases) func aSwallowedFailureInsideATransaction(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        let commit = {
            try store.transaction {
                try store.addBlacklistWord("x", partyId: "p1")
                _ = try? store.insert(party("p1"))
            }
        }
        switch backend {
        case .sqlite:
            try commit()
            #expect(try store.blacklist(partyId: "p1").words == ["x"])
        case .postgreSQL:
            #expect(throws: DatabaseError.self) { try commit() }
            #expect(try store.blacklist(partyId: "p1").words.isEmpty)
        }
    }

    /// `end` has its own transaction; inside another one it is a savepoint and lands with the outer commit.
    @Test(arguments: Backend.allCases) func aNestedTransactionLandsWithItsOuterOne(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        try store.transaction {
            try store.addBlacklistWord("x", partyId: "p1")
            try store.end(partyId: "p1", at: epoch)
        }
        #expect(try store.party(id: "p1")?.isActive == false && store.blacklist(partyId: "p1").words == ["x"])
        struct Abort: Error {}
        try store.insert(party("p2"))
        #expect(throws: Abort.self) {
            try store.transaction {
                try store.end(partyId: "p2", at: epoch)
                throw Abort()
            }
        }
        #expect(try store.party(id: "p2")?.isActive == true)
    }

    @Test(arguments: Backend.allCases) func aFailedTransactionLeavesNothingBehind(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction {
                try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "x", autofilled: false)
                throw Abort()
            }
        }
        #expect(try store.entries(partyId: "p1").isEmpty)
    }
}

@Suite("Parties read together")
struct PartiesReadTogetherTests {
    /// Several instances watch hundreds of parties' playback once a second: read by their ids, 64 to a statement,
    /// the ones that exist.
    @Test(arguments: Backend.allCases) func partiesAreReadByTheirIdsSixtyFourToAStatement(_ backend: Backend) throws {
        let store = try backend.newStore()
        let ids = (0..<70).map { "party-\($0)" }
        for (index, id) in ids.enumerated() {
            try store.insert(Party(id: id, guestPin: String(10_000 + index), hostPin: String(50_000 + index), provider: "demo",
                                   createdAt: Date()))
        }
        let found = try store.parties(ids: ids + ["no-such-party"])
        #expect(Set(found.keys) == Set(ids))
        #expect(found["party-69"]?.guestPin == "10069" && found["party-0"]?.hostPin == "50000")
        #expect(try store.parties(ids: []).isEmpty)
    }
}

@Suite("R15 play memory")
struct PlayedTests {
    @Test(arguments: Backend.allCases) func theNewestFiftyPlaysAreKeptNewestFirst(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(Party(id: "p", guestPin: "12345", hostPin: "54321", provider: "demo", createdAt: Date()))
        for index in 0..<60 {
            try store.recordPlayed(uri: "demo:track:\(index)", partyId: "p", at: Date(timeIntervalSince1970: Double(index)))
        }
        let recent = try store.recentlyPlayed(partyId: "p")
        #expect(recent.count == 50 && recent.first == "demo:track:59" && recent.last == "demo:track:10")
    }
}

@Suite("Write version for read caches")
struct WriteVersionTests {
    @Test(arguments: Backend.allCases) func everyWriteMovesTheVersionAndReadsDoNot(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(Party(id: "p", guestPin: "12345", hostPin: "54321", provider: "demo", createdAt: Date()))
        var version = store.writeVersion
        _ = try store.entries(partyId: "p")
        _ = try store.party(id: "p")
        #expect(store.writeVersion == version, "reads leave it alone")
        let id = try store.insertEntry(partyId: "p", track: Track(id: "1", uri: "demo:track:1", name: "a", artists: ["b"], album: "c",
                                                                  imageURL: nil, durationMs: 1), addedAt: Date(), addedBy: "d", autofilled: false)
        #expect(store.writeVersion > version); version = store.writeVersion
        _ = try store.setVote(entryId: id, deviceId: "x", wanted: nil).liked
        #expect(store.writeVersion > version); version = store.writeVersion
        try store.save(playback: Playback(currentEntryId: id), partyId: "p")
        #expect(store.writeVersion > version); version = store.writeVersion
        try store.deleteEntry(id: id)
        #expect(store.writeVersion > version)
    }

    /// Several instances: every transaction that changes a party's rows moves that party's version (another instance's
    /// cached reads of it go), once however many rows and statements it changed, and leaves other parties' alone.
    @Test func aPartysVersionMovesOncePerTransactionThatChangesItsRows() throws {
        let store = try Backend.postgreSQL.newStore()
        for id in ["p", "q"] {
            try store.insert(Party(id: id, guestPin: id == "p" ? "12345" : "23456", hostPin: id == "p" ? "54321" : "65432",
                                   provider: "demo", createdAt: Date()))
        }
        let track = Track(id: "1", uri: "demo:track:1", name: "a", artists: ["b"], album: "c", imageURL: nil, durationMs: 1)
        let entry = try store.insertEntry(partyId: "p", track: track, addedAt: Date(), addedBy: "d", autofilled: false)
        let other = try #require(try store.partyVersion(id: "q"))
        func moves(_ change: String, by steps: Int64, _ write: () throws -> Void) throws {
            let before = try #require(try store.partyVersion(id: "p"))
            try write()
            let after = try #require(try store.partyVersion(id: "p"))
            #expect(after - before == steps, "\(change): moved by \(after - before)")
        }
        var likes = LikesWrite()
        likes.liked = (1...5).map { VoteKey(entryId: entry, deviceId: "guest-\($0)") }
        likes.likeCounts = [(entryId: entry, change: 5)]
        // The votes, the count and the activity: three statement triggers, one move.
        likes.activity = [(deviceId: "guest-1", at: Date())]
        try moves("five likes in one write", by: 1) {
            let written = try store.writeLikes(likes, partyId: "p", rule: GuestLimits.likes)
            #expect(written)
        }
        // The vote and its entry's count: two data-modifying statements in one `WITH`.
        try moves("one vote", by: 1) { _ = try store.setVote(entryId: entry, deviceId: "guest-6", wanted: true) }
        // An upsert of new rows fires the insert's statement trigger and the update's (with no rows).
        try moves("three guests seen", by: 1) { try store.recordActivity((1...3).map { ("guest-\($0)", Date()) }, partyId: "p") }
        // A transaction of several writes, a row trigger's (a nickname) among them: one move, seen with its commit.
        try moves("a transaction of four writes", by: 1) {
            try store.transaction {
                _ = try store.setVote(entryId: entry, deviceId: "guest-7", wanted: true)
                try store.recordActivity(deviceId: "guest-7", partyId: "p", at: Date())
                _ = try store.admitGuest(deviceId: "guest-7", partyId: "p", address: "10.0.0.7", at: Date())
                try store.setNickname(Nickname("Seven"), deviceId: "guest-7", partyId: "p")
            }
        }
        // Rolled back: no move.
        try moves("a write rolled back", by: 0) {
            struct Undone: Error {}
            _ = try? store.transaction { _ = try store.setVote(entryId: entry, deviceId: "guest-8", wanted: true); throw Undone() }
        }
        // Its votes go by the cascade after it, when no entry names their party any more.
        try moves("the entry gone with its votes", by: 1) { try store.deleteEntry(id: entry) }
        #expect(try store.partyVersion(id: "q") == other, "another party's version stays")
    }

    /// Each PIN check is an index look-up, not a scan of every party ever created.
    @Test func pinChecksUseThePartialUniqueIndexes() throws {
        let store = try PartyStore(path: temporaryDatabase())
        for (index, lookup) in PartyStore.pinLookups.enumerated() {
            let plan = try store.queryPlan(lookup).joined(separator: " ")
            #expect(plan.contains(index == 0 ? "parties_active_guest_pin" : "parties_active_host_pin") && !plan.contains("SCAN"), "\(plan)")
        }
        try store.insert(party("p1"))
        #expect(try store.isPinTaken("11111") && store.isPinTaken("22222") && !store.isPinTaken("33333"))
        #expect(try store.activePartyCount() == 1)
    }

    /// A database error names the statement that failed.
    @Test(arguments: Backend.allCases) func aDatabaseErrorCarriesItsSQL(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        do {
            try store.insert(party("p1"))
            Issue.record("a second party with the same id was accepted")
        } catch let error as DatabaseError {
            #expect(error.sql?.contains("INSERT INTO parties") == true)
            #expect(error.description.localizedCaseInsensitiveContains("unique") && error.description.contains("INSERT INTO parties"),
                    "\(error)")
        }
    }
}

@Suite("SQL dialects")
struct SQLDialectTests {
    /// PostgreSQL plans a statement once per session: prepared at its first call, by its text and its parameters'
    /// types, executed by name after; a new session prepares it again.
    @Test func postgreSQLPreparesEachStatementOncePerSession() throws {
        let connection = try PostgreSQLConnection(url: try Backend.postgreSQL.newLocation())
        #expect(connection.preparedCount == 0)
        for number in 1...3 { #expect(try connection.run("SELECT ? + 1 AS n", [.integer(Int64(number))]).first?.integer("n") == Int64(number + 1)) }
        #expect(connection.preparedCount == 1)
        #expect(try connection.run("SELECT CAST(? AS TEXT) AS t", [.text("a")]).first?.text("t") == "a")
        #expect(try connection.run("SELECT CAST(? AS TEXT) AS t", [.null]).first?.text("t") == nil)
        #expect(connection.preparedCount == 2, "the same text with a NULL: the server infers the same type")
        #expect(connection.reset())
        #expect(connection.preparedCount == 0)
        #expect(try connection.run("SELECT ? + 1 AS n", [.integer(41)]).first?.integer("n") == 42)
        #expect(connection.preparedCount == 1)
    }

    /// A prepared statement whose result another session changed (a newer instance's migration added a column) is
    /// prepared anew, outside a transaction at once.
    @Test func aPreparedStatementWhoseTableChangedIsPreparedAnew() throws {
        let location = try Backend.postgreSQL.newLocation()
        let connection = try PostgreSQLConnection(url: location)
        try connection.execute("CREATE TABLE t (a BIGINT); INSERT INTO t VALUES (1)")
        #expect(try connection.run("SELECT * FROM t WHERE a = ?", [.integer(1)]).first?.integer("a") == 1)
        try PostgreSQLConnection(url: location).execute("ALTER TABLE t ADD COLUMN b BIGINT DEFAULT 7")
        #expect(try connection.run("SELECT * FROM t WHERE a = ?", [.integer(1)]).first?.integer("b") == 7)
    }

    /// A statement that waits for a lock past the session's `statement_timeout` (five sixths of the answer deadline) is
    /// ended by the server: it fails as a timeout (57014, a 503 for the request) and the session lives on, where a
    /// statement past the answer deadline itself would have cost the session.
    @Test func aStatementPastItsDeadlineFailsAndTheSessionLivesOn() throws {
        let location = try Backend.postgreSQL.newLocation()
        let connection = try PostgreSQLConnection(url: location)
        #expect(try connection.run("SHOW statement_timeout", []).first?.text("statement_timeout") == "2500ms", "a request's session")
        // 5 s on the server, 6 s on the client: a second for the server's answer on a loaded machine.
        connection.answerDeadline = 6
        try connection.execute("CREATE TABLE t (a BIGINT PRIMARY KEY); INSERT INTO t VALUES (1)")
        let holder = try PostgreSQLConnection(url: location)
        try holder.execute("BEGIN; SELECT a FROM t WHERE a = 1 FOR UPDATE")
        var failure: DatabaseError?
        do { try connection.run("UPDATE t SET a = 2 WHERE a = ?", [.integer(1)]) } catch { failure = error }
        #expect(failure?.sqlState == "57014" && failure?.isTimeout == true, "\(String(describing: failure))")
        #expect(connection.isConnected && connection.sessions == 1, "the same session")
        try holder.execute("ROLLBACK")
        try connection.run("UPDATE t SET a = 2 WHERE a = ?", [.integer(1)])
        #expect(try connection.run("SELECT a FROM t", []).first?.integer("a") == 2)
        // A session that takes no deadline (the migrations) waits as long as it takes.
        connection.answerDeadline = nil
        #expect(try connection.run("SHOW statement_timeout", []).first?.text("statement_timeout") == "0")
    }

    /// R31: a limit counted in the shared counts inside the open transaction; over the limit it is taken back.
    /// PostgreSQL only: one instance alone counts in memory.
    @Test func aLimitCountsInTheTransactionAndTakesBackWhatIsOver() throws {
        let store = try Backend.postgreSQL.newStore()
        let rule = LimitRule("test-rule", limit: 3)
        for _ in 1...3 { #expect(try store.transaction { try store.admit(1, rule, key: "k", at: epoch) } == nil) }
        #expect(try store.transaction { try store.admit(1, rule, key: "k", at: epoch) } ?? 0 > 0)
        #expect(try store.transaction { try store.admit(1, rule, key: "other", at: epoch) } == nil, "each key counts alone")
        _ = try? store.transaction { () throws -> Int? in
            _ = try store.admit(1, rule, key: "rolled back", at: epoch)
            throw DatabaseError(code: 0, message: "a failed write")
        }
        for _ in 1...3 { #expect(try store.admit(1, rule, key: "rolled back", at: epoch) == nil, "the rolled-back count went with it") }
        #expect(try store.admit(1, rule, key: "k", at: epoch.addingTimeInterval(rule.window + 60)) == nil, "the window moved on")
    }

    /// R17a: many devices' activity in few statements, one row per device, the newest time kept.
    @Test(arguments: Backend.allCases) func activityOfManyDevicesIsWrittenInFewStatements(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        let devices = (0..<70).map { "phone-\($0)" }
        try store.transaction { try store.recordActivity(devices.map { ($0, epoch) }, partyId: "p1") }
        #expect(try store.activeGuestCount(partyId: "p1", since: epoch) == 70)
        try store.recordActivity(devices.prefix(5).map { ($0, epoch.addingTimeInterval(60)) }, partyId: "p1")
        #expect(try store.activeGuestCount(partyId: "p1", since: epoch.addingTimeInterval(30)) == 5)
    }

    /// A lock a transaction took is taken once; a savepoint rolled back gives back the locks taken inside it.
    @Test(arguments: Backend.allCases) func thePartysRowIsLockedOncePerTransaction(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        try store.transaction {
            #expect(try store.lockedParty(id: "p1")?.id == "p1")
            try store.lockParty(id: "p1")
            _ = try? store.transaction { () throws -> Void in
                try store.lockParty(id: "p1")
                throw DatabaseError(code: 0, message: "a failed write")
            }
            try store.lockParty(id: "p1")
            #expect(!store.transactionFailed)
        }
        #expect(try store.lockedParty(id: "p1")?.id == "p1", "outside a transaction: a plain read")
    }

    @Test func postgreSQLNumbersTheParametersAndLeavesQuotedTextAlone() {
        let sql = "SELECT 1 FROM t WHERE a = ? AND (?2 IS NULL OR b = ?2) AND c = '?' AND d = ?"
        #expect(SQLDialect.postgreSQL.parameters(sql) == "SELECT 1 FROM t WHERE a = $1 AND ($2 IS NULL OR b = $2) AND c = '?' AND d = $2")
        #expect(SQLDialect.sqlite.parameters(sql) == sql)
    }
}

/// Each party's events as a log, on both backends.
@Suite("Event log")
struct EventLogStoreTests {
    static func event(_ type: String, at date: Date = epoch, audience: (String, String?)? = nil) -> LoggedEvent {
        LoggedEvent(type: type, message: "{\"type\":\"\(type)\"}", audienceSource: audience?.0, audienceInstallationId: audience?.1,
                    createdAt: date)
    }

    @Test(arguments: Backend.allCases) func eachPartyNumbersItsOwnEventsInOrder(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        try store.insert(party("p2", guest: "33333", host: "44444"))
        #expect(try store.lastEventSequence(partyId: "p1") == 0 && store.lastEventSequence(partyId: "nope") == nil)
        #expect(try store.appendEvents([Self.event("queue-updated"), Self.event("track-changed")], partyId: "p1") == [1, 2])
        #expect(try store.appendEvents([Self.event("queue-updated")], partyId: "p2") == [1], "another party counts on its own")
        #expect(try store.appendEvents([Self.event("vote-updated", audience: ("ios", "install-a"))], partyId: "p1") == [3])
        #expect(try store.lastEventSequence(partyId: "p1") == 3)
        let replay = try store.events(partyId: "p1", after: 1, limit: 10)
        #expect(replay.map(\.sequence) == [2, 3] && replay.map(\.type) == ["track-changed", "vote-updated"])
        #expect(replay.last?.audienceSource == "ios" && replay.last?.audienceInstallationId == "install-a")
        #expect(replay.first?.message == "{\"type\":\"track-changed\"}" && replay.first?.createdAt == epoch)
        #expect(try store.events(partyId: "p1", after: 0, limit: 2).map(\.sequence) == [1, 2])
        #expect(throws: (any Error).self) { try store.appendEvents([Self.event("x")], partyId: "nope") }
    }

    /// An event exists if and only if its change committed: a rolled-back transaction takes its events and their
    /// numbers with it.
    @Test(arguments: Backend.allCases) func eventsRollBackWithTheirTransaction(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("p1"))
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction {
                try store.insertEntry(partyId: "p1", track: song, addedAt: epoch, addedBy: "x", autofilled: false)
                _ = try store.appendEvents([Self.event("queue-updated")], partyId: "p1")
                throw Abort()
            }
        }
        #expect(try store.lastEventSequence(partyId: "p1") == 0 && store.events(partyId: "p1", after: 0, limit: 10).isEmpty)
        #expect(try store.appendEvents([Self.event("queue-updated")], partyId: "p1") == [1], "the number is given out again")
    }

    /// A large log goes in short steps: each deletes at most its share, and the steps together what one would.
    @Test(arguments: Backend.allCases) func pruningGoesInBoundedSteps(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("old"))
        try store.insert(party("busy", guest: "33333", host: "44444"))
        _ = try store.appendEvents((0..<30).map { _ in Self.event("queue-updated", at: epoch) }, partyId: "old")
        _ = try store.appendEvents((0..<40).map { _ in Self.event("queue-updated", at: epoch) }, partyId: "busy")
        var steps: [Int] = []
        while steps.count < 20 {
            let deleted = try store.pruneEvents(before: epoch.addingTimeInterval(300), keepingLast: 10, atMost: 7)
            steps.append(deleted)
            if deleted < 7 { break }
        }
        #expect(steps.allSatisfy { $0 <= 7 } && steps.reduce(0, +) == 20 + 30, "\(steps)")
        #expect(try store.events(partyId: "old", after: 0, limit: 100).map(\.sequence) == Array(21...30))
        #expect(try store.events(partyId: "busy", after: 0, limit: 100).map(\.sequence) == Array(31...40))
    }

    @Test(arguments: Backend.allCases) func pruningKeepsTheLastEventsAndTheRecentOnes(_ backend: Backend) throws {
        let store = try backend.newStore()
        try store.insert(party("old"))
        try store.insert(party("busy", guest: "33333", host: "44444"))
        _ = try store.appendEvents((0..<30).map { _ in Self.event("queue-updated", at: epoch) }, partyId: "old")
        _ = try store.appendEvents((0..<30).map { _ in Self.event("queue-updated", at: epoch) }, partyId: "busy")
        _ = try store.appendEvents((0..<30).map { _ in Self.event("vote-updated", at: epoch.addingTimeInterval(600)) }, partyId: "busy")
        #expect(try store.pruneEvents(before: epoch.addingTimeInterval(300), keepingLast: 10) == 20 + 30)
        #expect(try store.events(partyId: "old", after: 0, limit: 100).map(\.sequence) == Array(21...30), "the last 10 stay")
        #expect(try store.events(partyId: "busy", after: 0, limit: 100).map(\.sequence) == Array(31...60),
                "everything after the cutoff stays, though more than 10")
        #expect(try store.pruneEvents(before: epoch.addingTimeInterval(300), keepingLast: 10) == 0)
        #expect(try store.appendEvents([Self.event("x")], partyId: "old") == [31], "numbers go on after a prune")
        // A prune that empties a log: its numbers are not given out again, after a reopen neither.
        #expect(try store.pruneEvents(before: epoch.addingTimeInterval(700), keepingLast: 0) == 11 + 30)
        #expect(try store.events(partyId: "old", after: 0, limit: 100).isEmpty && store.lastEventSequence(partyId: "old") == 31)
        #expect(try store.appendEvents([Self.event("y")], partyId: "old") == [32])
        #expect(try store.appendEvents([Self.event("y")], partyId: "busy") == [61])
    }

    @Test(arguments: Backend.allCases) func theLogSurvivesReopeningAndGoesWithItsParty(_ backend: Backend) throws {
        let location = try backend.newLocation()
        do {
            let store = try backend.open(location)
            try store.insert(party("p1"))
            _ = try store.appendEvents([Self.event("queue-updated"), Self.event("party-ended")], partyId: "p1")
        }
        let reopened = try backend.open(location)
        #expect(try reopened.lastEventSequence(partyId: "p1") == 2)
        #expect(try reopened.appendEvents([Self.event("x")], partyId: "p1") == [3])
        try reopened.end(partyId: "p1", at: epoch)
        try reopened.purge(endedBefore: epoch.addingTimeInterval(1))
        #expect(try reopened.events(partyId: "p1", after: 0, limit: 10).isEmpty, "R6: purged with the party")
    }
}
