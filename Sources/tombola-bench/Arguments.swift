/// What the user got wrong, or what stopped a run. The text is printed as is.
enum BenchError: Error {
    case usage(String)
    case failed(String)

    var message: String {
        switch self {
        case .usage(let text), .failed(let text): return text
        }
    }

    var exitCode: Int32 {
        switch self {
        case .usage: return 64  // EX_USAGE
        case .failed: return 1
        }
    }
}

/// `--name value` options and `--flag` switches after a subcommand. Every option must be read
/// with one of the accessors; `finish()` rejects the ones nobody asked for.
struct Arguments {
    private var values: [String: String] = [:]
    private var switches: Set<String> = []
    private var consumed: Set<String> = []

    init(_ arguments: [String], switches known: Set<String> = []) throws(BenchError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else { throw .usage("unexpected argument '\(argument)'") }
            var name = String(argument.dropFirst(2))
            if let equals = name.firstIndex(of: "=") {
                values[String(name[..<equals])] = String(name[name.index(after: equals)...])
                index += 1
                continue
            }
            if known.contains(name) {
                switches.insert(name)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw .usage("--\(name) needs a value") }
            name = String(name)
            values[name] = arguments[index + 1]
            index += 2
        }
    }

    mutating func string(_ name: String) -> String? {
        consumed.insert(name)
        return values[name]
    }

    mutating func string(_ name: String, default value: String) -> String {
        string(name) ?? value
    }

    mutating func required(_ name: String, hint: String = "") throws(BenchError) -> String {
        guard let value = string(name), !value.isEmpty else {
            throw .usage("--\(name) is required\(hint.isEmpty ? "" : " (\(hint))")")
        }
        return value
    }

    mutating func optionalInt(_ name: String, range: ClosedRange<Int> = 0...Int.max) throws(BenchError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let parsed = Int(text), range.contains(parsed) else {
            throw .usage("--\(name) must be an integer in \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return parsed
    }

    mutating func int(_ name: String, default value: Int, range: ClosedRange<Int> = 0...Int.max) throws(BenchError) -> Int {
        try optionalInt(name, range: range) ?? value
    }

    mutating func double(_ name: String, default value: Double, range: ClosedRange<Double> = 0...1e9) throws(BenchError) -> Double {
        guard let text = string(name) else { return value }
        guard let parsed = Double(text), range.contains(parsed) else {
            throw .usage("--\(name) must be a number in \(range.lowerBound)…\(range.upperBound), not '\(text)'")
        }
        return parsed
    }

    mutating func flag(_ name: String) -> Bool {
        consumed.insert(name)
        return switches.contains(name)
    }

    /// Throws for options no accessor read.
    func finish() throws(BenchError) {
        let unknown = Set(values.keys).union(switches).subtracting(consumed).sorted()
        if !unknown.isEmpty { throw .usage("unknown option(s): \(unknown.map { "--" + $0 }.joined(separator: ", "))") }
    }
}
