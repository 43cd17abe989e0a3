// The JSON form of one stored feedback record: one line of the file store, one line of `store export`.
import Foundation
import StrictJSON
#if canImport(Glibc)
import Glibc
#endif

/// `{"action","annotator","client_id","id","keyword","model","name","received_at","shown"}`, keys sorted,
/// absent optionals left out. Read with the strict reader: a repeated key, trailing data or a field of the wrong
/// type is an error; keys it does not name (an archive line's "type") are ignored.
package struct FeedbackLine: Decodable {
    var id: Int64
    var client_id: String?
    var received_at: String
    var name: String
    var keyword: String
    var action: FeedbackAction
    var shown: [String]
    var model: String?
    var annotator: String?

    package var record: FeedbackRecord {
        FeedbackRecord(id: id, receivedAt: received_at,
                       item: FeedbackItem(name: name, keyword: keyword, action: action, shown: shown, model: model,
                                          annotator: annotator, clientID: client_id))
    }

    /// One line, newline included; `type` (an archive line's) goes first when given.
    package static func encode(_ record: FeedbackRecord, type: String? = nil) -> [UInt8] {
        var json = JSONWriter()
        let item = record.item
        json.object { json in
            if let type { json.field("type", string: type) }
            json.field("action", string: item.action.rawValue)
            if let annotator = item.annotator { json.field("annotator", string: annotator) }
            if let client = item.clientID { json.field("client_id", string: client) }
            json.field("id") { $0.int(Int(record.id)) }
            json.field("keyword", string: item.keyword)
            if let model = item.model { json.field("model", string: model) }
            json.field("name", string: item.name)
            json.field("received_at", string: record.receivedAt)
            json.field("shown") { json in
                json.array { json in
                    for keyword in item.shown { json.string(keyword) }
                }
            }
        }
        return json.bytes + [0x0A]
    }

    /// The id of a line as `encode` writes it (`…,"id":123,…` with no white space), without decoding the rest; nil
    /// for any other shape (the caller then decodes the line). Sound for every valid line: inside a JSON string a
    /// quote is escaped, so the bytes `,"id":` or `{"id":` can only be the object's own key.
    package static func quickID(_ line: ArraySlice<UInt8>) -> Int64? {
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

    /// Decodes one line; the error says what is wrong and where in the line (the caller adds file and line).
    package static func decode(_ line: some Collection<UInt8>) throws(KeywordStoreError) -> FeedbackRecord {
        do {
            return try JSONDecoding.decode(FeedbackLine.self, from: Array(line)).record
        } catch {
            throw .failed(error.offset == nil ? "not a feedback record: \(error)" : "not valid JSON: \(error)")
        }
    }

    /// Decodes a parsed line (an archive's, whose type is known).
    package static func decode(_ value: JSONValue) throws(KeywordStoreError) -> FeedbackRecord {
        do {
            return try JSONDecoding.decode(FeedbackLine.self, from: value).record
        } catch {
            throw .failed("not a feedback record: \(error)")
        }
    }
}
