// SHA-256 (FIPS 180-4): the model files' checksums, the training-data hash, the queue's feedback ids and the
// annotators' token digests all use this one implementation. Foundation on Linux has no CryptoKit.
import CDigest

public enum SHA256 {
    /// The digest of `bytes` as 64 lower-case hex digits.
    /// - Complexity: O(bytes).
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var hasher = Hasher()
        Array(bytes).withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// An incremental SHA-256: feed bytes in any pieces, then `finish()`.
    public struct Hasher {
        private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        private var pending: [UInt8] = []
        private var length: UInt64 = 0

        public init() { pending.reserveCapacity(64) }

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            length &+= UInt64(bytes.count)
            var offset = 0
            if !pending.isEmpty {
                let take = min(64 - pending.count, bytes.count)
                pending.append(contentsOf: bytes[0..<take])
                offset = take
                guard pending.count == 64 else { return }
                pending.withUnsafeBytes { compress($0, blocks: 1) }
                pending.removeAll(keepingCapacity: true)
            }
            let blocks = (bytes.count - offset) / 64
            if blocks > 0 {
                compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + blocks * 64)]), blocks: blocks)
                offset += blocks * 64
            }
            pending.append(contentsOf: bytes[offset...])
        }

        /// The digest as 64 lower-case hex digits.
        public mutating func finish() -> String {
            let bitLength = length &* 8
            var tail = pending
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
            tail.withUnsafeBytes { compress($0, blocks: tail.count / 64) }
            pending = []
            let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            return words.map { word in
                let text = String(word, radix: 16)
                return String(repeating: "0", count: 8 - text.count) + text
            }.joined()
        }

        /// FIPS 180-4 §6.2.2 on `blocks` 64-byte blocks (in C: see CDigest.h for why).
        private mutating func compress(_ data: UnsafeRawBufferPointer, blocks: Int) {
            guard blocks > 0, let base = data.baseAddress else { return }
            assert(data.count >= blocks * 64, "fewer bytes than blocks")
            var words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
            words.withUnsafeMutableBufferPointer { buffer in
                cdigest_sha256_blocks(buffer.baseAddress!, base.assumingMemoryBound(to: UInt8.self), blocks)
            }
            state = (words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7])
        }
    }
}
