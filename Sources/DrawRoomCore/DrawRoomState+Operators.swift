import JSON

/// Named operators in the room (issue #41): which page holds which operator's key, what its
/// role lets it do, and revocation (its pages become viewers at once, as `hostKeyChanged` does
/// for the owner's key).
extension DrawRoomState {
    /// Page `id`'s key is operator `ref`'s (the shell checked it): applied before its `.keyChecked`.
    mutating func operatorIdentified(_ id: UInt64, _ ref: OperatorRef) {
        members[id]?.operatorRef = ref
    }

    /// After a good `auth`: the page learns which operator it is (owner: none is sent).
    func announceOperator(to id: UInt64, _ actions: inout [Action]) {
        guard let ref = members[id]?.operatorRef else { return }
        var message = ref.json.objectValue ?? [:]
        message["type"] = .string("operator")
        actions.append(.send(.operatorInfo(.object(message)), to: id))
    }

    /// Operator `operatorID`'s key was revoked: its pages become viewers.
    mutating func operatorRevoked(_ operatorID: String, _ actions: inout [Action]) {
        for (id, member) in members where member.operatorRef?.id == operatorID {
            members[id]?.isHost = false
            members[id]?.operatorRef = nil
            actions.append(.send(.role(host: false), to: id))
        }
    }

    /// Whether page `member` may give `command` (its operator's role); the owner may do everything.
    static func permits(_ member: Member, _ command: HostCommand) -> Bool {
        // The owner's key (no operator) may do everything but sign off as an observer.
        if case .signoff = command { return member.operatorRef?.role == .observer }
        return member.operatorRef?.role.permits(command) ?? true
    }
}
