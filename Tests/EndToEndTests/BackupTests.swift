import Foundation
import PartyStore
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// `musicvoting backup` while the server takes a like storm, and `musicvoting restore`, which waits for it to stop.
@Suite("Backup and restore")
struct BackupTests {
    @Test func aBackupUnderALikeStormHoldsEveryLikeAcknowledgedBeforeItBegan() throws {
        // Every like from a new device: no ration of new guests per network.
        let server = try ServerProcess(arguments: ["--max-new-guests-per-network", "0"])
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(try party.add(1, device: "adder").status == 200)
        let acknowledged = Mutex<[String]>([])
        let stop = StopFlag()
        let storm = DispatchGroup()
        let (client, base) = (party.client, party.base)
        for thread in 0..<4 {
            onOwnThread(storm) {
                var number = 0
                while !stop.isSet {
                    let device = "backup-\(thread)-\(number)"
                    number += 1
                    let answer = try? client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:1", "deviceId": device, "liked": true])
                    if answer?.status == 200 { acknowledged.withLock { $0.append(device) } }
                }
            }
        }
        defer { stop.set(); storm.wait() }
        #expect(eventually { acknowledged.withLock { $0.count } >= 40 })
        let before = acknowledged.withLock { $0 }
        let file = server.dataDirectory + "-backup.sqlite"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let backup = try runToExit(ServerProcess.binary, ["backup", file, "--data", server.dataDirectory])
        let duringBackup = acknowledged.withLock { $0.count } - before.count
        stop.set()
        storm.wait()
        #expect(backup.status == 0, "\(backup.output)")
        #expect(duringBackup > 0, "the storm went on while the backup ran")
        #expect(try SQLiteBackup.integrityCheck(path: file) == "ok")

        // The backup restored into a folder of its own, and a server on it: every like acknowledged before it began.
        let folder = server.dataDirectory + "-restored"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let restore = try runToExit(ServerProcess.binary, ["restore", file, "--data", folder])
        #expect(restore.status == 0, "\(restore.output)")
        let restored = try ServerProcess(dataDirectory: folder)
        defer { restored.stop() }
        let handle = TestPartyHandle(party: party, server: restored)
        let song = try #require(try handle.queue().first { $0["uri"] as? String == "demo:track:1" })
        #expect((song["likeCount"] as? Int ?? 0) >= before.count, "\(before.count) likes acknowledged before the backup")
        let missing = try before.filter { device in
            try handle.queue(device: device).first { $0["uri"] as? String == "demo:track:1" }?["hasVoted"] as? Bool != true
        }
        #expect(missing.isEmpty, "likes acknowledged before the backup and not in it: \(missing.prefix(5))")
    }

    @Test func aRestoreWaitsForTheServerToStop() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(try party.add(1, device: "adder").status == 200)
        let file = server.dataDirectory + "-backup.sqlite"
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try runToExit(ServerProcess.binary, ["backup", file, "--data", server.dataDirectory]).status == 0)
        #expect(try runToExit(ServerProcess.binary, ["backup", file, "--data", server.dataDirectory]).status == 1, "an existing file is kept")
        #expect(try party.add(2, device: "adder").status == 200)

        let refused = try runToExit(ServerProcess.binary, ["restore", file, "--data", server.dataDirectory])
        #expect(refused.status == 1 && refused.output.contains("A server is running on \(server.dataDirectory)"), "\(refused.output)")
        #expect(try party.queueUris().prefix(2) == ["demo:track:1", "demo:track:2"], "the running server's database is untouched")

        server.stop()
        let restore = try runToExit(ServerProcess.binary, ["restore", file, "--data", server.dataDirectory])
        #expect(restore.status == 0, "\(restore.output)")
        let again = try ServerProcess(dataDirectory: server.dataDirectory)
        defer { again.stop() }
        let uris = try TestPartyHandle(party: party, server: again).queue().compactMap { $0["uri"] as? String }
        #expect(uris.contains("demo:track:1") && !uris.contains("demo:track:2"), "the queue as backed up: \(uris)")
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory + "/musicvoting.sqlite.before-restore"))
    }
}
