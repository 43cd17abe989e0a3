// A fixed set of threads for handlers that may block, fed by one queue.
import Foundation
import Locking

/// Runs submitted jobs on `count` threads, first in first out.
final class WorkerPool: Sendable {
    private struct State {
        /// Queued jobs from `head` on; a taken job's place is emptied at once, so nothing it captured (a request
        /// body, a streamed answer and what that holds) outlives the job.
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var stopping = false
    }

    private let state = Locked(State())
    private let available: DispatchSemaphore
    private let finished: DispatchSemaphore
    let count: Int
    /// The names given to the threads: `<name>-0`, `<name>-1`, …
    let threadNames: [String]

    init(count: Int, name: String) {
        self.count = max(1, count)
        available = DispatchSemaphore(value: 0)
        finished = DispatchSemaphore(value: 0)
        threadNames = (0..<self.count).map { "\(name)-\($0)" }
        for threadName in threadNames {
            let thread = Thread { [self] in self.work() }
            thread.name = threadName
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        available.signal()
    }

    private func work() {
        while true {
            available.wait()
            let job: (@Sendable () -> Void)? = state.withLock { state in
                guard state.head < state.jobs.count else { return nil }
                let job = state.jobs[state.head]
                state.jobs[state.head] = nil
                state.head += 1
                if state.head > 64 && state.head * 2 > state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            guard let job else { break }  // woken with no job: stop
            job()
        }
        finished.signal()
    }

    /// Lets queued jobs finish, then ends the threads and waits for them.
    func stop() {
        state.withLock { $0.stopping = true }
        // Wake each thread once more after its queue drains; an empty queue makes it exit.
        for _ in 0..<count { submitStop() }
        for _ in 0..<count { finished.wait() }
    }

    private func submitStop() {
        available.signal()
    }
}
