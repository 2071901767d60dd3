struct StartupCommand {
    static let usage = "tombola-bench startup (not yet)"
    init(_ arguments: [String]) throws(BenchError) {}
    func run() throws(BenchError) -> Report { throw .failed("not yet") }
}
