// A response body made in pieces: the connection pulls the next piece only when the previous ones have left,
// so a large answer never sits whole in memory and a client that stops reading stops its production.

/// A body producer. `next` is called on a worker thread (never on an event loop, so it may block on a file or a
/// database), one call at a time, and only while the connection's unsent output is small: the producer is pulled,
/// never pushed, which is the back-pressure. Once it returns `.end` or `.failed` it is not called again.
public final class ResponseStream: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
        /// More of the body (may be empty).
        case bytes([UInt8])
        /// The body is complete.
        case end
        /// The body cannot be completed (the reason goes to the log). The status line has long been sent, so
        /// the connection is closed without the last chunk: the client sees an incomplete body, never a short one
        /// that looks whole.
        case failed(String)
    }

    private let produce: @Sendable () -> Piece

    public init(_ produce: @escaping @Sendable () -> Piece) {
        self.produce = produce
    }

    /// The next piece.
    public func next() -> Piece { produce() }

    /// The whole body, pulled to the end on the calling thread (for tools and tests); nil when it failed.
    public func collect() -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            switch next() {
            case .bytes(let bytes): body += bytes
            case .end: return body
            case .failed: return nil
            }
        }
    }

    public static func == (left: ResponseStream, right: ResponseStream) -> Bool { left === right }
}
