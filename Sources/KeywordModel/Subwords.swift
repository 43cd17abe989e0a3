// Hashed character n-grams of each token, the sub-word input of the encoder (fastText's scheme for Japanese).
import Platform


/// The sub-word pieces of a token sequence: for token t, `hashes[starts[t]..<starts[t+1]]` are the 32-bit
/// hashes of its pieces. A model with a sub-word table reads bucket `hash % buckets` of each piece. Empty
/// (`starts` empty) when the text carries no sub-words; then every token gets none.
///
/// A token's pieces are the whole token and its character 1-, 2- and 3-grams, taken over the token folded
/// as `LexicalText.fold` folds it (katakana as hiragana, ASCII lower case) and wrapped in a start and an end
/// mark, so 「菠薐草」 gives 菠, 薐, 草, ⟨菠, 菠薐, 薐草, 草⟩, ⟨菠薐, 菠薐草, 薐草⟩ and the whole word. Every keyword and
/// every name word thus has pieces of its own, also words no vector row or training name has seen.
public struct SubwordPieces: Sendable, Equatable, Hashable {
    public var hashes: [UInt32]
    public var starts: [Int32]

    public init() {
        hashes = []
        starts = []
    }

    public init(hashes: [UInt32], starts: [Int32]) {
        self.hashes = hashes
        self.starts = starts
    }

    /// The pieces of each token surface, in order.
    /// - Complexity: O(total length of the surfaces).
    public init(surfaces: [String]) {
        var hashes: [UInt32] = []
        var starts: [Int32] = [0]
        starts.reserveCapacity(surfaces.count + 1)
        for surface in surfaces {
            SubwordPieces.append(LexicalText.fold(surface), to: &hashes)
            starts.append(Int32(hashes.count))
        }
        self.hashes = hashes
        self.starts = starts
    }

    /// Number of tokens described (0 when empty).
    public var tokenCount: Int { max(0, starts.count - 1) }

    /// The piece range of token `t`; empty when `t` is beyond the described tokens.
    @inline(__always) public func range(_ t: Int) -> Range<Int> {
        t + 1 < starts.count ? Int(starts[t])..<Int(starts[t + 1]) : 0..<0
    }

    /// The first `count` tokens' pieces.
    public func prefix(_ count: Int) -> SubwordPieces {
        guard count < tokenCount else { return self }
        let end = Int(starts[count])
        return SubwordPieces(hashes: Array(hashes[0..<end]), starts: Array(starts[0...count]))
    }

    /// Names this hashing in a checkpoint header, so a table is never read with other pieces than it was trained on.
    public static let scheme = "fnv1a32-3byte-whole+char1-3gram-folded-v1"

    /// Start and end marks around a token (private-use scalars no folded text contains).
    static let startMark: UInt32 = 0xE000
    static let endMark: UInt32 = 0xE001
    /// Smallest and largest n of the character n-grams.
    public static let orders = 1...3
    /// A piece's hash is 32-bit FNV-1a (`FNV1a`), started from the basis mixed with its kind (0 for the whole
    /// token, n for an n-gram) so a one-character token's 1-gram and whole-token pieces differ.
    @inline(__always) static func seed(_ kind: UInt32) -> UInt32 { FNV1a.step32(FNV1a.basis32, kind) }

    /// One scalar into a piece's hash: its three low bytes, one FNV-1a step each.
    @inline(__always) static func mix(_ h: UInt32, _ s: UInt32) -> UInt32 {
        FNV1a.step32(FNV1a.step32(FNV1a.step32(h, s & 0xFF), (s >> 8) & 0xFF), s >> 16)
    }

    /// Appends the pieces of one folded token: the whole token, then its n-grams over the marked token (a
    /// piece that is only a mark is skipped). Allocates nothing but the appended hashes.
    static func append(_ folded: [UInt32], to hashes: inout [UInt32]) {
        let n = folded.count
        guard n > 0 else { return }
        folded.withUnsafeBufferPointer { text in
            var whole = seed(0)
            for s in text { whole = mix(whole, s) }
            hashes.append(whole)
            // Position i of the marked token: the start mark at 0, text[i − 1] inside, the end mark at n + 1.
            let marked = n + 2
            @inline(__always) func scalar(_ i: Int) -> UInt32 { i == 0 ? startMark : i == marked - 1 ? endMark : text[i - 1] }
            for order in orders where marked >= order {
                for start in 0...(marked - order) {
                    if order == 1 && (start == 0 || start == marked - 1) { continue }
                    var h = seed(UInt32(order))
                    for i in start..<(start + order) { h = mix(h, scalar(i)) }
                    hashes.append(h)
                }
            }
        }
    }
}
