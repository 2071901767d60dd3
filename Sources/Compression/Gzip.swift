import CZlib

/// Compresses `input` into a gzip member (RFC 1952) at the best compression level.
/// Used once per static file at start-up, so speed matters less than size.
public func gzipCompress(_ input: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    // windowBits 15 + 16 asks zlib for a gzip wrapper.
    guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY,
                        ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
    var input = input
    let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
        output.withUnsafeMutableBufferPointer { outBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            stream.next_out = outBuf.baseAddress
            stream.avail_out = UInt32(outBuf.count)
            return deflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { return [] }
    output.removeSubrange(Int(stream.total_out)...)
    return output
}
