import Locking
import Synchronization

/// A monotonically increasing count (Prometheus `counter`). Lock-free.
public final class MetricsCounter: Sendable {
    private let storage = Atomic<Int>(0)
    public func increment(by amount: Int = 1) { storage.wrappingAdd(amount, ordering: .relaxed) }
    public var value: Int { storage.load(ordering: .relaxed) }
}

/// A value that goes up and down (Prometheus `gauge`). Lock-free.
public final class MetricsGauge: Sendable {
    private let storage = Atomic<Int>(0)
    public func set(_ value: Int) { storage.store(value, ordering: .relaxed) }
    public func increment(by amount: Int = 1) { storage.wrappingAdd(amount, ordering: .relaxed) }
    public func decrement(by amount: Int = 1) { storage.wrappingSubtract(amount, ordering: .relaxed) }
    public var value: Int { storage.load(ordering: .relaxed) }
}

/// Named metrics rendered as Prometheus text exposition format 0.0.4 for `GET /metrics`.
/// Register once (e.g. at start-up) and keep the returned object; updating it is lock-free.
/// Registering the same name and labels twice returns the same object.
public final class MetricsRegistry: Sendable {
    private enum Kind: String, Sendable { case counter, gauge }

    private enum Source: Sendable {
        case counter(MetricsCounter)
        case gauge(MetricsGauge)
        case computed(@Sendable () -> Double)
    }

    private struct Family: Sendable {
        var kind: Kind
        var help: String
        /// Rendered label sets (`{code="200"}` or "") in registration order.
        var series: [(labels: String, source: Source)]
    }

    private struct State: Sendable {
        var order: [String] = []
        var families: [String: Family] = [:]
    }

    private let state = Lock(State())

    public init() {}

    public func counter(_ name: String, help: String, labels: [(String, String)] = []) -> MetricsCounter {
        let rendered = Self.render(labels)
        guard case .counter(let counter) = register(name, kind: .counter, help: help, labels: rendered, make: {
            .counter(MetricsCounter())
        }) else { preconditionFailure("metric \(name) is not a counter") }
        return counter
    }

    public func gauge(_ name: String, help: String, labels: [(String, String)] = []) -> MetricsGauge {
        let rendered = Self.render(labels)
        guard case .gauge(let gauge) = register(name, kind: .gauge, help: help, labels: rendered, make: {
            .gauge(MetricsGauge())
        }) else { preconditionFailure("metric \(name) is not a stored gauge") }
        return gauge
    }

    /// A gauge read at scrape time (e.g. viewers in all rooms). `read` runs on the
    /// scraping loop's thread, so it must be quick and thread-safe.
    public func gauge(_ name: String, help: String, labels: [(String, String)] = [], read: @escaping @Sendable () -> Double) {
        _ = register(name, kind: .gauge, help: help, labels: Self.render(labels), make: { .computed(read) })
    }

    /// The exposition text.
    public func render() -> String {
        let snapshot = state.withLock { state in state.order.map { ($0, state.families[$0]!) } }
        var text = ""
        for (name, family) in snapshot {
            text += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.kind.rawValue)\n"
            for (labels, source) in family.series {
                let value: String
                switch source {
                case .counter(let counter): value = String(counter.value)
                case .gauge(let gauge): value = String(gauge.value)
                case .computed(let read):
                    let reading = read()
                    value = reading == reading.rounded() && abs(reading) < 1e15 ? String(Int(reading)) : String(reading)
                }
                text += "\(name)\(labels) \(value)\n"
            }
        }
        return text
    }

    private func register(_ name: String, kind: Kind, help: String, labels: String, make: () -> Source) -> Source {
        precondition(Self.isValidName(name), "invalid metric name \(name)")
        return state.withLock { state in
            if var family = state.families[name] {
                precondition(family.kind == kind, "metric \(name) registered with two types")
                if let existing = family.series.first(where: { $0.labels == labels }) { return existing.source }
                let source = make()
                family.series.append((labels, source))
                state.families[name] = family
                return source
            }
            let source = make()
            state.order.append(name)
            state.families[name] = Family(kind: kind, help: help, series: [(labels, source)])
            return source
        }
    }

    private static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" || first == ":" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == ":") }
    }

    private static func render(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        let pairs = labels.map { name, value in
            let escaped = value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }
}

extension String {
    /// `replacingOccurrences` without Foundation.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
