import JSON

/// What a named operator's key may do (issue #41): `host` everything the owner's key may,
/// `presenter` only Start and Stop (the screen with controls), `checkin` only the entrants
/// (entries open/close, the list, removals, erasing), `observer` nothing but look: it sees what
/// the host sees (the plan, the entrants, the audit log) and gives no command.
public enum OperatorRole: String, Sendable, CaseIterable {
    case host, presenter, checkin, observer

    /// Whether a command from this role is carried out (else `role_forbidden`).
    public func permits(_ command: HostCommand) -> Bool {
        switch (self, command) {
        case (.host, .signoff): false
        case (.host, _): true
        case (.presenter, .start), (.presenter, .stop): true
        case (.checkin, .checkin): true
        // The prize table (issue 45): staff with a check-in link hand prizes over.
        case (.checkin, .handover): true
        // Only an observer signs off (never a host: the point is a second pair of eyes).
        case (.observer, .signoff): true
        default: false
        }
    }
}

/// Who gave a command: the draw's owner (its first host key, `tombola host-link`'s) or one of
/// the operators the host added, each with a public id, a name and a role. Never a key.
public struct OperatorRef: Sendable, Equatable {
    public var id: String
    public var name: String
    public var role: OperatorRole

    public init(id: String, name: String, role: OperatorRole) {
        self.id = id
        self.name = name
        self.role = role
    }

    /// The owner's key: named "owner" in the audit log.
    public static let owner = OperatorRef(id: "owner", name: "owner", role: .host)

    /// `{"id","name","role"}`, as pages and the API show an operator.
    public var json: JSONValue {
        .object(["id": .string(id), "name": .string(name), "role": .string(role.rawValue)])
    }
}

extension AuditEntry {
    /// The entry naming who gave the command (`detail.operator`, `detail.operatorId`); host
    /// commands only (the admin's and the system's name their actor).
    func stamped(by ref: OperatorRef?) -> AuditEntry {
        guard actor == "host", case .object(var members) = detail else { return self }
        let ref = ref ?? .owner
        members["operator"] = .string(ref.name)
        members["operatorId"] = .string(ref.id)
        var entry = self
        entry.detail = .object(members)
        return entry
    }
}
