/// What Redis says about its persistence, read with CONFIG GET at start-up.
public struct DurabilityReport: Sendable, Equatable {
    public var appendonly: String
    public var appendfsync: String

    public init(appendonly: String, appendfsync: String) {
        self.appendonly = appendonly
        self.appendfsync = appendfsync
    }

    /// Only an AOF fsynced before each reply keeps every acknowledged write across a crash.
    public var isDurable: Bool { appendonly == "yes" && appendfsync == "always" }
}

extension ClusterStore {
    /// Reads `appendonly` and `appendfsync`; refuses with `.notDurable` unless they are `yes`
    /// and `always`. With `allowUnsafe` it succeeds anyway and the caller must log the report
    /// loudly (`ClusterError.notDurable(…).description` says what is at stake). A Redis that
    /// hides CONFIG (some managed services) counts as not durable: "unknown".
    public func checkDurability(allowUnsafe: Bool = false, _ completion: @escaping (Result<DurabilityReport, ClusterError>) -> Void) {
        configValue("appendonly") { appendonly in
            self.configValue("appendfsync") { appendfsync in
                switch (appendonly, appendfsync) {
                case (.failure(.unavailable(let error)), _), (_, .failure(.unavailable(let error))):
                    completion(.failure(.unavailable(error)))
                default:
                    let report = DurabilityReport(
                        appendonly: (try? appendonly.get()) ?? "unknown",
                        appendfsync: (try? appendfsync.get()) ?? "unknown")
                    if report.isDurable || allowUnsafe {
                        completion(.success(report))
                    } else {
                        completion(.failure(.notDurable(appendonly: report.appendonly, appendfsync: report.appendfsync)))
                    }
                }
            }
        }
    }

    private func configValue(_ name: String, _ completion: @escaping (Result<String, ClusterError>) -> Void) {
        client.send(["CONFIG", "GET", name]) { result in
            completion(result.mapError(ClusterError.init).flatMap { reply in
                guard let parts = reply.array, parts.count == 2, let value = parts[1].string else {
                    return .failure(.unexpectedReply("CONFIG GET \(name): \(reply)"))
                }
                return .success(value)
            })
        }
    }
}
