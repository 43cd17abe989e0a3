// The contextual encoder in Float64, with its hand-written backward pass (used for training).

/// The forward activations of one sequence, kept for the backward pass.
public struct EncodedSequence: Sendable {
    public let rows: RowSequence
    /// The tokens' sub-word pieces (read when the layout has a sub-word table).
    public let subwords: SubwordPieces
    /// Projected inputs `x`, n × hidden.
    public var projected: [Double]
    /// `tanh(z)`, n × hidden.
    public var activation: [Double]
    /// States `h = x + tanh(z)`, n × hidden.
    public var states: [Double]
    public var count: Int { rows.count }
}

/// Forward and backward passes of the projection + width-3 convolution encoder (see `EncoderLayout`).
public enum SequenceEncoder {
    /// Encodes one sequence.
    /// - Complexity: O(n · hidden · (input + 3 · hidden)).
    public static func forward(_ text: LexicalText, parameters: [Double], layout e: EncoderLayout,
                               vectors: InputVectors) -> EncodedSequence {
        forward(text.rows, subwords: text.subwords, parameters: parameters, layout: e, vectors: vectors)
    }

    /// Encodes one sequence; with a sub-word table, token t's input also gets the mean of its pieces' rows.
    public static func forward(_ rows: RowSequence, subwords: SubwordPieces = SubwordPieces(), parameters: [Double],
                               layout e: EncoderLayout, vectors: InputVectors) -> EncodedSequence {
        let n = rows.count, h = e.hidden, d = e.input
        var x = [Double](repeating: 0, count: n * h)
        var act = [Double](repeating: 0, count: n * h)
        var states = [Double](repeating: 0, count: n * h)
        var v = [Double](repeating: 0, count: d)
        parameters.withUnsafeBufferPointer { p in
            vectors.storage.withUnsafeBufferPointer { table in
                for t in 0..<n {
                    let row = rows[t]
                    if vectors.contains(row) {
                        let base = Int(row) * d
                        for i in 0..<d { v[i] = Double(table[base + i]) }
                        for o in 0..<h {
                            var sum = p[e.projectionBias + o]
                            let w = e.projection + o * d
                            for i in 0..<d { sum += p[w + i] * v[i] }
                            x[t * h + o] = sum
                        }
                    } else {
                        for o in 0..<h { x[t * h + o] = p[e.oov + o] }
                    }
                    let pieces = subwords.range(t)
                    if e.subwordBuckets > 0 && !pieces.isEmpty {
                        let weight = 1 / Double(pieces.count)
                        for j in pieces {
                            let base = e.subwords + Int(subwords.hashes[j] % UInt32(e.subwordBuckets)) * h
                            for o in 0..<h { x[t * h + o] += weight * p[base + o] }
                        }
                    }
                }
                for t in 0..<n {
                    for o in 0..<h {
                        var z = p[e.convolutionBias + o]
                        for k in 0..<3 {
                            let s = t + k - 1
                            if s < 0 || s >= n { continue }
                            let w = e.convolution + k * h * h + o * h
                            for q in 0..<h { z += p[w + q] * x[s * h + q] }
                        }
                        let a = tanhD(z)
                        act[t * h + o] = a
                        states[t * h + o] = x[t * h + o] + a
                    }
                }
            }
        }
        return EncodedSequence(rows: rows, subwords: subwords, projected: x, activation: act, states: states)
    }

    /// Accumulates into `gradient` the gradient of a loss whose gradient with respect to the states is `dStates`.
    /// - Complexity: O(n · hidden · (input + 3 · hidden)).
    public static func backward(_ sequence: EncodedSequence, dStates: [Double], parameters: [Double],
                                layout e: EncoderLayout, vectors: InputVectors, gradient: inout [Double]) {
        let n = sequence.count, h = e.hidden, d = e.input
        var dz = [Double](repeating: 0, count: n * h)
        var dx = dStates
        for j in 0..<(n * h) {
            let a = sequence.activation[j]
            dz[j] = dStates[j] * (1 - a * a)
        }
        parameters.withUnsafeBufferPointer { p in
            gradient.withUnsafeMutableBufferPointer { g in
                vectors.storage.withUnsafeBufferPointer { table in
                    for s in 0..<n {
                        for o in 0..<h { g[e.convolutionBias + o] += dz[s * h + o] }
                        for k in 0..<3 {
                            let t = s + k - 1
                            if t < 0 || t >= n { continue }
                            for o in 0..<h {
                                let delta = dz[s * h + o]
                                if delta == 0 { continue }
                                let w = e.convolution + k * h * h + o * h
                                for q in 0..<h {
                                    g[w + q] += delta * sequence.projected[t * h + q]
                                    dx[t * h + q] += p[w + q] * delta
                                }
                            }
                        }
                    }
                    for t in 0..<n {
                        let row = sequence.rows[t]
                        if vectors.contains(row) {
                            let base = Int(row) * d
                            for o in 0..<h {
                                let delta = dx[t * h + o]
                                g[e.projectionBias + o] += delta
                                let w = e.projection + o * d
                                for i in 0..<d { g[w + i] += delta * Double(table[base + i]) }
                            }
                        } else {
                            for o in 0..<h { g[e.oov + o] += dx[t * h + o] }
                        }
                        let pieces = sequence.subwords.range(t)
                        if e.subwordBuckets > 0 && !pieces.isEmpty {
                            let weight = 1 / Double(pieces.count)
                            for j in pieces {
                                let base = e.subwords + Int(sequence.subwords.hashes[j] % UInt32(e.subwordBuckets)) * h
                                for o in 0..<h { g[base + o] += weight * dx[t * h + o] }
                            }
                        }
                    }
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func tanhD(_ x: Double) -> Double { Glibc.tanh(x) }
@inline(__always) func expD(_ x: Double) -> Double { Glibc.exp(x) }
#else
import Foundation
@inline(__always) func tanhD(_ x: Double) -> Double { Foundation.tanh(x) }
@inline(__always) func expD(_ x: Double) -> Double { Foundation.exp(x) }
#endif
