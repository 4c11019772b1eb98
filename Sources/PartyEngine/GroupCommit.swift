import Foundation
import Synchronization

/// Group commit. Writes that arrive while a batch commits wait together and go as the next batch, in
/// the order they arrived; one committer (a thread of its own) runs one batch at a time, so a batch is as large as the
/// load makes it and never larger than `maxBatch`. Nothing waits on purpose: an idle server commits a lone write at
/// once, a busy one commits many per transaction. What a batch means (one transaction, answers after the commit)
/// is the business of `submit`'s `run`, the same closure for every job.
final class GroupCommit<Job: Sendable>: Sendable {
    /// Bounds a batch: its transaction holds the state lock, which reads wait for too.
    static var defaultMaxBatch: Int { 64 }
    /// The committer thread's name (`/proc/PID/task/*/comm`).
    static var threadName: String { "mv-committer" }

    let maxBatch: Int
    private let handoff = Handoff()

    /// What the submitters and the committer thread share; the thread holds this, not the `GroupCommit`, so
    /// dropping the `GroupCommit` ends the thread (after the jobs still queued).
    private final class Handoff: Sendable {
        let pending = Mutex(Pending())
        /// Signalled when a job finds the committer asleep, and once more when it should end.
        let wake = DispatchSemaphore(value: 0)
    }

    private struct Pending {
        var jobs: [Job] = []
        /// How a batch runs (every submit passes the same).
        var run: (@Sendable ([Job]) -> Void)?
        /// The committer is awake (signalled or running batches): a new job joins it instead of waking it.
        var draining = false
        var ending = false
    }

    /// A thread of its own, not a serial dispatch queue: libdispatch runs each drain on whichever worker thread is
    /// free, each start a wake-up through its pool. One thread keeps its caches and is woken directly.
    init(maxBatch: Int = GroupCommit.defaultMaxBatch) {
        precondition(maxBatch > 0)
        self.maxBatch = maxBatch
        let handoff = self.handoff
        Thread {
            // The kernel's name for it (`top -H`, `perf`): Foundation's `Thread.name` names only the object on Linux.
            try? Self.threadName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            Self.commitBatches(handoff, maxBatch: maxBatch)
        }.start()
    }

    deinit {
        handoff.pending.withLock { $0.ending = true }
        handoff.wake.signal()
    }

    /// Queues `job` for the next batch; `run` commits a batch.
    func submit(_ job: Job, run: @escaping @Sendable ([Job]) -> Void) {
        let wakes = handoff.pending.withLock { pending in
            pending.jobs.append(job)
            pending.run = run
            defer { pending.draining = true }
            return !pending.draining
        }
        if wakes { handoff.wake.signal() }
    }

    /// The committer: sleeps until a job comes, then runs batches until none waits; ends once its `GroupCommit` is
    /// gone and nothing waits.
    private static func commitBatches(_ handoff: Handoff, maxBatch: Int) {
        while true {
            handoff.wake.wait()
            while true {
                let (batch, run, ending) = handoff.pending.withLock { pending in
                    let batch = Array(pending.jobs.prefix(maxBatch))
                    pending.jobs.removeFirst(batch.count)
                    if batch.isEmpty { pending.draining = false }
                    return (batch, pending.run, pending.ending)
                }
                if let run, !batch.isEmpty {
                    run(batch)
                } else if ending {
                    return
                } else {
                    break
                }
            }
        }
    }
}
