// libFuzzer target: the HTTP request parser (HTTPCore), fed whole and split at points the
// input chooses. Invariants checked on every input:
// - no crash, no trap, no sanitizer report;
// - the requests and the error do not depend on how the bytes arrive;
// - every limit holds for what the parser returns (and a larger body limit granted from the
//   head, as for pool uploads, only to the requests it names);
// - SafePath never yields a segment that can leave the served root.
// Built by scripts/fuzz with the HTTPCore sources in the same module.

/// With control bit 2: a request to a path starting `/big` that carries `Authorization: Bearer
/// yes` may have a body 4× the limit (as a host's pool upload may), decided from its head.
private func largerLimit(_ limits: HTTPLimits) -> @Sendable (HTTPRequestHead) -> Int? {
    { head in head.path.hasPrefix("/big") && head.headers["Authorization"] == "Bearer yes" ? limits.bodyBytes * 4 : nil }
}

/// Requests until the first error, and that error's kind.
private func outcome(_ chunks: [ArraySlice<UInt8>], limits: HTTPLimits, larger: Bool = false) -> ([HTTPRequest], HTTPParseError.Kind?) {
    var parser = HTTPRequestParser(limits: limits, largerBodyLimit: larger ? largerLimit(limits) : nil)
    var requests: [HTTPRequest] = []
    do {
        for chunk in chunks {
            parser.append(chunk)
            while let request = try parser.next() { requests.append(request) }
        }
        return (requests, nil)
    } catch {
        return (requests, error.kind)
    }
}

private func checkSafePath(_ path: String) {
    guard let segments = try? SafePath.resolve(path) else { return }
    for segment in segments {
        precondition(!segment.isEmpty && segment != "." && segment != "..", "unsafe segment \(segment.debugDescription)")
        precondition(!segment.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F }),
                     "unsafe byte in \(segment.debugDescription)")
    }
}

private func checkLimits(_ request: HTTPRequest, _ limits: HTTPLimits, larger: Bool) {
    let granted = larger && largerLimit(limits)(request.head) != nil
    precondition(request.body.count <= limits.bodyBytes * (granted ? 4 : 1), "body over limit")
    precondition(request.head.headers.count <= limits.headerFields, "too many header fields")
    precondition(request.head.target.utf8.count <= limits.requestLineBytes, "target over limit")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    // Byte 0: which limits; byte 1: a seed for the split points.
    let control = data[0], splitSeed = data[1]
    let bytes = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let limits = control & 1 == 0
        ? HTTPLimits()
        : HTTPLimits(requestLineBytes: 40, headerBytes: 120, headerFields: 4, bodyBytes: 30, chunkSizeLineBytes: 8)

    let larger = control & 4 != 0
    let whole = outcome([bytes[...]], limits: limits, larger: larger)

    // Split at pseudo-random points (1...16 bytes) derived from the seed byte, and byte by byte.
    var chunks: [ArraySlice<UInt8>] = []
    var state = UInt32(splitSeed) &* 2_654_435_761 | 1
    var start = 0
    while start < bytes.count {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        let n = min(bytes.count - start, Int(state % 16) + 1)
        chunks.append(bytes[start..<start + n])
        start += n
    }
    let split = outcome(chunks, limits: limits, larger: larger)
    precondition(whole.0 == split.0 && whole.1 == split.1, "outcome depends on split points")
    if control & 2 != 0 && bytes.count <= 512 {
        let single = outcome(bytes.indices.map { bytes[$0...$0] }, limits: limits, larger: larger)
        precondition(whole.0 == single.0 && whole.1 == single.1, "outcome differs byte by byte")
    }

    for request in whole.0 {
        checkLimits(request, limits, larger: larger)
        checkSafePath(request.head.path)
        _ = QueryString.parse(request.head.query ?? "")
        _ = acceptsGzip(request.head.headers["accept-encoding"])
        _ = ifNoneMatch(request.head.headers["if-none-match"], matches: "\"abc\"")
        _ = HTTPDate.unixSeconds(from: request.head.headers["if-modified-since"] ?? "")
    }
    // The raw input as a path too, so traversal checks see arbitrary bytes.
    checkSafePath(String(decoding: bytes.prefix(256), as: UTF8.self))
    return 0
}
