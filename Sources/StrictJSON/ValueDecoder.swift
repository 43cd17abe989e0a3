// The Decoder behind `JSONDecoding`: one decoder over a parsed `JSONValue` and its three container kinds, which
// read primitives through `Primitive` so every kind applies the same rules and messages.

/// An array element's coding key.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The JSON type names used in error messages.
func typeName(_ value: JSONValue) -> String {
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
enum Primitive {
    static func mismatch(_ expected: String, _ value: JSONValue, _ path: [any CodingKey], _ type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(codingPath: path, debugDescription: "expected \(expected), found \(typeName(value))")
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

struct ValueDecoder: Decoder {
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

struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
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

struct ArrayContainer: UnkeyedDecodingContainer {
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

struct SingleContainer: SingleValueDecodingContainer {
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
