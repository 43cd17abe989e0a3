#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads fastText's text format (`.vec`): a header line `N D`, then N lines `word v1 … vD`.
///
/// The last D space-separated fields of a line are the numbers and everything before them is
/// the word, so words may contain spaces other than the ASCII space and tab (U+3000, U+00A0, …).
/// A trailing space and CR LF line ends are accepted. The file is read in chunks; only the
/// matrix stays in memory.
enum FastTextTextFormat {
    static let chunkSize = 1 << 20

    /// - Complexity: O(file size).
    static func load(path: String) throws -> WordVectors {
        let reader = try FileReader(path: path)
        if reader.size == 0 { throw VectorFileError(path: path, kind: .emptyFile, location: .file, message: "file is empty") }
        var parser = Parser(path: path, fileSize: reader.size)
        var pending: [UInt8] = []
        while true {
            let chunk = try reader.readChunk(maximum: chunkSize)
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var lineStart = 0
            while let newline = pending[lineStart...].firstIndex(of: 0x0A) {
                try parser.consume(pending, lineStart ..< newline)
                lineStart = newline + 1
            }
            pending.removeFirst(lineStart)
        }
        if !pending.isEmpty { try parser.consume(pending, 0 ..< pending.count) }
        return try parser.finish()
    }

    struct Parser {
        let path: String
        var line = 0
        var declaredRows = 0
        var dimension = 0
        var matrix: FloatMatrix?
        var words: [String] = []
        var fieldBuffer: [Range<Int>] = []

        let fileSize: Int

        init(path: String, fileSize: Int) {
            self.path = path
            self.fileSize = fileSize
        }

        func fail(_ kind: VectorFileError.Kind, _ message: String, line: Int? = nil) -> VectorFileError {
            VectorFileError(path: path, kind: kind, location: .line(line ?? self.line), message: message)
        }

        static func isSeparator(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

        /// Space-separated fields of `bytes[range]`, after dropping a trailing CR and spaces,
        /// into `result` (reused from line to line).
        static func fields(_ bytes: [UInt8], _ range: Range<Int>, into result: inout [Range<Int>]) {
            result.removeAll(keepingCapacity: true)
            var end = range.upperBound
            while end > range.lowerBound && (isSeparator(bytes[end - 1]) || bytes[end - 1] == 0x0D) { end -= 1 }
            var index = range.lowerBound
            while index < end {
                while index < end && isSeparator(bytes[index]) { index += 1 }
                let start = index
                while index < end && !isSeparator(bytes[index]) { index += 1 }
                if start < index { result.append(start ..< index) }
            }
        }

        mutating func consume(_ bytes: [UInt8], _ range: Range<Int>) throws {
            line += 1
            Self.fields(bytes, range, into: &fieldBuffer)
            let fields = fieldBuffer
            if line == 1 {
                guard fields.count == 2, let rows = Self.integer(bytes[fields[0]]), let dimension = Self.integer(bytes[fields[1]]) else {
                    throw fail(.malformed, "expected the header 'N D' (word count and dimension)")
                }
                guard dimension > 0 else { throw fail(.dimensionMismatch, "the header's dimension must be positive, found \(dimension)") }
                declaredRows = rows
                self.dimension = dimension
                // A row needs at least "w", " 0" per value and a newline, so a header that declares
                // more rows than the file can hold does not get to allocate them (the file is then
                // reported as truncated where it ends).
                let matrix = FloatMatrix(rows: min(rows, fileSize / (2 * dimension + 2)), columns: dimension)
                self.matrix = matrix
                words.reserveCapacity(matrix.rows)
                return
            }
            if fields.isEmpty { return } // blank line
            guard let matrix else { return }
            guard words.count < declaredRows else {
                throw fail(.malformed, "more rows than the header's \(declaredRows)")
            }
            guard words.count < matrix.rows else {
                throw fail(.truncated, "file is truncated: the header declares \(declaredRows) rows, the file cannot hold them")
            }
            guard fields.count > dimension else {
                throw fail(.dimensionMismatch, "expected a word and \(dimension) values, found \(fields.count - 1) values")
            }
            let firstNumber = fields.count - dimension
            if firstNumber > 1, fields[1 ..< firstNumber].allSatisfy({ Self.number(bytes, $0) != nil }) {
                throw fail(.dimensionMismatch, "expected \(dimension) values, found \(fields.count - 1)")
            }
            let base = words.count * dimension
            try matrix.withMutableStorage { storage in
                for column in 0 ..< dimension {
                    let fieldRange = fields[firstNumber + column]
                    guard let value = Self.number(bytes, fieldRange) else {
                        let text = String(decoding: bytes[fieldRange].prefix(40), as: UTF8.self)
                        throw fail(.nonNumeric, "value \(column + 1) of '\(text)' is not a finite number")
                    }
                    storage[base + column] = value
                }
            }
            let wordRange = fields[0].lowerBound ..< fields[firstNumber - 1].upperBound
            if let bad = UTF8Validation.firstInvalidIndex(in: bytes, wordRange) {
                throw fail(.invalidUTF8, "invalid UTF-8 in the word (byte \(bad - wordRange.lowerBound + 1) of the word)")
            }
            words.append(String(decoding: bytes[wordRange], as: UTF8.self))
        }

        func finish() throws -> WordVectors {
            guard let matrix else { throw fail(.emptyFile, "no header line") }
            guard words.count == declaredRows else {
                throw fail(.truncated, "file is truncated: the header declares \(declaredRows) rows, found \(words.count)")
            }
            let keys = KeyTable(keys: words, rows: (0 ..< words.count).map { UInt32($0) }, rowCount: words.count)
            return WordVectors(format: .fastTextText, matrix: matrix, keys: keys, subwords: nil)
        }

        static func integer(_ bytes: ArraySlice<UInt8>) -> Int? {
            guard !bytes.isEmpty, bytes.count < 19, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }

        /// A decimal number as written by fastText and most tools. Short plain decimals take an
        /// exact fast path (integer mantissa ≤ 2^24 divided by a power of ten ≤ 10^10, both exact
        /// in Float, so the one division rounds correctly); anything else goes to `strtof`.
        static func number(_ bytes: ArraySlice<UInt8>) -> Float? {
            number(Array(bytes), 0 ..< bytes.count)
        }

        @inline(__always)
        static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Float? {
            var index = range.lowerBound
            let end = range.upperBound
            var negative = false
            if index < end, bytes[index] == 0x2D || bytes[index] == 0x2B {
                negative = bytes[index] == 0x2D
                index += 1
            }
            var mantissa: UInt64 = 0
            var digits = 0
            var fractionDigits = 0
            var seenPoint = false
            while index < end {
                let byte = bytes[index]
                if byte >= 0x30 && byte <= 0x39 {
                    mantissa = mantissa &* 10 &+ UInt64(byte - 0x30)
                    digits += 1
                    if seenPoint { fractionDigits += 1 }
                } else if byte == 0x2E && !seenPoint {
                    seenPoint = true
                } else {
                    return slowNumber(bytes[range])
                }
                index += 1
            }
            guard digits > 0 else { return nil }
            guard digits <= 18, mantissa <= 1 << 24, fractionDigits < powersOfTen.count else { return slowNumber(bytes[range]) }
            let value = Float(mantissa) / powersOfTen[fractionDigits]
            return negative ? -value : value
        }

        static let powersOfTen: [Float] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10]

        static func slowNumber(_ bytes: ArraySlice<UInt8>) -> Float? {
            // Decimal only: digits, sign, point, exponent (strtof would also take hex, "inf", "nan").
            guard bytes.count < 64, !bytes.isEmpty, bytes.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E || byte == 0x65 || byte == 0x45
            }) else { return nil }
            var text = Array(bytes)
            text.append(0)
            return text.withUnsafeBufferPointer { buffer -> Float? in
                guard let start = buffer.baseAddress else { return nil }
                var end: UnsafeMutablePointer<CChar>?
                let value = start.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars -> Float in
                    let value = strtof(chars, &end)
                    return value
                }
                let consumed = end.map { UnsafeRawPointer($0) - UnsafeRawPointer(start) } ?? 0
                guard consumed == bytes.count, value.isFinite else { return nil }
                return value
            }
        }
    }
}
