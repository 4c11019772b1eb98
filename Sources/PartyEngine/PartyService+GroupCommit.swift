import Foundation
import PartyCore
import Synchronization

/// A write that joins the next group commit. `apply` runs it inside the batch's transaction (in a
/// savepoint of its own: a write that fails leaves its neighbours alone) and returns what tells its caller, which
/// runs only once the batch committed; `fail` tells it the batch did not.
struct BatchedWrite: Sendable {
    /// The party whose row the write locks (nil: none; `PartyWriters.ordered`).
    var partyId: String? = nil
    /// A like's device and the uri it likes (the like's rows are read with the batch's other likes of the party:
    /// `BatchedLikes`).
    var like: (deviceId: String, uri: String)? = nil
    let apply: @Sendable (inout PartyState) -> @Sendable () -> Void
    /// `apply` without a savepoint (`PartyState.withoutSavepoint`): throws `SavepointNeeded` only.
    var applyAlone: (@Sendable (inout PartyState) throws -> @Sendable () -> Void)? = nil
    let fail: @Sendable (any Error) -> Void
}

/// A write of a batch without savepoints failed after it wrote: the batch runs again, a savepoint per write.
struct SavepointNeeded: Error {}

extension BatchedWrite {
    /// `body` in its own savepoint of the batch; `completion` hears its result once the batch committed, or the
    /// batch's failure.
    /// `withoutSavepoint`: the write may run without a savepoint (`PartyState.withoutSavepoint`): everything it does
    /// outside the database it does once the write can no longer be refused, so running it again does nothing twice.
    init<T: Sendable>(partyId: String? = nil, withoutSavepoint: Bool = false, like: (deviceId: String, uri: String)? = nil, _ body: @escaping @Sendable (inout PartyState) throws -> T,
                      completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let alone: @Sendable (inout PartyState) throws -> @Sendable () -> Void = { state in
            do {
                let value = try state.withoutSavepoint { try body(&$0) }
                return { completion(.success(value)) }
            } catch let error as SavepointNeeded {
                throw error
            } catch {
                return { completion(.failure(error)) }
            }
        }
        self.init(partyId: partyId, like: like, apply: { state in
            do {
                let value = try state.transaction { try body(&$0) }
                return { completion(.success(value)) }
            } catch {
                return { completion(.failure(error)) }
            }
        }, applyAlone: withoutSavepoint ? alone : nil, fail: { completion(.failure($0)) })
    }
}

extension PartyService {
    /// Runs `body` in the next group commit and hands `completion` its result once the transaction holding it has
    /// committed (an acknowledged write survives kill -9), after its events went out.
    func write<T: Sendable>(partyId: String? = nil, withoutSavepoint: Bool = false, like: (deviceId: String, uri: String)? = nil,
                            _ body: @escaping @Sendable (inout PartyState) throws -> T,
                            completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        commits.submit(BatchedWrite(partyId: partyId, withoutSavepoint: withoutSavepoint, like: like, body, completion: completion)) { [weak self] jobs in
            guard let self else { return jobs.forEach { $0.fail(PartyError.partyNotFound) } }
            self.commit(jobs)
        }
    }

    /// `write`, waited for on this thread (callers already off libmicrohttpd's threads, and tests).
    func write<T: Sendable>(partyId: String? = nil, withoutSavepoint: Bool = false, like: (deviceId: String, uri: String)? = nil,
                            _ body: @escaping @Sendable (inout PartyState) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        write(partyId: partyId, withoutSavepoint: withoutSavepoint, like: like, body) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// One batch: one transaction under the state lock, its events published in commit order, then the answers.
    /// A commit that fails fails every write in it, and nothing of it is announced. The writes go in the order
    /// `PartyWriters.ordered` gives (several instances: by the parties they lock).
    func commit(_ jobs: [BatchedWrite]) {
        let started = DispatchTime.now().uptimeNanoseconds
        EngineMetrics.groupCommitBatchSize.observe(jobs.count)
        defer { EngineMetrics.groupCommitDuration.observeNanoseconds(since: started, now: DispatchTime.now().uptimeNanoseconds) }
        let answers = withState { state -> [@Sendable () -> Void] in
            let jobs = state.writers.ordered(jobs)
            if state.writers.batchesWithoutSavepoints {
                var likes: [String: [(deviceId: String, uri: String)]] = [:]
                for job in jobs where job.applyAlone != nil {
                    if let partyId = job.partyId, let like = job.like { likes[partyId, default: []].append(like) }
                }
                do {
                    return try state.transaction { state in
                        state.batchLikes = likes
                        return try jobs.map { job in try (job.applyAlone ?? { job.apply(&$0) })(&state) }
                    }
                } catch is SavepointNeeded {
                    EngineMetrics.groupCommitRetries.add()
                } catch {
                    return jobs.map { job in { job.fail(error) } }
                }
            }
            do {
                return try state.transaction { state in jobs.map { $0.apply(&state) } }
            } catch {
                return jobs.map { job in { job.fail(error) } }
            }
        }
        for answer in answers { answer() }
    }
}
