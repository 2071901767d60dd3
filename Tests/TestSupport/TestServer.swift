import Glibc
import HTTPCore
import Posix
import Server

/// An `HTTPServer` on 127.0.0.1 port 0 with its own temporary `Public/`, stopped by `stop()`.
/// Shared by the Server and App test targets; App's tests add its routes and page names.
public final class TestServer: Sendable {
    public let server: HTTPServer
    public let port: Int
    public let publicDirectory: String

    /// `configure` sees the test defaults (loopback, port 0, the temporary `Public/`, one loop,
    /// no static reload) and may change any of them.
    public init(files: [String: String] = TestServer.defaultFiles,
                configure: (inout ServerConfiguration) -> Void = { _ in },
                router: Router = Router()) throws {
        publicDirectory = try makeTemporaryDirectory()
        for (path, contents) in files { try writeFile(publicDirectory + "/" + path, contents) }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, publicDirectory: publicDirectory,
                                                loopCount: 1, staticReloadInterval: nil)
        configure(&configuration)
        server = HTTPServer(configuration: configuration, router: router)
        port = try server.start()
    }

    /// A server with the WebSocket echo endpoint (when `echo`) and the routes `extra` adds.
    public convenience init(echo: Bool, configure: (inout ServerConfiguration) -> Void = { _ in },
                            extra: (inout Router) -> Void = { _ in }) throws {
        var router = Router()
        if echo { EchoEndpoint.install(into: &router) }
        extra(&router)
        try self.init(configure: configure, router: router)
    }

    public static let defaultFiles: [String: String] = [
        "index.html": "<!doctype html><title>home</title>",
        "calc.html": "<!doctype html><title>calc</title>",
        "draw.html": "<!doctype html><title>draw</title>",
        "certificate.html": "<!doctype html><title>certificate</title>",
        "screen.html": "<!doctype html><title>screen</title>",
        "watch.html": "<!doctype html><title>watch</title>",
        "css/app.css": String(repeating: "body { color: #123456; }\n", count: 200),
        "js/lib/dom.mjs": "export const x = 1;\n",
        "img/logo.svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "app.webmanifest": "{}",
        "fonts/a.woff2": "wOF2",
        "img/a.png": "PNG",
        "favicon.ico": "ICO",
        "data.json": "{\"a\":1}",
        "robots.txt": "User-agent: *\n",
        "docs/index.html": "<!doctype html><title>docs</title>",
    ]

    public func connect() throws -> BlockingSocket {
        try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(5))
    }

    /// One request on a fresh connection.
    public func get(_ path: String, headers: [String] = [], method: String = "GET") throws -> RawResponse {
        let socket = try connect()
        let extra = headers.map { $0 + "\r\n" }.joined()
        try socket.send("\(method) \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n")
        var reader = ResponseReader(socket: socket)
        return try reader.next(isHead: method == "HEAD")
    }

    public func stop() {
        server.shutdown()
        removeTree(publicDirectory)
    }
}

public struct RawResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
}

public struct ReaderError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Reads HTTP/1.1 responses off a socket, one at a time (Content-Length framing).
public struct ResponseReader {
    public let socket: BlockingSocket
    public var buffer: [UInt8] = []

    public init(socket: BlockingSocket) { self.socket = socket }

    public mutating func next(isHead: Bool = false) throws -> RawResponse {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find([13, 10, 13, 10])
            if headEnd == nil {
                let chunk = try socket.receive()
                if chunk.isEmpty { throw ReaderError(description: "connection closed before a full response (\(buffer.count) bytes)") }
                buffer += chunk
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ReaderError(description: "bad status line \(statusLine)") }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]).trimmingCharacters(in: " "))
        }
        buffer.removeFirst(headEnd! + 4)
        let length = (isHead || status == 304 || status == 101) ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
        while buffer.count < length {
            let chunk = try socket.receive()
            if chunk.isEmpty { throw ReaderError(description: "connection closed inside a body") }
            buffer += chunk
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closed the connection (and sent nothing more).
    public mutating func isClosedByPeer() throws -> Bool {
        guard buffer.isEmpty else { return false }
        return try socket.receive().isEmpty
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] {
            if Array(buffer[i..<(i + pattern.count)]) == pattern { return i }
        }
        return nil
    }
}

extension String {
    public func trimmingCharacters(in character: Character) -> String {
        var s = Substring(self)
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}

public func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/tombola-test-XXXXXX".utf8CString)
    guard let result = mkdtemp(&template) else { throw ReaderError(description: "mkdtemp failed") }
    return String(cString: result)
}

public func writeFile(_ path: String, _ contents: String) throws {
    let directory = String(path[..<path.lastIndex(of: "/")!])
    var partial = ""
    for component in directory.split(separator: "/") {
        partial += "/" + component
        mkdir(partial, 0o755)
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw ReaderError(description: "cannot write \(path)") }
    defer { close(fd) }
    var bytes = Array(contents.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
}

public func removeTree(_ path: String) {
    guard path.hasPrefix("/tmp/tombola-test-") else { return }
    guard let handle = opendir(path) else { unlink(path); return }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(handle)
    for name in names {
        let child = path + "/" + name
        var info = stat()
        if lstat(child, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { removeTree(child) } else { unlink(child) }
    }
    rmdir(path)
}

public func millisecondsSince(_ start: UInt64) -> Double {
    Double(MonotonicClock.nanoseconds() - start) / 1_000_000
}
