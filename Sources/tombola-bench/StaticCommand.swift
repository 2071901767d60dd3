struct StaticCommand {
    static let usage = "tombola-bench static (not yet)"
    init(_ arguments: [String]) throws(BenchError) {}
    func run() throws(BenchError) -> Report { throw .failed("not yet") }
}
