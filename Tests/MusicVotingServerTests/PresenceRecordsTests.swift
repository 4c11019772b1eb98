import Foundation
@testable import MusicVotingServer
import PartyCluster
import PartyEngine
import PartyStore
import Testing
import TestSupport

/// Several instances (R20a/R21): each instance's records of the parties' players, written together once a second.
@Suite("Presence records on PostgreSQL")
struct PresenceRecordsTests {
    @Test func manyPartiesRecordsAreWrittenTogetherAndEachReadsBackAsWritten() throws {
        let url = try PostgreSQLCluster.shared().createDatabase()
        _ = try Application.openPostgreSQL(url)
        let (one, other) = (try ClusterPresence(url: url), try ClusterPresence(url: url))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // More parties than one statement's rows: the write goes in chunks, every record lands.
        let count = PartyStore.rowsPerStatement * 2 + 3
        func record(_ index: Int, at time: Date) -> PresenceRecord {
            PresenceRecord(streams: index % 3, lastHeartbeat: time.addingTimeInterval(-Double(index)), lastStreamClosed: nil,
                           reports: index % 2 == 0, heardAt: index % 5 == 0 ? nil : time.addingTimeInterval(-1),
                           positionMs: index % 5 == 0 ? nil : index * 1_000, reportedAt: index % 5 == 0 ? nil : time, updatedAt: time)
        }
        let written = Dictionary(uniqueKeysWithValues: (0..<count).map { ("party-\($0)", record($0, at: now)) })
        try one.save(written)
        try other.save(["party-7": record(71, at: now)])
        for (partyId, expected) in written {
            let found = try one.records(partyId: partyId, at: now)
            let mine = partyId == "party-7" ? found.filter { $0.positionMs != 71_000 } : found
            #expect(mine == [expected], "\(partyId): \(found)")
        }
        #expect(try one.records(partyId: "party-7", at: now).count == 2, "each instance keeps a record of its own")

        // A later write replaces this instance's record, not the other's.
        let later = now.addingTimeInterval(1)
        try one.save(["party-7": record(8, at: later)])
        let records = try one.records(partyId: "party-7", at: later)
        #expect(Set(records.map(\.positionMs)) == [8_000, 71_000], "\(records)")
    }
}
