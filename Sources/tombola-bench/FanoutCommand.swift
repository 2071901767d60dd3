struct FanoutCommand {
    static let usage = "tombola-bench fanout (not yet)"
    init(_ arguments: [String]) throws(BenchError) {}
    func run() throws(BenchError) -> Report { throw .failed("not yet") }
}
struct FanoutWorker {
    init(_ arguments: [String]) throws(BenchError) {}
    func run() throws(BenchError) {}
}
