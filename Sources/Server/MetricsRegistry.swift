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

/// Observations counted into cumulative buckets (Prometheus `histogram`), e.g. latencies in
/// seconds. Behind a lock: observed a few times per draw action, not per packet.
public final class MetricsHistogram: Sendable {
    /// Upper bounds, ascending; `+Inf` is implied.
    public let bounds: [Double]
    private let state: Lock<(counts: [Int], sum: Double)>

    init(bounds: [Double]) {
        self.bounds = bounds
        state = Lock((Array(repeating: 0, count: bounds.count + 1), 0))
    }

    public func observe(_ value: Double) {
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        state.withLock { state in
            state.counts[index] += 1
            state.sum += value
        }
    }

    /// `observe` of a duration in seconds.
    public func observe(_ duration: Duration) {
        observe(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// The exposition lines: `_bucket{le=…}` (cumulative), `_sum`, `_count`.
    fileprivate func render(_ name: String) -> String {
        let (counts, sum) = state.withLock { ($0.counts, $0.sum) }
        var text = ""
        var total = 0
        for (index, count) in counts.enumerated() {
            total += count
            let bound = index < bounds.count ? String(bounds[index]) : "+Inf"
            text += "\(name)_bucket{le=\"\(bound)\"} \(total)\n"
        }
        return text + "\(name)_sum \(sum)\n\(name)_count \(total)\n"
    }

    /// Seconds from 1 ms to 30 s, for waits people notice.
    public static let latencyBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
}

/// Named metrics rendered as Prometheus text exposition format 0.0.4 for `GET /metrics`.
/// Register once (e.g. at start-up) and keep the returned object; updating it is lock-free.
/// Registering the same name and labels twice returns the same object.
public final class MetricsRegistry: Sendable {
    private enum Kind: String, Sendable { case counter, gauge, histogram }

    private enum Source: Sendable {
        case counter(MetricsCounter)
        case gauge(MetricsGauge)
        case computed(@Sendable () -> Double)
        case histogram(MetricsHistogram)
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

    /// A counter read at scrape time (e.g. CPU seconds from the kernel); `read` as for gauges.
    public func counter(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        _ = register(name, kind: .counter, help: help, labels: "", make: { .computed(read) })
    }

    /// A histogram without labels; `bounds` ascending (default: `MetricsHistogram.latencyBounds`).
    public func histogram(_ name: String, help: String, bounds: [Double] = MetricsHistogram.latencyBounds) -> MetricsHistogram {
        guard case .histogram(let histogram) = register(name, kind: .histogram, help: help, labels: "", make: {
            .histogram(MetricsHistogram(bounds: bounds))
        }) else { preconditionFailure("metric \(name) is not a histogram") }
        return histogram
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
                case .histogram(let histogram):
                    text += histogram.render(name)
                    continue
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
