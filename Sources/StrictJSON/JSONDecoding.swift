// Decodable types read through the strict parser: a repeated key, trailing data, a wrong type or an integer
// that does not fit is an error that says where, instead of a value silently kept or rounded.

/// Why a document could not be decoded: where (a byte offset for invalid JSON, the field path for a value of
/// the wrong shape) and what.
public struct JSONDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte offset, when the document is not valid JSON (see `JSONParseError`).
    public var offset: Int?
    /// The field, as `dev_metrics.dev.n` or `shown[2]`; empty for the document itself.
    public var path: String
    public var reason: String
    /// The repeated key, when the document names one twice in an object.
    public var duplicateKey: String?

    public init(offset: Int? = nil, path: String = "", reason: String, duplicateKey: String? = nil) {
        self.offset = offset
        self.path = path
        self.reason = reason
        self.duplicateKey = duplicateKey
    }

    public var description: String {
        if let offset { return "\(reason) at byte \(offset)" }
        return path.isEmpty ? reason : "'\(path)': \(reason)"
    }

    /// The 1-based line of `offset` in `bytes` (nil without an offset): where a text editor shows the error.
    public func line(in bytes: some Collection<UInt8>) -> Int? {
        guard let offset else { return nil }
        return 1 + bytes.prefix(offset).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}

/// Decodes `Decodable` values from JSON with `JSONParser`'s rules. Object keys not named by the type are ignored;
/// an absent optional and `null` both decode as nil. Integers must fit their type exactly (see
/// `JSONNumber.integer`); a Float is rounded once from the digits.
public enum JSONDecoding {
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(JSONDecodingError) -> T {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw JSONDecodingError(offset: error.offset, reason: error.reason, duplicateKey: error.duplicateKey)
        }
        return try decode(type, from: value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodingError) -> T {
        do {
            return try T(from: ValueDecoder(value, path: []))
        } catch let error as DecodingError {
            throw Self.error(error)
        } catch let error as JSONDecodingError {
            throw error
        } catch {
            throw JSONDecodingError(reason: "\(error)")
        }
    }

    private static func error(_ error: DecodingError) -> JSONDecodingError {
        switch error {
        case .keyNotFound(let key, let context):
            return JSONDecodingError(path: pathText(context.codingPath), reason: "missing field '\(key.stringValue)'")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return JSONDecodingError(path: pathText(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return JSONDecodingError(reason: "\(error)")
        }
    }

    static func pathText(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
