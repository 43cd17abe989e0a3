// One libpq connection: statements with text parameters in, rows of optional strings out. The only place
// that touches libpq pointers.
import CPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StoreInterface

/// libpq's functions, resolved once per process on first use.
final class LibPQ: Sendable {
    /// Immutable after `kw_pq_load` filled it.
    let api: kw_libpq

    private init(api: kw_libpq) {
        self.api = api
    }

    /// The library, or the one-line reason it cannot be loaded (naming the Debian package).
    /// `KWSUGGEST_LIBPQ` names another file to load instead of `libpq.so.5`.
    static let shared: Result<LibPQ, KeywordStoreError> = {
        var api = kw_libpq()
        var error = [CChar](repeating: 0, count: 512)
        let path = ProcessInfo.processInfo.environment["KWSUGGEST_LIBPQ"].flatMap { $0.isEmpty ? nil : $0 } ?? "libpq.so.5"
        guard kw_pq_load(path, &api, &error, error.count) == 0 else {
            return .failure(.failed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return .success(LibPQ(api: api))
    }()

    static func load() throws(KeywordStoreError) -> LibPQ {
        switch shared {
        case .success(let library): return library
        case .failure(let error): throw error
        }
    }
}

/// A failure talking to PostgreSQL.
enum PostgresError: Error, CustomStringConvertible {
    /// The connection is gone or could not be made (server down, restarting, unreachable).
    case connection(String)
    /// The server refused a statement; `state` is the SQLSTATE.
    case query(state: String, message: String)

    var description: String {
        switch self {
        case .connection(let message): return message
        case .query(let state, let message): return "\(message) (SQLSTATE \(state))"
        }
    }
}

/// One connection. Not thread-safe: its owner uses it from one thread at a time (under a lock, or from the
/// listener thread that made it).
final class PostgresConnection {
    private let pq: LibPQ
    private let handle: OpaquePointer

    /// Connects; `.connection` when the server cannot be reached or refuses the login.
    init(conninfo: String, pq: LibPQ) throws(PostgresError) {
        self.pq = pq
        guard let handle = pq.api.connectdb(conninfo) else { throw .connection("libpq could not allocate a connection") }
        self.handle = handle
        // Every stored property is set, so a throw from here on runs deinit, which frees the handle.
        guard pq.api.status(handle) == Int32(KW_CONNECTION_OK) else {
            throw .connection(Self.oneLine(pq.api.errorMessage(handle)))
        }
    }

    deinit {
        pq.api.finish(handle)
    }

    var isConnected: Bool { pq.api.status(handle) == Int32(KW_CONNECTION_OK) }

    /// The socket, for waiting on notifications.
    var socket: Int32 { pq.api.socket(handle) }

    /// Runs one statement with `$1…` text parameters (nil is SQL NULL) and returns its rows as text.
    @discardableResult
    func exec(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> [[String?]] {
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) }
        let result = pointers.withUnsafeBufferPointer { buffer in
            pq.api.execParams(handle, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard let result else { throw .connection(Self.oneLine(pq.api.errorMessage(handle))) }
        defer { pq.api.clear(result) }
        let status = pq.api.resultStatus(result)
        guard status == Int32(KW_PGRES_COMMAND_OK) || status == Int32(KW_PGRES_TUPLES_OK) else {
            let state = pq.api.resultErrorField(result, Int32(KW_PG_DIAG_SQLSTATE)).map { String(cString: $0) } ?? ""
            let message = Self.oneLine(pq.api.resultErrorMessage(result))
            // Class 08 is a connection exception; 57P01-57P03 are the server shutting down or starting.
            if !isConnected || state.hasPrefix("08") || state.hasPrefix("57P") {
                throw .connection(message.isEmpty ? "connection lost" : message)
            }
            throw .query(state: state, message: message)
        }
        let rows = Int(pq.api.ntuples(result))
        let columns = Int(pq.api.nfields(result))
        var table: [[String?]] = []
        table.reserveCapacity(rows)
        for row in 0..<rows {
            var values: [String?] = []
            values.reserveCapacity(columns)
            for column in 0..<columns {
                if pq.api.getisnull(result, Int32(row), Int32(column)) != 0 {
                    values.append(nil)
                } else {
                    values.append(pq.api.getvalue(result, Int32(row), Int32(column)).map { String(cString: $0) })
                }
            }
            table.append(values)
        }
        return table
    }

    /// Reads what the server sent and returns the payloads of the notifications that arrived.
    func notifications() throws(PostgresError) -> [String] {
        guard pq.api.consumeInput(handle) == 1 else { throw .connection(Self.oneLine(pq.api.errorMessage(handle))) }
        var payloads: [String] = []
        while let notify = pq.api.notifies(handle) {
            payloads.append(notify.pointee.extra.map { String(cString: $0) } ?? "")
            pq.api.freemem(notify)
        }
        return payloads
    }

    private static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text).split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }
}
