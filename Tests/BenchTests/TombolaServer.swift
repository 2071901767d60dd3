import App
@testable import Server
import Foundation
import Glibc

/// The real Tombola server (App's routes: draw rooms, `/ws/calc`, `/ws/echo`) on
/// 127.0.0.1, port 0, with a fresh data directory, for checking the bench end to end.
final class TombolaServer {
    static let code = "BENCH"
    let server: HTTPServer
    let port: Int
    private let dataDirectory: String

    init(hostKey: String, hz: Int) throws {
        var template = Array("/tmp/tombola-bench-test-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { throw BenchTestError.temporaryDirectory }
        dataDirectory = String(cString: directory)
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory, publicDirectory: dataDirectory,
            defaultDrawCode: Self.code, hostKey: hostKey, adminKey: "bench-admin-key", tickHz: hz,
            echoEndpoint: true, loopCount: 2, staticReloadInterval: nil)
        let metrics = MetricsRegistry()
        // A short slow-down keeps the 1-second fan-out runs short.
        let draws = try DrawService.open(configuration: configuration, metrics: metrics, slowDown: .milliseconds(200))
        server = HTTPServer(configuration: configuration.server, router: AppRoutes.router(for: configuration, draws: draws), metrics: metrics)
        port = try server.start()
    }

    func shutdown() {
        server.shutdown()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}

enum BenchTestError: Error { case temporaryDirectory }

