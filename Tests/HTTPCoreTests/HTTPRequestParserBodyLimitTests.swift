import Synchronization
import Testing
import HTTPCore

/// `largerBodyLimit`: a per-request body limit decided from the head (pool uploads), asked only
/// when a body would pass the default, and with the same outcome however the bytes arrive.
/// The paths `largerBodyLimit` was asked about.
private final class Asked: Sendable {
    let paths = Mutex<[String]>([])
    var list: [String] { paths.withLock { $0 } }
}

@Suite struct HTTPRequestParserBodyLimitTests {
    static let limits = HTTPLimits(bodyBytes: 64)

    /// Grants 256 bytes to `PUT /big` carrying `Authorization: Bearer yes`; counts the questions.
    fileprivate static func parser(asked: Asked) -> HTTPRequestParser {
        HTTPRequestParser(limits: limits, largerBodyLimit: { [asked] head in
            asked.paths.withLock { $0.append(head.path) }
            return head.path == "/big" && head.headers["Authorization"] == "Bearer yes" ? 256 : nil
        })
    }

    static func request(_ path: String, key: String, body: Int, chunked: Bool = false) -> [UInt8] {
        let payload = String(repeating: "x", count: body)
        if chunked {
            let half = body / 2
            return Array(("PUT \(path) HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(key)\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(half, radix: 16) + "\r\n" + String(repeating: "x", count: half) + "\r\n"
                + String(body - half, radix: 16) + "\r\n" + String(repeating: "x", count: body - half) + "\r\n0\r\n\r\n").utf8)
        }
        return Array("PUT \(path) HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer \(key)\r\nContent-Length: \(body)\r\n\r\n\(payload)".utf8)
    }

    fileprivate static func outcome(_ bytes: [UInt8], splitAt points: [Int] = [], asked: Asked = Asked()) -> Result<Int, HTTPParseError> {
        var parser = parser(asked: asked)
        var start = 0
        var bodies = [Int]()
        for end in points + [bytes.count] where end > start {
            parser.append(bytes[start..<end])
            start = end
            do {
                while let request = try parser.next() { bodies.append(request.body.count) }
            } catch let error as HTTPParseError {
                return .failure(error)
            } catch {
                return .failure(HTTPParseError(.invalidRequestLine))
            }
        }
        return .success(bodies.first ?? -1)
    }

    @Test(arguments: [false, true])
    func onlyTheGrantedRequestMayPassTheDefault(chunked: Bool) throws {
        let asked = Asked()
        #expect(try Self.outcome(Self.request("/big", key: "yes", body: 200, chunked: chunked), asked: asked).get() == 200)
        #expect(Self.outcome(Self.request("/big", key: "yes", body: 300, chunked: chunked)) == .failure(HTTPParseError(.bodyTooLarge)))
        #expect(Self.outcome(Self.request("/big", key: "no", body: 200, chunked: chunked)) == .failure(HTTPParseError(.bodyTooLarge)))
        #expect(Self.outcome(Self.request("/small", key: "yes", body: 65, chunked: chunked)) == .failure(HTTPParseError(.bodyTooLarge)))
        let quiet = Asked()
        #expect(try Self.outcome(Self.request("/small", key: "no", body: 64, chunked: chunked), asked: quiet).get() == 64)
        #expect(quiet.list.isEmpty, "a body within the default never asks")
        #expect(asked.list == ["/big"], "asked once per request")
    }

    @Test func theLimitIsPerRequestOnAKeptAliveConnection() throws {
        let bytes = Self.request("/big", key: "yes", body: 200) + Self.request("/other", key: "yes", body: 200)
        var parser = Self.parser(asked: Asked())
        parser.append(bytes)
        #expect(try parser.next()?.body.count == 200)
        #expect(throws: HTTPParseError(.bodyTooLarge)) { try parser.next() }
    }

    @Test func theOutcomeDoesNotDependOnHowBytesArrive() {
        for bytes in [Self.request("/big", key: "yes", body: 200, chunked: true), Self.request("/big", key: "no", body: 100, chunked: true),
                      Self.request("/big", key: "yes", body: 300)] {
            let whole = Self.outcome(bytes)
            for point in stride(from: 1, to: bytes.count, by: 7) {
                #expect(Self.outcome(bytes, splitAt: [point]) == whole)
            }
        }
    }
}
