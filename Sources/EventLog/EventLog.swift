// The process's one event log on standard error: events as JSON lines, and the CLI's messages to a person.
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// How much a record matters.
public enum LogLevel: String, Sendable, CaseIterable {
    case debug, info, warning, error
}

/// One event: what happened (a snake_case name such as `model_loaded`), how much it matters, and its fields in
/// the order they are written.
public struct LogEvent: Sendable {
    public var level: LogLevel
    public var name: String
    public var fields: [(String, String)]

    public init(_ level: LogLevel, _ name: String, _ fields: KeyValuePairs<String, String> = [:]) {
        self.init(level, name, fields: fields.map { ($0.key, $0.value) })
    }

    public init(_ level: LogLevel, _ name: String, fields: [(String, String)]) {
        self.level = level
        self.name = name
        self.fields = fields
    }

    /// `{"level":"info","event":"model_loaded",…}` and a newline: one line, whatever the values hold.
    public var line: [UInt8] {
        var json = JSONWriter()
        json.object { json in
            json.field("level", string: level.rawValue)
            json.field("event", string: name)
            for (key, value) in fields { json.field(key, string: value) }
        }
        return json.bytes + [0x0A]
    }
}

/// Writes records to standard error, each with one `write` (a line shorter than a pipe's buffer is never split by
/// another thread's). Events, what the server and the stores report, are JSON lines that a log collector parses;
/// messages, what the CLI tells a person (an error, a usage hint, a summary), are plain text.
public enum EventLog {
    /// The id of the request being handled on this thread or task (the server binds it around a request's
    /// handler and its streamed body): every event recorded meanwhile carries it as `request_id`, as the response
    /// and the access log do.
    @TaskLocal public static var requestID: String?

    /// Where events go instead of standard error, while bound (tests read what a request logged).
    @TaskLocal public static var sink: (@Sendable (LogEvent) -> Void)?

    /// Writes `event` as one JSON line, with the request id of the request being handled, if any.
    public static func record(_ event: LogEvent) {
        var event = event
        if let requestID, !event.fields.contains(where: { $0.0 == "request_id" }) {
            event.fields.append(("request_id", requestID))
        }
        if let sink {
            sink(event)
        } else {
            write(event.line)
        }
    }

    /// Writes an event as one JSON line: `EventLog.record(.info, "stopped")`.
    public static func record(_ level: LogLevel, _ name: String, _ fields: KeyValuePairs<String, String> = [:]) {
        record(LogEvent(level, name, fields))
    }

    /// Writes a message for a person, a newline added when it has none; an error reads `Error: …`, a warning
    /// `warning: …`.
    public static func message(_ level: LogLevel, _ text: String) {
        var line = text
        switch level {
        case .error: line = "Error: " + line
        case .warning: line = "warning: " + line
        case .debug, .info: break
        }
        if !line.hasSuffix("\n") { line += "\n" }
        write(Array(line.utf8))
    }

    /// Writes `text` as it is (a usage text that is already laid out), a newline added when it has none.
    public static func message(verbatim text: String) {
        write(Array((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    private static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(2, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
