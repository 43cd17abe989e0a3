// Streamed response bodies: a worker of the stream lane (`ServerConfiguration.streamLane`) produces one piece at a time, and the loop asks for the next only once
// the earlier pieces are down to `streamLowWater` unsent, so a slow reader holds back the producer instead of
// filling memory. Pieces come back through the inbox and are framed here (chunked, or raw for HTTP/1.0).
import EventLog

extension EventLoop {
    /// Asks a worker for the next piece of a streamed body, when none is being made and little output waits.
    func pull(_ connection: HTTPConnection) {
        guard connection.state == .streaming, var streaming = connection.streaming, !streaming.pulling,
              connection.outbound.count - connection.sent <= Self.streamLowWater else { return }
        streaming.pulling = true
        connection.streaming = streaming
        let (id, fd, loop, body, requestID) = (connection.id, connection.fd, self, streaming.body, streaming.requestID)
        core.streamPool.submit {
            let piece = EventLog.$requestID.withValue(requestID) { body.next() }
            loop.post(.streamed(connectionID: id, fd: fd, piece: piece))
        }
    }

    /// A piece came back from the worker: frame it and send it, or end the body.
    func received(_ piece: ResponseStream.Piece, connectionID: UInt64, fd: Int32) {
        // The client may have left meanwhile; its producer is then simply dropped.
        guard let connection = connections[fd], connection.id == connectionID,
              connection.state == .streaming, var streaming = connection.streaming else { return }
        streaming.pulling = false
        connection.streaming = streaming
        connection.lastWriteAt = now
        switch piece {
        case .bytes(let bytes):
            ResponseWriter.appendPiece(bytes, chunked: streaming.chunked, to: &connection.outbound)
            flush(connection)
        case .end:
            if streaming.chunked { ResponseWriter.appendLastChunk(to: &connection.outbound) }
            connection.streaming = nil
            connection.state = streaming.closeAfter ? .closingAfterFlush : .active
            connection.idleSince = now
            flush(connection)
            if connections[fd] === connection, connection.state == .active { process(connection) }
        case .failed(let reason):
            EventLog.record(.error, "stream_failed", ["reason": String(reason.prefix(500)), "request_id": streaming.requestID])
            // Without the last chunk the client sees an incomplete body.
            connection.streaming = nil
            connection.state = .closingAfterFlush
            flush(connection)
        }
    }
}
