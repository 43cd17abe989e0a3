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

/// An array element's coding key.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The JSON type names used in error messages.
private func kind(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
}

/// Reads the primitive types out of one value; shared by the three container kinds.
private enum Primitive {
    static func mismatch(_ expected: String, _ value: JSONValue, _ path: [any CodingKey], _ type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(codingPath: path, debugDescription: "expected \(expected), found \(kind(value))")
        return value == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let result) = value else { throw mismatch("a boolean", value, path, Bool.self) }
        return result
    }

    static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let result) = value else { throw mismatch("a string", value, path, String.self) }
        return result
    }

    static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        guard case .number(let number) = value else { throw mismatch("a number", value, path, Double.self) }
        return number.value
    }

    static func float(_ value: JSONValue, _ path: [any CodingKey]) throws -> Float {
        guard case .number(let number) = value else { throw mismatch("a number", value, path, Float.self) }
        guard let result = number.float else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(number) is beyond Float's range"))
        }
        return result
    }

    static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ path: [any CodingKey]) throws -> T {
        guard case .number(let number) = value else { throw mismatch("an integer", value, path, T.self) }
        guard let result = number.integer(as: T.self) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(number) is not an integer of type \(T.self)"))
        }
        return result
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, path: [any CodingKey]) {
        self.value = value
        codingPath = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else {
            throw Primitive.mismatch("an object", value, codingPath, [String: Any].self)
        }
        return KeyedDecodingContainer(ObjectContainer<Key>(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw Primitive.mismatch("an array", value, codingPath, [Any].self) }
        return ArrayContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, codingPath: codingPath) }
}

private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing field '\(key.stringValue)'"))
        }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Primitive.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Primitive.string(value(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Primitive.double(value(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Primitive.float(value(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Primitive.integer(value(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Primitive.integer(value(key), path(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: ValueDecoder(value(key), path: path(key)))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value(key), path: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value(key), path: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(fields["super"] ?? .null, path: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(fields[key.stringValue] ?? .null, path: path(key))
    }
}

private struct ArrayContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The next element and its path, moving past it.
    private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [IndexKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has only \(items.count) elements"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        guard items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, p) = try next(type); return try Primitive.bool(v, p) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, p) = try next(type); return try Primitive.string(v, p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, p) = try next(type); return try Primitive.double(v, p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, p) = try next(type); return try Primitive.float(v, p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, p) = try next(type); return try Primitive.integer(v, p) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try T(from: ValueDecoder(value, path: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: Any].self)
        return try ValueDecoder(value, path: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([Any].self)
        return try ValueDecoder(value, path: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(Any.self)
        return ValueDecoder(value, path: path)
    }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try Primitive.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Primitive.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Primitive.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Primitive.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.integer(value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.integer(value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.integer(value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: ValueDecoder(value, path: codingPath)) }
}
