import Foundation
import Synchronization

/// Issue 28: group commit. Writes that arrive while a batch commits wait together and go as the next batch, in
/// the order they arrived; one committer (a serial queue) runs one batch at a time, so a batch is as large as the
/// load makes it and never larger than `maxBatch`. Nothing waits on purpose: an idle server commits a lone write at
/// once, a busy one commits many per transaction. What a batch means (one transaction, answers after the commit)
/// is the business of `submit`'s `run`, the same closure for every job.
final class GroupCommit<Job: Sendable>: Sendable {
    /// Bounds a batch: its transaction holds the state lock, which reads wait for too.
    static var defaultMaxBatch: Int { 64 }

    let maxBatch: Int
    private let committer = DispatchQueue(label: "musicvoting.group-commit")
    private let queue = Mutex(Pending())

    private struct Pending {
        var jobs: [Job] = []
        /// A drain is scheduled or running: a new job joins it instead of scheduling another.
        var draining = false
    }

    init(maxBatch: Int = GroupCommit.defaultMaxBatch) {
        precondition(maxBatch > 0)
        self.maxBatch = maxBatch
    }

    /// Queues `job` for the next batch; `run` commits a batch.
    func submit(_ job: Job, run: @escaping @Sendable ([Job]) -> Void) {
        let schedule = queue.withLock { pending in
            pending.jobs.append(job)
            defer { pending.draining = true }
            return !pending.draining
        }
        if schedule { committer.async { self.drain(run) } }
    }

    /// Runs batches until no job waits.
    private func drain(_ run: @Sendable ([Job]) -> Void) {
        while true {
            let batch = queue.withLock { pending -> [Job] in
                let batch = Array(pending.jobs.prefix(maxBatch))
                pending.jobs.removeFirst(batch.count)
                if batch.isEmpty { pending.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            run(batch)
        }
    }
}
