import CZlib

/// CRC-32 (the ISO-HDLC polynomial ZIP and gzip use), computed by zlib.
public func crc32Checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
        // zlib takes a UInt32 length: feed it in pieces so any size works.
        var crc = UInt(crc32(0, nil, 0))
        var offset = 0
        repeat {
            let count = min(buffer.count - offset, Int(UInt32.max))
            crc = crc32(crc, buffer.baseAddress.map { $0 + offset }, UInt32(count))
            offset += count
        } while offset < buffer.count
        return UInt32(truncatingIfNeeded: crc)
    }
}

/// Raw deflate (RFC 1951, no zlib or gzip wrapper) of a whole buffer, as a ZIP entry of method 8
/// holds it; nil if zlib fails.
public func deflateRaw(_ input: [UInt8], level: Int32 = 6) -> [UInt8]? {
    var stream = z_stream()
    guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                        ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { deflateEnd(&stream) }
    guard input.count < Int(UInt32.max) else { return nil }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 16)
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
    guard status == Z_STREAM_END else { return nil }
    output.removeSubrange(Int(stream.total_out)...)
    return output
}

/// A ZIP archive (PKWARE APPNOTE 6.3, the subset every reader takes) built in memory: each
/// entry deflated (method 8) or, when that does not save bytes, stored (method 0); no ZIP64
/// (an archive over 4 GiB or 65,535 entries is refused), no encryption, no extra fields. Every
/// entry carries the same fixed time (1980-01-01 00:00, DOS time zero), so the same content
/// gives the same bytes.
public struct ZipWriter {
    public enum Failure: Error, Equatable {
        /// Over 4 GiB, or over 65,535 entries: ZIP64 would be needed.
        case tooLarge
        case compressionFailed
    }

    private var body: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    public init() {}

    /// Appends an entry named `name` (a path with `/`, no leading slash).
    public mutating func add(_ name: String, _ data: [UInt8], compress: Bool = true) throws(Failure) {
        let crc = crc32Checksum(data)
        var method: UInt16 = 0
        var stored = data
        if compress, !data.isEmpty {
            guard let deflated = deflateRaw(data) else { throw .compressionFailed }
            if deflated.count < data.count { (method, stored) = (8, deflated) }
        }
        let nameBytes = Array(name.utf8)
        let offset = body.count
        guard count < 0xFFFF, data.count < 0xFFFF_FFFF, offset + 30 + nameBytes.count + stored.count < 0xFFFF_FFFF,
              nameBytes.count < 0xFFFF else { throw .tooLarge }
        // Bit 11: the name is UTF-8 (ASCII names are the same either way).
        let flags: UInt16 = nameBytes.allSatisfy { $0 < 0x80 } ? 0 : 0x0800
        // Local file header (APPNOTE 4.3.7).
        Self.put32(&body, 0x0403_4B50)
        Self.put16(&body, 20) // version needed: 2.0 (deflate)
        Self.put16(&body, flags)
        Self.put16(&body, method)
        Self.put16(&body, 0) // time 00:00:00
        Self.put16(&body, 0x0021) // date 1980-01-01
        Self.put32(&body, crc)
        Self.put32(&body, UInt32(stored.count))
        Self.put32(&body, UInt32(data.count))
        Self.put16(&body, UInt16(nameBytes.count))
        Self.put16(&body, 0) // extra field length
        body += nameBytes
        body += stored
        // Its central directory header (APPNOTE 4.3.12).
        Self.put32(&directory, 0x0201_4B50)
        Self.put16(&directory, 20) // made by: MS-DOS attributes, version 2.0
        Self.put16(&directory, 20)
        Self.put16(&directory, flags)
        Self.put16(&directory, method)
        Self.put16(&directory, 0)
        Self.put16(&directory, 0x0021)
        Self.put32(&directory, crc)
        Self.put32(&directory, UInt32(stored.count))
        Self.put32(&directory, UInt32(data.count))
        Self.put16(&directory, UInt16(nameBytes.count))
        Self.put16(&directory, 0) // extra
        Self.put16(&directory, 0) // comment
        Self.put16(&directory, 0) // disk number start
        Self.put16(&directory, 0) // internal attributes
        Self.put32(&directory, 0) // external attributes
        Self.put32(&directory, UInt32(offset))
        directory += nameBytes
        count += 1
    }

    /// The whole archive: the entries, the central directory and its end record (APPNOTE 4.3.16).
    public func finish() throws(Failure) -> [UInt8] {
        guard body.count + directory.count < 0xFFFF_FFFF else { throw .tooLarge }
        var archive = body
        archive += directory
        Self.put32(&archive, 0x0605_4B50)
        Self.put16(&archive, 0) // this disk
        Self.put16(&archive, 0) // the directory's disk
        Self.put16(&archive, UInt16(count))
        Self.put16(&archive, UInt16(count))
        Self.put32(&archive, UInt32(directory.count))
        Self.put32(&archive, UInt32(body.count))
        Self.put16(&archive, 0) // comment length
        return archive
    }

    private static func put16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }

    private static func put32(_ bytes: inout [UInt8], _ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }
}
