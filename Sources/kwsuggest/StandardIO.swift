#if canImport(Glibc)
import Glibc
#endif
import Platform
import StrictJSON

// Standard input and output for the commands: raw reads of fd 0, buffered writes to fd 1, and
// JSON string quoting for output lines.

/// Calls `body` with each chunk of bytes read from standard input, until end of file.
private func forEachInputChunk(_ body: (ArraySlice<UInt8>) throws -> Void) throws {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw CommandError.failure("cannot read standard input")
        }
        if count == 0 { return }
        try body(chunk[0 ..< count])
    }
}

/// Calls `body` with each line of standard input and its number (from 1). A line ends at "\n" or "\r\n"
/// (the break is not passed on); a last line without a break is passed on as it is. Invalid UTF-8 is replaced,
/// or with `requireUTF8` is an error giving the byte offset in the input and the line (lines before it have
/// been passed on). A line longer than `maxLineBytes` is an error naming it, found before more than that is
/// buffered.
func forEachInputLine(maxLineBytes: Int = Int.max, requireUTF8: Bool = false,
                      _ body: (Int, String) throws -> Void) throws {
    var line: [UInt8] = []
    var number = 1
    var lineStart = 0
    func pass(_ line: [UInt8]) throws {
        if requireUTF8, let bad = firstInvalidUTF8(line) {
            throw CommandError.failure("standard input is not UTF-8: byte 0x" + String(line[bad], radix: 16, uppercase: true)
                + " at byte offset \(lineStart + bad) (line \(number)) does not belong to a UTF-8 character; convert the input first (iconv -t UTF-8)")
        }
        try body(number, String(decoding: line, as: UTF8.self))
    }
    try forEachInputChunk { chunk in
        for byte in chunk {
            if byte == 0x0A {
                let length = line.count + 1
                if line.last == 0x0D { line.removeLast() }
                try pass(line)
                line.removeAll(keepingCapacity: true)
                number += 1
                lineStart += length
            } else {
                guard line.count < maxLineBytes else {
                    throw CommandError.failure("standard input line \(number) is longer than \(maxLineBytes) bytes")
                }
                line.append(byte)
            }
        }
    }
    if !line.isEmpty { try pass(line) }
}

/// The offset of the first byte of `bytes` that is not part of a well-formed UTF-8 character (overlong forms,
/// surrogates and truncated sequences included), or nil when all of it is UTF-8.
func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let encoded): offset += encoded.count
        case .error: return offset
        case .emptyInput: return nil
        }
    }
}

/// `text` with control characters (C0, DEL and C1, which terminals read as escape sequences) shown as
/// `\u{…}`, so echoing untrusted input cannot drive the terminal. Tabs stay.
func terminalSafe(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isTerminalControl) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if isTerminalControl(scalar) {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

private func isTerminalControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar != "\t" && scalar.isControlCharacter
}

/// Calls `body` with every word of standard input, splitting at ASCII white space as fastText's
/// `std::cin >> word` does.
func forEachInputWord(_ body: (String) throws -> Void) throws {
    try forEachInputWordBytes { try body(String(decoding: $0, as: UTF8.self)) }
}

/// `forEachInputWord` with the word's raw bytes (which need not be valid UTF-8).
func forEachInputWordBytes(_ body: ([UInt8]) throws -> Void) throws {
    var word: [UInt8] = []
    try forEachInputChunk { chunk in
        for byte in chunk {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                if !word.isEmpty {
                    try body(word)
                    word.removeAll(keepingCapacity: true)
                }
            default:
                word.append(byte)
            }
        }
    }
    if !word.isEmpty { try body(word) }
}

/// Collects output and writes it to standard output in large pieces.
final class OutputBuffer {
    private var bytes: [UInt8] = []

    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    func write(bytes more: [UInt8]) {
        bytes.append(contentsOf: more)
        if bytes.count >= 1 << 16 { flush() }
    }

    func flush() {
        writeStandardOutput(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes `bytes` to standard output at once (unbuffered), retrying partial writes; stops at an error.
func writeStandardOutput(_ bytes: [UInt8]) {
    var offset = 0
    bytes.withUnsafeBytes { buffer in
        while offset < buffer.count {
            let written = Glibc.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written <= 0 { break }
            offset += written
        }
    }
}

/// A JSON string literal, escaped as every JSON the package writes is (see `JSONWriter.appendQuoted`).
func jsonQuote(_ text: String) -> String { JSONWriter.quoted(text) }
