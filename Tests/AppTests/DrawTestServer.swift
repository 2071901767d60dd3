@testable import App
import DrawEngine
import Glibc
import HTTPCore
import JSON
import Posix
@testable import Server
import TestSupport

/// A server with the draw routes on 127.0.0.1 port 0 and its own temporary data directory.
/// `restart()` stops it and starts a new one on the same data (an in-process restart).
final class DrawTestServer {
    static let hostKey = "host-key-for-tests-0123456789"
    static let adminKey = "admin-key-for-tests"
    static let code = "TESTDRAW"

    let dataDirectory: String
    let publicDirectory: String
    let slowDown: Duration
    let tickHz: Int
    let authBurst: Int
    let authRefill: Duration
    private(set) var service: DrawService
    private(set) var server: HTTPServer
    private(set) var port: Int

    init(slowDown: Duration = .milliseconds(200), tickHz: Int = 20, authBurst: Int = 5,
         authRefill: Duration = .seconds(2)) throws {
        dataDirectory = try makeTemporaryDirectory()
        publicDirectory = try makeTemporaryDirectory()
        try writeFile(publicDirectory + "/index.html", "<!doctype html><title>home</title>")
        self.slowDown = slowDown
        self.tickHz = tickHz
        self.authBurst = authBurst
        self.authRefill = authRefill
        (service, server, port) = try Self.boot(dataDirectory: dataDirectory, publicDirectory: publicDirectory, slowDown: slowDown,
                                                tickHz: tickHz, authBurst: authBurst, authRefill: authRefill)
    }

    private static func boot(dataDirectory: String, publicDirectory: String, slowDown: Duration, tickHz: Int,
                             authBurst: Int, authRefill: Duration) throws -> (DrawService, HTTPServer, Int) {
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, publicDirectory: publicDirectory,
            defaultDrawCode: code, hostKey: hostKey, adminKey: adminKey, tickHz: tickHz, loopCount: 2,
            staticReloadInterval: nil)
        let metrics = MetricsRegistry()
        let service = try DrawService.open(configuration: configuration, metrics: metrics, slowDown: slowDown,
                                           authBurst: authBurst, authRefill: authRefill)
        var router = Router()
        DrawRoutes.install(into: &router, service: service)
        let server = HTTPServer(configuration: configuration.server, router: router, metrics: metrics)
        let port = try server.start()
        service.baseURL = "http://127.0.0.1:\(port)"
        return (service, server, port)
    }

    /// `whileDown` runs between the shutdown and the new start (e.g. to lose a file of the data directory).
    func restart(whileDown: () throws -> Void = {}) throws {
        server.shutdown()
        service.shutdown()
        try whileDown()
        (service, server, port) = try Self.boot(dataDirectory: dataDirectory, publicDirectory: publicDirectory, slowDown: slowDown,
                                                tickHz: tickHz, authBurst: authBurst, authRefill: authRefill)
    }

    func stop() {
        server.shutdown()
        service.shutdown()
        removeTree(dataDirectory)
        removeTree(publicDirectory)
    }

}

/// A server with the draw routes on 127.0.0.1: in this process (`DrawTestServer`) or a child
/// process of its own (`ChildServer`, for tests that measure the server).
protocol DrawEndpoint: AnyObject {
    var port: Int { get }
}

extension DrawTestServer: DrawEndpoint {}

extension DrawEndpoint {
    // MARK: HTTP

    /// One request on a fresh connection.
    func request(_ method: String, _ path: String, key: String? = nil, body: String? = nil,
                 headers: [String] = []) throws -> RawResponse {
        // Long enough for a debug server on a loaded machine to parse a 1 MiB body (41 s were
        // seen with a load average of 30); only a hang waits it out.
        let socket = try BlockingSocket(host: "127.0.0.1", port: port, timeout: .seconds(120))
        var head = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        for header in headers { head += header + "\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil || method == "POST" || method == "PUT" { head += "Content-Length: \(bytes.count)\r\n" }
        try socket.send(Array((head + "\r\n").utf8) + bytes)
        var reader = ResponseReader(socket: socket)
        return try reader.next(isHead: method == "HEAD")
    }

    /// A host command over REST.
    func command(_ name: String, body: String? = nil, key: String = DrawTestServer.hostKey,
                 code: String = DrawTestServer.code) throws -> RawResponse {
        try request(name == "config" ? "PUT" : "POST", "/api/draws/\(code)/\(name)", key: key, body: body)
    }

    func state(code: String = DrawTestServer.code) throws -> JSONValue {
        try request("GET", "/api/draws/\(code)").json
    }

    func exportJSON(code: String = DrawTestServer.code) throws -> String {
        try request("GET", "/api/draws/\(code)/export.json").text
    }
}

extension RawResponse {
    var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }
    var errorCode: String? { json["error"]?["code"]?.stringValue }
}
