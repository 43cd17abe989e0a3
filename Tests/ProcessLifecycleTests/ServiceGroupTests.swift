import Dispatch
import Foundation
@testable import ProcessLifecycle
import XCTest

/// What the services of one group did, in order.
private final class Journal: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

/// Runs until shut down (or, when it stops the group, until `finish` is signalled).
private final class HeldService: Service, @unchecked Sendable {
    let name: String
    let journal: Journal
    let started = DispatchSemaphore(value: 0)
    let finish = DispatchSemaphore(value: 0)
    let failure: (any Error)?

    init(_ name: String, _ journal: Journal, failing failure: (any Error)? = nil) {
        self.name = name
        self.journal = journal
        self.failure = failure
    }

    func run() throws {
        journal.add("run \(name)")
        started.signal()
        if let failure {
            journal.add("failed \(name)")
            throw failure
        }
        finish.wait()
        journal.add("returned \(name)")
    }

    func shutdown() {
        journal.add("shutdown \(name)")
        finish.signal()
    }
}

private struct Broken: Error, Equatable {}

/// The service group: every service starts, the group stops when a service that ends it returns or when any
/// service throws, and services are shut down in reverse order, each awaited before the next is asked.
final class ServiceGroupTests: XCTestCase {
    func testEveryServiceStartsAndTheyStopInReverseOrder() throws {
        let journal = Journal()
        let store = HeldService("store", journal)
        let loader = HeldService("loader", journal)
        let http = HeldService("http", journal)
        let group = ServiceGroup([
            .init(name: "store", service: store, stopsGroup: false),
            .init(name: "loader", service: loader, stopsGroup: false),
            .init(name: "http", service: http, stopsGroup: true),
        ])
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Thread {
            outcome.set(Result { try group.run() })
            done.signal()
        }.start()
        for service in [store, loader, http] { service.started.wait() }
        XCTAssertEqual(Set(journal.all), ["run store", "run loader", "run http"])
        // The server returning on its own (a drained listener) ends the group.
        http.finish.signal()
        done.wait()
        XCTAssertNoThrow(try outcome.value?.get())
        XCTAssertEqual(Array(journal.all.dropFirst(3)),
                       ["returned http", "shutdown http", "shutdown loader", "returned loader", "shutdown store", "returned store"])
    }

    func testAFailingServiceStopsTheGroupAndItsErrorIsThrown() {
        let journal = Journal()
        let store = HeldService("store", journal)
        let group = ServiceGroup([
            .init(name: "store", service: store, stopsGroup: false),
            .init(name: "loader", service: HeldService("loader", journal, failing: Broken()), stopsGroup: false),
        ])
        XCTAssertThrowsError(try group.run()) { error in XCTAssertEqual(error as? Broken, Broken()) }
        let lines = journal.all
        XCTAssertTrue(lines.contains("failed loader"), "\(lines)")
        // The services are shut down in reverse order, and the store is awaited before the group returns.
        let shutdowns = lines.filter { $0.hasPrefix("shutdown") }
        XCTAssertEqual(shutdowns, ["shutdown loader", "shutdown store"])
        XCTAssertEqual(lines.last, "returned store")
    }
}

/// A value shared between the test thread and the one running the group.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    func set(_ value: Value) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
