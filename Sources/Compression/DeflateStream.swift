import CZlib

/// A raw deflate compressor (no zlib or gzip wrapper) for permessage-deflate (RFC 7692).
///
/// Owns one zlib stream, freed in `deinit`. Not thread-safe: one owner at a time.
public final class DeflateStream {
    /// The 4 bytes a sync flush ends with; RFC 7692 §7.2.1 strips them from each message.
    public static let syncFlushTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    // zlib keeps a pointer back to the z_stream, so it must not move: heap-allocate it.
    private let stream: UnsafeMutablePointer<z_stream>
    public let windowBits: Int
    public let level: Int

    /// - Parameters:
    ///   - windowBits: 8...15. zlib cannot make raw deflate with an 8-bit window, so 8 compresses
    ///     with Huffman coding only: no back-references at all, valid for any receiver window.
    ///   - level: zlib level 0...9 (or -1 for the default).
    ///   - memoryLevel: 1...9; lower saves memory per stream at some cost in ratio.
    public init(windowBits: Int = 15, level: Int = 6, memoryLevel: Int = 8) throws(CompressionError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.windowBits = windowBits
        self.level = level
        let strategy = windowBits <= 8 ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, -Int32(max(9, windowBits)), Int32(memoryLevel),
                                   strategy, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initializationFailed(code: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Forgets the sliding window (for no-context-takeover).
    public func reset() {
        deflateReset(stream)
    }

    /// Compresses one whole message: deflate with a sync flush, minus the trailing `00 00 ff ff`
    /// (RFC 7692 §7.2.1). The window carries over to the next message unless `reset()` is called.
    public func compressMessage(_ input: [UInt8]) throws(CompressionError) -> [UInt8] {
        var output = try compress(input, flush: Z_SYNC_FLUSH)
        if output.count >= 4, Array(output.suffix(4)) == Self.syncFlushTail {
            output.removeLast(4)
        }
        // An empty message compresses to an empty stored block; RFC 7692 §7.2.3.6 allows a lone 0x00.
        if output.isEmpty { output = [0x00] }
        return output
    }

    private func compress(_ input: [UInt8], flush: Int32) throws(CompressionError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(Int(deflateBound(stream, UInt(input.count))) + 16)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let stream = self.stream
        var result: CompressionError?
        input.withUnsafeBufferPointer { inBuf in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.pointee.avail_in = UInt32(inBuf.count)
            repeat {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.pointee.next_out = outBuf.baseAddress
                    stream.pointee.avail_out = UInt32(outBuf.count)
                    let status = deflate(stream, flush)
                    return (status, outBuf.count - Int(stream.pointee.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if status != Z_OK && status != Z_BUF_ERROR {
                    result = .streamError(code: status)
                    break
                }
                // With a sync flush, deflate is done when it left output space unused.
                if stream.pointee.avail_out != 0 { break }
            } while true
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        if let result { throw result }
        return output
    }
}
