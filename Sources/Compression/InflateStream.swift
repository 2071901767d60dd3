import CZlib

/// A raw deflate decompressor for permessage-deflate (RFC 7692) with a hard output limit.
///
/// Owns one zlib stream, freed in `deinit`. Not thread-safe: one owner at a time.
public final class InflateStream {
    // zlib keeps a pointer back to the z_stream, so it must not move: heap-allocate it.
    private let stream: UnsafeMutablePointer<z_stream>
    public let windowBits: Int
    /// Where zlib writes each chunk; kept only while this stream lives.
    private var scratch: [UInt8] = []

    /// - Parameter windowBits: 8...15; a larger window decodes any stream made with a smaller one.
    public init(windowBits: Int = 15) throws(CompressionError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.windowBits = windowBits
        let status = inflateInit2_(stream, -Int32(windowBits), ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initializationFailed(code: status)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Forgets the sliding window (for no-context-takeover).
    public func reset() {
        inflateReset(stream)
    }

    /// Inflates `input` and appends the result to `output`.
    ///
    /// Throws `.outputLimitExceeded` as soon as `output` would grow past `limit` bytes, so a
    /// compression bomb costs at most `limit` plus one small chunk of memory.
    public func inflate(_ input: some Collection<UInt8>, into output: inout [UInt8], limit: Int) throws(CompressionError) {
        var result: CompressionError?
        let done: Void? = input.withContiguousStorageIfAvailable { inBuf in
            result = inflateBuffer(inBuf, into: &output, limit: limit)
        }
        if done == nil {
            let copy = Array(input)
            copy.withUnsafeBufferPointer { inBuf in
                result = inflateBuffer(inBuf, into: &output, limit: limit)
            }
        }
        if let result { throw result }
    }

    /// Inflates the last frame of a message: `input` followed by the `00 00 ff ff` tail that
    /// the sender stripped (RFC 7692 §7.2.2).
    public func inflateMessageEnd(_ input: some Collection<UInt8>, into output: inout [UInt8], limit: Int) throws(CompressionError) {
        try inflate(input, into: &output, limit: limit)
        try inflate(DeflateStream.syncFlushTail, into: &output, limit: limit)
    }

    private func inflateBuffer(_ inBuf: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], limit: Int) -> CompressionError? {
        guard !inBuf.isEmpty else { return nil }
        let stream = self.stream
        stream.pointee.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
        stream.pointee.avail_in = UInt32(inBuf.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        let chunkSize = 16 * 1024
        while true {
            // Room for at most one byte past the limit, so going over is detected, never buffered.
            let room = min(chunkSize, limit - output.count + 1)
            guard room > 0 else { return .outputLimitExceeded(limit: limit) }
            let availableBefore = stream.pointee.avail_in
            // Inflate into a scratch chunk and copy what came out: appending a run of zeros
            // and trimming it costs a loop per byte in unoptimized builds.
            if scratch.count < chunkSize { scratch = [UInt8](repeating: 0, count: chunkSize) }
            let status: Int32 = scratch.withUnsafeMutableBufferPointer { outBuf in
                stream.pointee.next_out = outBuf.baseAddress!
                stream.pointee.avail_out = UInt32(room)
                return CZlib.inflate(stream, Z_SYNC_FLUSH)
            }
            let unused = Int(stream.pointee.avail_out)
            output.append(contentsOf: scratch[0..<(room - unused)])
            if output.count > limit { return .outputLimitExceeded(limit: limit) }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                // Done once zlib consumed everything and did not fill the space it had.
                if stream.pointee.avail_in == 0 && unused > 0 { return nil }
                if status == Z_BUF_ERROR && unused > 0 { return nil }
                if stream.pointee.avail_in == availableBefore && unused == room { return nil }
            case Z_STREAM_END:
                // A final block (BFINAL) ends the stream; RFC 7692 lets a sender do that,
                // and the next message then starts a fresh stream.
                inflateReset(stream)
                if stream.pointee.avail_in == 0 { return nil }
            case Z_DATA_ERROR, Z_NEED_DICT:
                return .corruptData
            default:
                return .streamError(code: status)
            }
        }
    }
}
