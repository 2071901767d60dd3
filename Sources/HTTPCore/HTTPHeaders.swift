/// Ordered header fields with case-insensitive names (RFC 9110 §5).
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init() { fields = [] }

    public init(_ fields: [Element]) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, if any.
    public subscript(_ name: String) -> String? {
        fields.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        for field in fields where ASCII.equalsIgnoringCase(field.name, name) { values.append(field.value) }
        return values
    }

    public func contains(name: String) -> Bool {
        fields.contains { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Whether any comma-separated element of the `name` fields equals `token`, ignoring case
    /// (e.g. `contains(token: "upgrade", in: "Connection")` for `Connection: keep-alive, Upgrade`).
    public func contains(token: String, in name: String) -> Bool {
        values(for: name).contains { value in
            ASCII.listElements(value).contains { ASCII.equalsIgnoringCase($0, token) }
        }
    }

    /// The comma-separated elements of every `name` field, trimmed, in order.
    public func listElements(for name: String) -> [String] {
        values(for: name).flatMap { ASCII.listElements($0).map(String.init) }
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every `name` field and adds one with `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
