import Foundation
import PartyCore
import PartyStore
import Synchronization
import Testing
import TestSupport
@testable import HTTPServer
@testable import MusicVotingServer
@testable import PartyEngine

/// Writes that arrive while a batch commits go together as the next one; each answer comes after the
/// commit holding it, a failing write fails alone, and events keep commit order.
@Suite("Group commit")
struct GroupCommitTests {
    /// Runs batches while the first one is held open, so the rest pile up; returns the batches as they ran.
    static func batches(of jobs: Int, maxBatch: Int) -> [[Int]] {
        let commits = GroupCommit<Int>(maxBatch: maxBatch)
        let seen = Mutex<[[Int]]>([])
        let firstStarted = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), allDone = DispatchGroup()
        let run: @Sendable ([Int]) -> Void = { batch in
            let isFirst = seen.withLock { seen in
                seen.append(batch)
                return seen.count == 1
            }
            if isFirst {
                firstStarted.signal()
                release.wait()
            }
            for _ in batch { allDone.leave() }
        }
        for _ in 0..<jobs { allDone.enter() }
        commits.submit(0, run: run)
        firstStarted.wait()
        for job in 1..<jobs { commits.submit(job, run: run) }
        release.signal()
        allDone.wait()
        return seen.withLock { $0 }
    }

    @Test func writesThatArriveDuringACommitFormTheNextBatchInArrivalOrderCutAtTheBound() {
        #expect(Self.batches(of: 11, maxBatch: 4) == [[0], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10]])
        #expect(Self.batches(of: 3, maxBatch: 64) == [[0], [1, 2]], "nothing waits for a batch to fill")
    }

    /// The committer is a thread of its own; the `GroupCommit` dropped while jobs wait, those jobs still
    /// run, and then its thread ends (a server makes one, the tests make hundreds).
    @Test func aDroppedGroupCommitRunsWhatWaitsAndThenItsThreadEnds() throws {
        /// This thread's folder in /proc ("PID/task/TID").
        @Sendable func threadFolder() -> String { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "" }
        let ran = Mutex<(jobs: [Int], thread: String, name: String)>(([], "", ""))
        let firstStarted = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), allDone = DispatchGroup()
        let run: @Sendable ([Int]) -> Void = { batch in
            let first = ran.withLock { ran in
                defer { ran.jobs += batch }
                if ran.jobs.isEmpty {
                    ran.thread = threadFolder()
                    ran.name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                }
                return ran.jobs.isEmpty
            }
            if first {
                firstStarted.signal()
                release.wait()
            }
            for _ in batch { allDone.leave() }
        }
        for _ in 0..<4 { allDone.enter() }
        do {
            let commits = GroupCommit<Int>(maxBatch: 2)
            commits.submit(0, run: run)
            firstStarted.wait()
            for job in 1..<4 { commits.submit(job, run: run) }
        }
        release.signal()
        allDone.wait()
        let (jobs, thread, name) = ran.withLock { $0 }
        #expect(jobs == [0, 1, 2, 3], "the jobs queued when it was dropped ran, in order")
        #expect(name.trimmingCharacters(in: .newlines) == GroupCommit<Int>.threadName)
        #expect(thread.contains("/task/") && thread != threadFolder())
        #expect(eventually { !FileManager.default.fileExists(atPath: "/proc/\(thread)") },
                "the committer thread ended once its GroupCommit was gone and nothing waited")

        // Dropped while its committer sleeps: the thread wakes and ends.
        let idleThread = Mutex("")
        let done = DispatchSemaphore(value: 0)
        do {
            let commits = GroupCommit<Int>()
            commits.submit(0) { _ in
                idleThread.withLock { $0 = threadFolder() }
                done.signal()
            }
            done.wait()
            Thread.sleep(forTimeInterval: 0.05)  // not needed for the outcome: the committer usually sleeps by now
        }
        let idle = idleThread.withLock { $0 }
        #expect(idle.contains("/task/") && eventually { !FileManager.default.fileExists(atPath: "/proc/\(idle)") },
                "an idle committer's thread ended once its GroupCommit was gone")
    }

    func makeService(database: String? = nil) throws -> PartyService {
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-commit-\(UUID().uuidString)").path
        configuration.databaseURL = database
        return try Application(configuration: configuration, clock: ManualClock(Date(timeIntervalSince1970: 1_800_000_000))).service
    }

    /// One batch of jobs, as the committer runs it; each job's result in submission order.
    func commitTogether(_ service: PartyService, withoutSavepoints: Bool = false,
                        _ writes: [@Sendable (inout PartyState) throws -> Int]) -> [Result<Int, PartyError>] {
        let results = Mutex<[Int: Result<Int, PartyError>]>([:])
        let jobs = writes.enumerated().map { index, body in
            BatchedWrite(withoutSavepoint: withoutSavepoints, body) { result in results.withLock { $0[index] = result.mapError { $0 as? PartyError ?? .partyNotFound } } }
        }
        service.commit(jobs)
        return results.withLock { results in writes.indices.map { results[$0] ?? .failure(.partyNotFound) } }
    }

    @Test func aFailingWriteFailsAloneAndTheEventsOfABatchKeepItsOrder() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1", "demo:track:2"], deviceId: "adder", party: party)
        let before = try service.withState { try $0.store.lastEventSequence(partyId: party.id) } ?? 0
        let like: @Sendable (String, String) -> @Sendable (inout PartyState) throws -> Int = { uri, device in
            { state in try state.vote(uri: uri, deviceId: device, clientAddress: "10.0.0.\(device.count)", party: party).likeCount }
        }
        let results = commitTogether(service, [like("demo:track:2", "a"), like("demo:track:9", "b"), like("demo:track:2", "cc"),
                                               like("demo:track:1", "ddd")])
        #expect(results[0] == .success(1) && results[2] == .success(2) && results[3] == .success(1))
        #expect(results[1] == .failure(.notInQueue), "a like of a song not queued fails alone: \(results[1])")
        let queue = try service.queue(of: party)
        #expect(queue.entries.map(\.likeCount).sorted() == [1, 2], "the batch's other writes committed")
        let stream = try service.openEventStream(party: party, clientAddress: "10.0.0.9", caller: nil, lastEventId: before) {
            EventStream(initial: $0)
        }
        defer { stream.finish() }
        let text = EventHubTests.drain(stream)
        let ids = EventLogServiceTests.ids(text).dropFirst()
        #expect(Array(ids) == [before + 1, before + 2, before + 3], "three events, numbered in commit order: \(text)")
        let likes = text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap { line -> String? in
            let event = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            let payload = event?["payload"] as? [String: Any]
            return payload.map { "\($0["uri"] ?? "?")=\($0["likeCount"] ?? "?")" }
        }
        #expect(likes == ["demo:track:2=1", "demo:track:2=2", "demo:track:1=1"], "events in commit order: \(text)")
    }

    /// Several instances (PostgreSQL, where a savepoint is two round trips): a batch's likes run without one each. A
    /// like refused before it wrote anything fails alone; one that fails after it wrote rolls the batch back, and the
    /// batch runs again with a savepoint per write: its neighbours land once, and it fails alone.
    @Test func onPostgreSQLABatchRunsWithoutSavepointsAndAgainWithThemWhenAWriteFailsAfterItWrote() throws {
        struct Failed: Error {}
        let service = try makeService(database: try PostgreSQLCluster.shared().createDatabase())
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1", "demo:track:2"], deviceId: "adder", party: party)
        let runs = Mutex<[String: Int]>([:])
        let like: @Sendable (String, String) -> @Sendable (inout PartyState) throws -> Int = { uri, device in
            { state in
                runs.withLock { $0[device, default: 0] += 1 }
                return try state.vote(uri: uri, deviceId: device, clientAddress: "10.0.1.\(device.count)", party: party).likeCount
            }
        }
        let refused = commitTogether(service, withoutSavepoints: true, [like("demo:track:2", "a"), like("demo:track:9", "b"),
                                                                        like("demo:track:2", "cc")])
        #expect(refused[0] == .success(1) && refused[1] == .failure(.notInQueue) && refused[2] == .success(2))
        #expect(runs.withLock { $0 } == ["a": 1, "b": 1, "cc": 1], "a refusal that wrote nothing failed alone, no second run")

        let failing: @Sendable (inout PartyState) throws -> Int = { state in
            _ = try state.vote(uri: "demo:track:1", deviceId: "wrote-then-failed", clientAddress: "10.0.1.99", party: party)
            throw Failed()
        }
        let failed = commitTogether(service, withoutSavepoints: true, [like("demo:track:1", "ddd"), failing, like("demo:track:1", "eeee")])
        #expect(failed[0] == .success(1) && failed[2] == .success(2), "\(failed)")
        #expect(failed[1] == .failure(.partyNotFound), "the write that failed after it wrote failed alone: \(failed[1])")
        #expect(runs.withLock { $0["ddd"] } == 2, "the batch ran again, with a savepoint per write")
        let counts = try service.queue(of: party).entries.reduce(into: [String: Int]()) { $0[$1.track.uri] = $1.likeCount }
        #expect(counts == ["demo:track:1": 2, "demo:track:2": 2], "each like landed once, the failed one not at all: \(counts)")
    }

    /// Several instances: a batch's likes of a party read what they need in one statement and write in one before the
    /// commit. R17's toggles and repeated likes, R11's limit, a like of a song not queued and new guests come out as a
    /// like at a time would, in the batch's order, and the rows written are the ones a like at a time writes.
    @Test func onPostgreSQLABatchsLikesAreDecidedTogetherAndWrittenInOneStatement() throws {
        let service = try makeService(database: try PostgreSQLCluster.shared().createDatabase())
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1", "demo:track:2"], deviceId: "adder", party: party)
        _ = try service.vote(uri: "demo:track:1", deviceId: "before", wanted: true, clientAddress: "10.0.2.1", party: party)
        for _ in 0..<GuestLimits.likesPerDevice {
            _ = try service.vote(uri: "demo:track:2", deviceId: "limited", clientAddress: "10.0.2.2", party: party)
        }
        let likes: [(uri: String, device: String, wanted: Bool?)] = [
            ("demo:track:2", "a", nil), ("demo:track:2", "a", nil), ("demo:track:2", "b", true), ("demo:track:2", "b", true),
            ("demo:track:1", "before", true), ("demo:track:1", "before", false), ("demo:track:9", "c", true),
            ("demo:track:1", "limited", true), ("demo:track:1", "d", nil),
        ]
        let results = Mutex<[Int: Result<String, PartyError>]>([:])
        let jobs = likes.enumerated().map { index, like in
            BatchedWrite(partyId: party.id, withoutSavepoint: true, like: (like.device, like.uri), { state in
                let vote = try state.vote(uri: like.uri, deviceId: like.device, wanted: like.wanted, clientAddress: "10.0.3.\(index)", party: party)
                return "\(vote.liked) \(vote.likeCount)"
            }, completion: { result in results.withLock { $0[index] = result.mapError { $0 as? PartyError ?? .partyNotFound } } })
        }
        // The batch's last write sees its likes gathered, not yet written.
        let gathered = Mutex<(liked: Int, unliked: Int)?>(nil)
        let probe = BatchedWrite(partyId: party.id, withoutSavepoint: true, { state in
            gathered.withLock { $0 = state.batchedLikes[party.id].map { ($0.write.liked.count, $0.write.unliked.count) } }
            return ""
        }, completion: { _ in })
        service.commit(jobs + [probe])
        #expect(gathered.withLock { $0 }.map { $0 == (2, 1) } == true, "b's and d's likes, before's taken back: \(String(describing: gathered.withLock { $0 }))")
        let outcome = results.withLock { results in likes.indices.map { results[$0] ?? .failure(.partyNotFound) } }
        #expect(outcome[0] == .success("true 1") && outcome[1] == .success("false 0"), "a toggle and its undo: \(outcome)")
        #expect(outcome[2] == .success("true 1") && outcome[3] == .success("true 1"), "a like sent twice counts once: \(outcome)")
        #expect(outcome[4] == .success("true 1") && outcome[5] == .success("false 0"), "a like already stored, then taken back: \(outcome)")
        #expect(outcome[6] == .failure(.notInQueue))
        guard case .failure(.rateLimited) = outcome[7] else { Issue.record("over R11's like limit: \(outcome[7])"); return }
        #expect(outcome[8] == .success("true 1"))

        #expect(try service.queue(of: party).entries.reduce(into: [String: Int]()) { $0[$1.track.uri] = $1.likeCount }
                == ["demo:track:1": 1, "demo:track:2": GuestLimits.likesPerDevice % 2 + 1])
        let stored = try service.withState { state in
            try state.store.readForLikes(partyId: party.id, likes: ["a", "b", "before", "c", "limited", "d"].flatMap { [($0, "demo:track:1"), ($0, "demo:track:2")] },
                                         rule: GuestLimits.likes, at: state.now)
        }
        let counted = stored.counts.mapValues { $0.values.reduce(0) { $0 + $1.count } }
        let key = { GuestLimits.key(device: $0, party: party.id) }
        #expect(counted == [key("a"): 2, key("b"): 2, key("before"): 3, key("c"): 1, key("limited"): GuestLimits.likesPerDevice, key("d"): 1],
                "each like counted once, none over the limit: \(counted)")
        #expect(Set(stored.votes.map(\.deviceId)) == Set(["b", "d"] + (GuestLimits.likesPerDevice % 2 == 1 ? ["limited"] : [])))
        #expect(stored.guests == ["a", "b", "before", "limited", "d"], "a guest is admitted by its first like that was not refused before")
        // The rows are the database's: a like at a time after the batch finds them.
        #expect(try service.vote(uri: "demo:track:2", deviceId: "b", wanted: true, clientAddress: "10.0.3.2", party: party) == (true, GuestLimits.likesPerDevice % 2 + 1))
    }

    /// Several instances: a song added in the batch after its likes were read is liked too, later in the batch (that
    /// like writes its own vote), and the counts of the batch's other likes stay on the queue the add read again.
    @Test func onPostgreSQLALikeOfASongAddedEarlierInTheSameBatchWritesItsOwnVote() throws {
        let service = try makeService(database: try PostgreSQLCluster.shared().createDatabase())
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1"], deviceId: "adder", party: party)
        let results = Mutex<[Int: Result<Int, PartyError>]>([:])
        let answer = { (index: Int) in { @Sendable (result: Result<Int, any Error>) in
            results.withLock { $0[index] = result.mapError { $0 as? PartyError ?? .partyNotFound } }
        } }
        let like = { (index: Int, uri: String, device: String) in
            BatchedWrite(partyId: party.id, withoutSavepoint: true, like: (device, uri), { state in
                try state.vote(uri: uri, deviceId: device, clientAddress: "10.0.4.\(index)", party: party).likeCount
            }, completion: answer(index))
        }
        let track = Track(id: "3", uri: "demo:track:3", name: "Drei", artists: ["Demo"], album: "Demo", imageURL: nil, durationMs: 180_000)
        let add = BatchedWrite(partyId: party.id, { state in
            _ = try state.add([track], deviceId: "second-adder", clientAddress: "10.0.4.9", party: party)
            return 0
        }, completion: answer(1))
        service.commit([like(0, "demo:track:1", "a"), add, like(2, "demo:track:3", "b"), like(3, "demo:track:1", "c")])
        let outcome = results.withLock { results in (0..<4).map { results[$0] ?? .failure(.partyNotFound) } }
        #expect(outcome == [.success(1), .success(0), .success(1), .success(2)], "\(outcome)")
        #expect(try service.queue(of: party).entries.reduce(into: [String: Int]()) { $0[$1.track.uri] = $1.likeCount }
                == ["demo:track:1": 2, "demo:track:3": 1])
        #expect(try service.vote(uri: "demo:track:3", deviceId: "b", wanted: true, clientAddress: "10.0.4.2", party: party) == (true, 1),
                "the vote is stored")
    }

    /// A like refused before it wrote anything (over its limit, of a song not queued) keeps the rendered
    /// queue every guest reads; one that wrote and then failed empties it, as its reads may be gone.
    @Test func aRefusedLikeKeepsTheRenderedQueueAndAFailedWriteDropsIt() throws {
        struct Failed: Error {}
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1"], deviceId: "adder", party: party)
        let rendered = { try service.renderedQueue(of: party, deviceId: "reader") { _ in Array("fresh".utf8) } }
        _ = try rendered()
        let cached = { service.withState { state in state.readCache.renderings.keys.contains { $0.hasPrefix(party.id) } } }
        #expect(cached())
        let refused = commitTogether(service, [{ state in
            try state.vote(uri: "demo:track:9", deviceId: "liker", clientAddress: "10.0.0.1", party: party).likeCount
        }])
        #expect(refused == [.failure(.notInQueue)])
        #expect(cached(), "nothing was written: the rendering stays")
        #expect(throws: Failed.self) {
            try service.withState { state in
                try state.transaction { state in
                    _ = try state.vote(uri: "demo:track:1", deviceId: "liker", clientAddress: "10.0.0.1", party: party)
                    throw Failed()
                }
            }
        }
        #expect(!cached(), "a write rolled back: what was read inside may be gone")
        #expect(try service.queue(of: party).entries.map(\.likeCount) == [0], "the like rolled back")
    }

    /// Guests' activity waits in memory for a flush; a flush whose transaction rolls back (a veto that
    /// failed after counting, a batch whose commit failed) leaves it pending, so it is written with the next one.
    @Test func activityFlushedInARolledBackTransactionIsWrittenByTheNextFlush() throws {
        struct Failed: Error {}
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1"], deviceId: "adder", party: party)
        _ = try service.vote(uri: "demo:track:1", deviceId: "liker", clientAddress: "10.0.0.1", party: party)
        let since = service.now.addingTimeInterval(-1)
        let written = { try service.withState { try $0.store.activeGuestCount(partyId: party.id, since: since) } }
        #expect(try written() == 0, "pending until a flush")
        #expect(throws: Failed.self) {
            try service.withState { state in
                try state.transaction { state in
                    try state.flushActivity()
                    #expect(try state.store.activeGuestCount(partyId: party.id, since: since) == 2, "written inside")
                    throw Failed()
                }
            }
        }
        #expect(try written() == 0, "rolled back")
        try service.flushActivityNow()
        #expect(try written() == 2, "the adder and the liker, pending again after the rollback")
    }

    /// Several instances: two instances' batches like the same two parties in opposite orders, each write locking its
    /// party's row. Taken as they came, the first batch held one party and waited for the other, the second the
    /// other way round, and PostgreSQL failed one like after its deadlock timeout. In the parties' order both commit.
    @Test func batchesOfTwoInstancesLikingTheSamePartiesInOppositeOrdersBothCommit() throws {
        let database = try PostgreSQLCluster.shared().createDatabase()
        let one = try makeService(database: database), two = try makeService(database: database)
        let parties = try [one.createParty(provider: "demo"), one.createParty(provider: "demo")].sorted { $0.id < $1.id }
        for party in parties { try one.add(uris: ["demo:track:1"], deviceId: "adder", party: party) }
        let results = Mutex<[String: Result<Int, PartyError>]>([:])
        func like(_ party: Party, by device: String) -> BatchedWrite {
            BatchedWrite(partyId: party.id, { state in
                try state.vote(uri: "demo:track:1", deviceId: device, clientAddress: "10.9.0.\(device.count)", party: party).likeCount
            }, completion: { result in results.withLock { $0[device] = result.mapError { $0 as? PartyError ?? .partyNotFound } } })
        }
        // Instance one likes the first party, waits until instance two has liked the second, then likes it too;
        // instance two likes the second party, says so, then likes the first.
        let secondHeld = DispatchSemaphore(value: 0)
        let waitForTwo = BatchedWrite(apply: { _ in
            _ = secondHeld.wait(timeout: .now() + 10)
            return {}
        }, fail: { _ in })
        let sayHeld = BatchedWrite(apply: { _ in
            secondHeld.signal()
            return {}
        }, fail: { _ in })
        let done = DispatchGroup()
        for (service, jobs) in [(one, [like(parties[0], by: "a"), waitForTwo, like(parties[1], by: "bb")]),
                                (two, [like(parties[1], by: "ccc"), sayHeld, like(parties[0], by: "dddd")])] {
            done.enter()
            DispatchQueue.global().async {
                service.commit(jobs)
                done.leave()
            }
        }
        done.wait()
        let outcome = results.withLock { $0 }
        #expect(outcome.count == 4 && outcome.values.allSatisfy { (try? $0.get()) != nil }, "every like committed: \(outcome)")
        #expect(try one.queue(of: parties[0]).entries.map(\.likeCount) == [2] && two.queue(of: parties[1]).entries.map(\.likeCount) == [2])
    }

    @Test func likesFromManyThreadsAreAllCountedOnce() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:3"], deviceId: "adder", party: party)
        let answers = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { guest in
            if let answer = try? service.vote(uri: "demo:track:3", deviceId: "guest-\(guest)", clientAddress: "10.1.\(guest).1", party: party) {
                answers.withLock { $0.append(answer.likeCount) }
            }
        }
        #expect(answers.withLock { $0.sorted() } == Array(1...40), "every like answered with its own count, none lost or doubled")
        #expect(try service.queue(of: party).entries.first?.likeCount == 40)
    }
}
