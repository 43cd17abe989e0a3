@testable import PostgresStore
import XCTest

/// The PostgreSQL change listener's decisions, without a database.
final class ChangeListenerMachineTests: XCTestCase {
    typealias Effects = ChangeListenerMachine.Effects

    func testFailedConnectionsBackOffFrom100msTo2s() {
        var machine = ChangeListenerMachine()
        let waits = (0..<7).map { _ in machine.handle(.connectFailed) }
        XCTAssertEqual(waits.map(\.wait), [0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        XCTAssertEqual(Set(waits.map(\.available)), [false])
        XCTAssertEqual(waits.compactMap(\.change), [])
        XCTAssertFalse(machine.isConnected)
    }

    func testConnectingReportsAChangeAndResetsTheBackoff() {
        var machine = ChangeListenerMachine()
        _ = machine.handle(.connectFailed)
        _ = machine.handle(.connectFailed)
        XCTAssertEqual(machine.handle(.connected(revision: "7")), Effects(change: "store connected", available: true))
        XCTAssertEqual(machine.state, .listening(revision: "7"))
        XCTAssertEqual(machine.handle(.lost), Effects(available: false))
        XCTAssertEqual(machine.handle(.connectFailed).wait, 0.1, "the backoff starts over after a connection")
    }

    func testNotificationsAndNewRevisionsReportChangesOnce() {
        var machine = ChangeListenerMachine()
        _ = machine.handle(.connected(revision: "1"))
        XCTAssertTrue(machine.checkDue(now: 5), "the first check is due at once")
        XCTAssertEqual(machine.handle(.checked(revision: "1", now: 5)), Effects())
        XCTAssertFalse(machine.checkDue(now: 5 + 999_999_999))
        XCTAssertTrue(machine.checkDue(now: 5 + 1_000_000_000))
        XCTAssertEqual(machine.handle(.notified(revision: "2")), Effects(change: "notified"))
        // The notification already told of revision 2: the check finds nothing new.
        XCTAssertEqual(machine.handle(.checked(revision: "2", now: 1_000_000_005)), Effects())
        // A missed notification: the check finds the revision that moved.
        XCTAssertEqual(machine.handle(.checked(revision: "3", now: 2_000_000_005)), Effects(change: "revision changed"))
        XCTAssertEqual(machine.state, .listening(revision: "3"))
    }

    func testEventsOfTheOtherStateChangeNothing() {
        var machine = ChangeListenerMachine()
        XCTAssertEqual(machine.handle(.notified(revision: "1")), Effects())
        XCTAssertEqual(machine.handle(.lost), Effects())
        XCTAssertFalse(machine.checkDue(now: .max), "no check without a connection")
        _ = machine.handle(.connected(revision: nil))
        XCTAssertEqual(machine.handle(.connected(revision: "9")), Effects())
        XCTAssertEqual(machine.state, .listening(revision: nil))
    }
}
