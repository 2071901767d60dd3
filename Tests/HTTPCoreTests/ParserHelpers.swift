import HTTPCore

/// Feeds `chunks` one at a time, draining `next()` after each, and returns every request.
func parseAll(_ chunks: [[UInt8]], limits: HTTPLimits = .init()) throws(HTTPParseError) -> [HTTPRequest] {
    var parser = HTTPRequestParser(limits: limits)
    var requests: [HTTPRequest] = []
    for chunk in chunks {
        parser.append(chunk)
        while let request = try parser.next() { requests.append(request) }
    }
    return requests
}

func parseAll(_ text: String, limits: HTTPLimits = .init()) throws(HTTPParseError) -> [HTTPRequest] {
    try parseAll([Array(text.utf8)], limits: limits)
}

/// The error `text` produces, or nil if it parses (completely or not).
func parseError(_ text: String, limits: HTTPLimits = .init()) -> HTTPParseError? {
    parseError([Array(text.utf8)], limits: limits)
}

func parseError(_ chunks: [[UInt8]], limits: HTTPLimits = .init()) -> HTTPParseError? {
    do {
        _ = try parseAll(chunks, limits: limits)
        return nil
    } catch {
        return error
    }
}

/// Every way to cut `bytes` in two.
func everySplit(_ bytes: [UInt8]) -> [[[UInt8]]] {
    (0...bytes.count).map { [Array(bytes[..<$0]), Array(bytes[$0...])] }
}
