import Glibc
import HTTPCore
import Posix
import Testing
@testable import Server
import TestSupport

@Suite struct HTTPBehaviourTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        for path in ["/", "/calc.html", "/robots.txt"] {
            try socket.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try reader.next()
            #expect(response.status == 200)
            #expect(response.headers["Connection"] == nil)
        }
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        #expect(try reader.next().headers["Connection"] == "close")
        #expect(try reader.isClosedByPeer())
    }

    @Test func http10GetsKeepAliveOnlyWhenAsked() throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        try socket.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try reader.next().headers["Connection"] == "keep-alive")
        try socket.send("GET / HTTP/1.0\r\n\r\n")
        #expect(try reader.next().headers["Connection"] == "close")
        #expect(try reader.isClosedByPeer())
    }

    @Test func pipelinedRequestsAreAnsweredInOrderEvenWhenAnEarlierOneIsSlow() throws {
        var router = Router()
        router.handle("/slow") { _, responder in
            // Answer from another thread, later than the requests behind it (the delay is the subject).
            Thread.detach { usleep(150_000); responder.respond(.text(.ok, "slow")) }  // the subject
        }
        router.handle("/fast") { _, responder in responder.respond(.text(.ok, "fast")) }
        let server = try TestServer(router: router)
        defer { server.stop() }
        let socket = try server.connect()
        let paths = ["/slow", "/fast", "/robots.txt", "/slow", "/missing", "/fast"]
        try socket.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        var reader = ResponseReader(socket: socket)
        let bodies = try paths.map { _ in try reader.next().text }
        #expect(bodies == ["slow\n", "fast\n", "User-agent: *\n", "slow\n", "Not Found\n", "fast\n"])
    }

    @Test func headHasTheHeadersOfGetButNoBody() throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        try socket.send("HEAD /css/app.css HTTP/1.1\r\nHost: t\r\n\r\nGET /robots.txt HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try reader.next(isHead: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == String(TestServer.defaultFiles["css/app.css"]!.utf8.count))
        // If HEAD had sent a body, this would read it as a broken response.
        let next = try reader.next()
        #expect(next.status == 200)
        #expect(next.text == "User-agent: *\n")
    }

    @Test func unsupportedMethodOnAFileIs405WithAllow() throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try server.connect()
        try socket.send("DELETE /robots.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(try server.get("/healthz", method: "POST").status == 405)
    }

    @Test func unknownPathIs404AndGarbageIs400() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(try server.get("/nope").status == 404)
        let socket = try server.connect()
        try socket.send("THIS IS NOT HTTP\r\n\r\n")
        var reader = ResponseReader(socket: socket)
        #expect(try reader.next().status == 400)
        #expect(try reader.isClosedByPeer())
    }

    @Test(arguments: [
        ("request line over 8 KiB", 414, "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: t\r\n\r\n"),
        ("header section over 16 KiB", 431, "GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: 17_000))\r\n\r\n"),
        ("101 header fields", 431, "GET / HTTP/1.1\r\nHost: t\r\n" + (1...100).map { "X-\($0): v\r\n" }.joined() + "\r\n"),
        ("body over 1 MiB", 413, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n"),
        ("bad content length", 400, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n"),
    ])
    func limitsAreAnsweredWithTheirStatusAndClose(name: String, status: Int, request: String) throws {
        let server = try TestServer(router: echoRouter())
        defer { server.stop() }
        let socket = try server.connect()
        try? socket.send(request)
        var reader = ResponseReader(socket: socket)
        let response = try reader.next()
        #expect(response.status == status, "\(name)")
        #expect(response.headers["Connection"] == "close")
        #expect(try reader.isClosedByPeer())
    }

    @Test func exactlyOneHundredFieldsAreAccepted() throws {
        let server = try TestServer()
        defer { server.stop() }
        let fields = (1...99).map { "X-\($0): v\r\n" }.joined()
        let socket = try server.connect()
        try socket.send("GET / HTTP/1.1\r\nHost: t\r\n\(fields)\r\n")
        var reader = ResponseReader(socket: socket)
        #expect(try reader.next().status == 200)
    }

    @Test func contentLengthAndChunkedBodiesReachHandlers() throws {
        let server = try TestServer(router: echoRouter())
        defer { server.stop() }
        let socket = try server.connect()
        var reader = ResponseReader(socket: socket)
        try socket.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        #expect(try reader.next().text == "hello")
        try socket.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(try reader.next().text == "abcde")
    }

    @Test func aResponderDroppedWithoutAnswerSends500() throws {
        var router = Router()
        router.handle("/forgetful") { _, _ in }
        let server = try TestServer(router: router)
        defer { server.stop() }
        #expect(try server.get("/forgetful").status == 500)
    }

    @Test func healthAndMetricsReportTheServer() throws {
        let registry = MetricsRegistry()
        let custom = registry.counter("tombola_test_events_total", help: "Test events.")
        custom.increment(by: 3)
        let testServer = try TestServer()
        defer { testServer.stop() }
        let server = HTTPServer(configuration: testServer.server.configuration, metrics: registry)
        let port = try server.start()
        defer { server.shutdown() }
        let socket = try BlockingSocket(host: "127.0.0.1", port: port)
        var reader = ResponseReader(socket: socket)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /nope HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try reader.next().text == "ok\n")
        _ = try reader.next()
        try socket.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        let metrics = try reader.next()
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("tombola_http_requests_total{code=\"200\"} 1\n"))
        #expect(metrics.text.contains("tombola_http_requests_total{code=\"404\"} 1\n"))
        #expect(metrics.text.contains("tombola_http_open_connections 1\n"))
        #expect(metrics.text.contains("# TYPE tombola_http_response_bytes_total counter\n"))
        #expect(metrics.text.contains("tombola_test_events_total 3\n"))
    }

    private func echoRouter() -> Router {
        var router = Router()
        router.handle("/echo", methods: ["POST"]) { request, responder in
            responder.respond(HTTPResponse(status: .ok, body: request.body))
        }
        return router
    }
}

/// A detached pthread running `body`, for handlers that answer from another thread.
enum Thread {
    final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    static func detach(_ body: @escaping @Sendable () -> Void) {
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, job)
        pthread_detach(thread)
    }
}
