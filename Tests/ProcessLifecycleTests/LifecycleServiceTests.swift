import DecisionMemory
import Dispatch
import FileStore
import Foundation
import KeywordHTTP
import Locking
@testable import ProcessLifecycle
import StoreInterface
import StoreOpening
import SuggestionRuntime
import TeamQueue
import XCTest

/// A clock that never sleeps: each timed wait is recorded and returns at once (stopped or not), after running the
/// test's `onWait`; a wait without a deadline waits for the stop itself, which a test's shutdown gives.
private final class TestClock: ServiceClock, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Double] = []
    private var time: UInt64 = 1_000
    /// Called with the number of the wait (from 1) before it returns.
    var onWait: @Sendable (Int) -> Void = { _ in }

    func wait(for seconds: Double?, or stop: StopSignal) -> Bool {
        guard let seconds else { return stop.wait(seconds: nil) }
        lock.lock()
        recorded.append(seconds)
        time += UInt64(seconds * 1e9)
        let number = recorded.count
        lock.unlock()
        onWait(number)
        return stop.isSignalled
    }

    func nanoseconds() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return time
    }

    var waits: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// An engine that only names its version.
private final class StillEngine: SuggestionEngine {
    let modelVersion = "still-1"
    func suggest(_ name: String, k: Int, explain: Bool) -> SuggestionResult {
        SuggestionResult(name: name, tokens: nil, suggestions: [])
    }
    func keywordList() -> KeywordListSnapshot { KeywordListSnapshot(keywords: [], version: "v0") }
    func updateKeywords(_ change: KeywordChange) throws -> KeywordListSnapshot { keywordList() }
    func reloadKeywords() throws -> KeywordListSnapshot { keywordList() }
}

private struct Unloadable: Error {}

/// The lifecycle services on an injected clock: the model loader's retry and backoff, a failure recorded once, a
/// shutdown that ends a wait; the watchers' run until shutdown; the memory follower's polls.
final class LifecycleServiceTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "lifecycle-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A store that answers `unavailable` `failures` times, then opens; counts the tries.
    private func flakyOpen(failures: Int, tries: Locked<Int>) -> @Sendable () throws(KeywordStoreError) -> any KeywordStore {
        let location = StoreLocation.file(directory)
        return { () throws(KeywordStoreError) -> any KeywordStore in
            let attempt = tries.withLock { tries in
                tries += 1
                return tries
            }
            if attempt <= failures { throw .unavailable("connection refused (try \(attempt))") }
            return try location.open()
        }
    }

    private func loader(state: EngineSlot, clock: TestClock, open: @escaping @Sendable () throws(KeywordStoreError) -> any KeywordStore,
                        loads: Locked<Int> = Locked(0), failing: Bool = false) -> ModelLoader {
        ModelLoader(location: .file(directory), queuePolicy: QueuePolicy(), state: state,
                    loader: { _ in
                        loads.withLock { $0 += 1 }
                        if failing { throw Unloadable() }
                        return StillEngine()
                    },
                    loaded: { _ in }, open: open, clock: clock)
    }

    func testTheStoreIsRetriedWithBackoffUntilItOpensThenTheModelServes() throws {
        let state = EngineSlot(), clock = TestClock(), tries = Locked(0)
        try loader(state: state, clock: clock, open: flakyOpen(failures: 3, tries: tries)).run()
        XCTAssertEqual(clock.waits, [0.1, 0.2, 0.4])
        XCTAssertEqual(tries.withLock { $0 }, 4)
        XCTAssertEqual(state.engine?.modelVersion, "still-1")
        XCTAssertNotNil(state.store)
        XCTAssertNotNil(state.queue)
        // The load time is the clock's: the three waits, 0.7 s.
        XCTAssertEqual(state.modelLoadSeconds ?? 0, 0.7, accuracy: 1e-9)
    }

    /// The backoff doubles up to its longest delay and stays there.
    func testTheBackoffStopsGrowingAtItsLongestDelay() throws {
        let state = EngineSlot(), clock = TestClock(), tries = Locked(0)
        try loader(state: state, clock: clock, open: flakyOpen(failures: 9, tries: tries)).run()
        XCTAssertEqual(clock.waits, [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5, 5])
        XCTAssertEqual(ModelLoader.longestRetryDelay, 5)
    }

    /// A shutdown while the loader waits for the store ends the wait: no further try, no failure recorded.
    func testAShutdownDuringTheBackoffEndsTheWait() throws {
        let state = EngineSlot(), clock = TestClock(), tries = Locked(0)
        let service = loader(state: state, clock: clock, open: flakyOpen(failures: 100, tries: tries))
        clock.onWait = { number in if number == 2 { service.shutdown() } }
        try service.run()
        XCTAssertEqual(clock.waits, [0.1, 0.2])
        XCTAssertEqual(tries.withLock { $0 }, 2)
        guard case .loading = state.current else { return XCTFail("expected still loading, got \(state.current)") }
    }

    /// A store error other than `unavailable` is not retried: it is recorded once in the state (for /readyz)
    /// and thrown, which stops the group.
    func testAStoreThatRefusesFailsOnceWithoutRetrying() {
        let state = EngineSlot(), clock = TestClock(), tries = Locked(0)
        let service = loader(state: state, clock: clock, open: { () throws(KeywordStoreError) -> any KeywordStore in
            tries.withLock { $0 += 1 }
            throw .failed("the overlay file is damaged")
        })
        XCTAssertThrowsError(try service.run()) { error in
            XCTAssertTrue((error as? ServiceError)?.message.contains("the overlay file is damaged") == true, "\(error)")
        }
        XCTAssertEqual(tries.withLock { $0 }, 1)
        XCTAssertEqual(clock.waits, [])
        guard case .failed(let message) = state.current else { return XCTFail("expected failed, got \(state.current)") }
        XCTAssertTrue(message.hasPrefix("cannot open the store"), message)
    }

    func testAModelThatCannotLoadIsRecordedOnceAndThrown() {
        let state = EngineSlot(), clock = TestClock(), tries = Locked(0), loads = Locked(0)
        let service = loader(state: state, clock: clock, open: flakyOpen(failures: 0, tries: tries), loads: loads, failing: true)
        XCTAssertThrowsError(try service.run())
        XCTAssertEqual(loads.withLock { $0 }, 1)
        guard case .failed(let message) = state.current else { return XCTFail("expected failed, got \(state.current)") }
        XCTAssertTrue(message.hasPrefix("cannot load the model"), message)
    }

    /// The store watcher and the registry follower run until shut down; the watcher then closes the store.
    func testTheWatchersRunUntilShutdown() throws {
        let state = EngineSlot(), clock = TestClock()
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        state.setStore(store)
        let watcher = StoreWatcher(state: state, clock: clock, reload: { _ in })
        let follower = RegistryFollower(state: state, fallback: directory, clock: clock, load: { _, _ in StillEngine() })
        let group = ServiceGroup([.init(name: "store-watch", service: watcher, stopsGroup: false),
                                  .init(name: "model-registry", service: follower, stopsGroup: false),
                                  .init(name: "end", service: Ending(), stopsGroup: true)])
        try group.run()
        XCTAssertEqual(clock.waits, [], "the watchers wait for the stop alone, with no deadline")
        // Shutting them down twice is harmless.
        watcher.shutdown()
        follower.shutdown()
    }

    /// The memory follower reads the store once per interval while the model serves, and stops at shutdown.
    func testTheMemoryFollowerReadsOncePerIntervalUntilShutdown() throws {
        let state = EngineSlot(), clock = TestClock(), memory = DecisionMemory()
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        _ = try store.appendFeedback([FeedbackItem(name: "カラーにんじん 3本", keyword: "にんじん", action: .accept)])
        let follower = MemoryFollower(state: state, memory: memory, interval: 0.25, clock: clock)
        let counts = Locked<[Int]>([])
        clock.onWait = { number in
            counts.withLock { $0.append(memory.count) }
            // Before the second read the model serves from the store; after the fourth the follower is stopped.
            if number == 2 {
                state.setStore(store)
                state.setReady(StillEngine())
            }
            if number == 4 { follower.shutdown() }
        }
        try follower.run()
        XCTAssertEqual(clock.waits, [0.25, 0.25, 0.25, 0.25])
        // Nothing is read while no model serves; the read after the engine is ready finds the decision.
        XCTAssertEqual(counts.withLock { $0 }, [0, 0, 1, 1])
    }
}

/// A service that returns at once (and so ends a group it stops).
private struct Ending: Service {
    func run() throws {}
    func shutdown() {}
}
