// The JSON form of one stored feedback record: one line of the file store, one line of `store export`.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `{"action","annotator","client_id","id","keyword","model","name","received_at","shown"}`, keys sorted,
/// absent optionals left out.
struct FeedbackLine: Codable {
    var id: Int64
    var client_id: String?
    var received_at: String
    var name: String
    var keyword: String
    var action: FeedbackAction
    var shown: [String]
    var model: String?
    var annotator: String?

    init(_ record: FeedbackRecord) {
        id = record.id
        client_id = record.item.clientID
        received_at = record.receivedAt
        name = record.item.name
        keyword = record.item.keyword
        action = record.item.action
        shown = record.item.shown
        model = record.item.model
        annotator = record.item.annotator
    }

    var record: FeedbackRecord {
        FeedbackRecord(id: id, receivedAt: received_at,
                       item: FeedbackItem(name: name, keyword: keyword, action: action, shown: shown, model: model,
                                          annotator: annotator, clientID: client_id))
    }

    static func encode(_ record: FeedbackRecord) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and numbers cannot fail.
        var bytes = (try? encoder.encode(FeedbackLine(record))).map { [UInt8]($0) } ?? []
        bytes.append(0x0A)
        return bytes
    }

    /// The id of a line as `encode` writes it (`…,"id":123,…` with no white space), without decoding the rest; nil
    /// for any other shape (the caller then decodes the line). Sound for every valid line: inside a JSON string a
    /// quote is escaped, so the bytes `,"id":` or `{"id":` can only be the object's own key.
    static func quickID(_ line: ArraySlice<UInt8>) -> Int64? {
        let key = Array(#""id":"#.utf8)
        var index = line.startIndex
        while index + key.count < line.endIndex {
            guard let quote = line[index...].firstIndex(of: 0x22) else { return nil }
            if quote > line.startIndex, line[quote - 1] == UInt8(ascii: ",") || line[quote - 1] == UInt8(ascii: "{"),
               line[quote...].starts(with: key) {
                var value: Int64 = 0
                var digits = 0
                var position = quote + key.count
                while position < line.endIndex, line[position] >= 0x30, line[position] <= 0x39, digits < 18 {
                    value = value * 10 + Int64(line[position] - 0x30)
                    digits += 1
                    position += 1
                }
                guard digits > 0, position < line.endIndex,
                      line[position] == UInt8(ascii: ",") || line[position] == UInt8(ascii: "}") else { return nil }
                return value
            }
            index = quote + 1
        }
        return nil
    }

    /// Decodes one line; the error says what is wrong (the caller adds file and line).
    static func decode(_ line: some Collection<UInt8>) throws(KeywordStoreError) -> FeedbackRecord {
        do {
            return try JSONDecoder().decode(FeedbackLine.self, from: Data(line)).record
        } catch let DecodingError.keyNotFound(key, _) {
            throw .failed("missing field '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .failed("wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch let DecodingError.dataCorrupted(context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .failed(field.isEmpty ? "not valid JSON" : "invalid value at '\(field)'")
        } catch {
            throw .failed("not a feedback record")
        }
    }
}

/// The current UTC time as `2026-01-31T12:00:00.000Z`.
enum UTCTimestamp {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(spec.tv_nsec / 1_000_000), 3))Z"
    }
}
