import DrawEngine
import DrawRoomCore
import JSON
import RoomTestSupport
import Testing

/// Named operators in the room (issue #41): a page holding a presenter's key starts and stops
/// and nothing else (`role_forbidden`, nothing stored), the audit entries name who gave each
/// command (the owner's key: "owner"), and revoking the key makes its pages viewers at once.
@Suite struct OperatorRoleTests {
    static let ann = OperatorRef(id: "op-ANN234", name: "Ann", role: .presenter)

    /// Page `id` authenticated with `ref`'s key.
    static func operatorPage(_ room: inout RoomHarness, _ id: UInt64, _ ref: OperatorRef) -> [DrawRoomState.Action] {
        _ = room.handle(.joined(id, remote: "10.0.0.\(id)"))
        _ = room.handle(.received(#"{"type":"auth","key":"k"}"#, from: id))
        _ = room.handle(.operatorIdentified(id, ref))
        return room.handle(.keyChecked(id, .accepted))
    }

    static func stored(_ actions: [DrawRoomState.Action]) -> [RecordBatch] {
        actions.compactMap { if case .store(let batch) = $0 { batch } else { nil } }
    }

    @Test func aPresenterStartsAndStopsOnlyAndTheAuditNamesThem() throws {
        var room = try RoomHarness()
        let joined = Self.operatorPage(&room, 7, Self.ann)
        #expect(joined.compactMap(\.sent).map(\.text).contains(#"{"id":"op-ANN234","name":"Ann","role":"presenter","type":"operator"}"#))

        for message in [#"{"type":"clear","seq":1}"#, #"{"type":"configure","seq":2,"config":{"pool":{"kind":"range","from":1,"to":9}}}"#] {
            let refused = room.handle(.received(message, from: 7))
            #expect(!refused.storesSomething)
            #expect(refused.compactMap(\.sent).map(\.text).contains { $0.contains(#""code":"role_forbidden""#) }, "\(message)")
        }
        let start = room.handle(.received(#"{"type":"start","seq":3}"#, from: 7))
        let audit = try #require(Self.stored(start).first?.audit)
        #expect(audit.action == "start" && audit.detail["operator"] == .string("Ann") && audit.detail["operatorId"] == .string("op-ANN234"))

        // The owner's commands name "owner"; over REST, `commandBy` names the operator.
        _ = room.handle(.stored(.success(())))
        room.host(1)
        let stop = room.command(.stop)
        #expect(Self.stored(stop.actions).first?.audit?.detail["operator"] == .string("owner"))
    }

    @Test func revokingAKeyMakesItsPagesViewersAndLeavesTheOthers() throws {
        var room = try RoomHarness()
        room.host(1)
        _ = Self.operatorPage(&room, 7, Self.ann)
        let bo = OperatorRef(id: "op-BO2345", name: "Bo", role: .host)
        _ = Self.operatorPage(&room, 8, bo)
        let revoked = room.handle(.operatorRevoked(Self.ann.id))
        #expect(revoked.compactMap(\.sent).map(\.to) == [7])
        #expect(revoked.compactMap(\.sent).first?.text == #"{"role":"viewer","type":"role"}"#)
        #expect(room.handle(.received(#"{"type":"start","seq":4}"#, from: 7)).compactMap(\.sent).first?.text.contains("not_host") == true)
        // Bo (a host-role co-host) still commands, and may do what a presenter may not.
        let start = room.handle(.received(#"{"type":"start","seq":5}"#, from: 8))
        #expect(Self.stored(start).first?.audit?.detail["operator"] == .string("Bo"))
    }

    @Test func rolesPermitTheirCommands() {
        #expect(OperatorRole.presenter.permits(.start(audience: nil)) && OperatorRole.presenter.permits(.stop))
        #expect(!OperatorRole.presenter.permits(.clear) && !OperatorRole.presenter.permits(.checkin(.close)))
        #expect(OperatorRole.checkin.permits(.checkin(.close)) && !OperatorRole.checkin.permits(.start(audience: nil)))
        #expect(OperatorRole.host.permits(.clear))
        #expect(!OperatorRole.observer.permits(.start(audience: nil)) && !OperatorRole.observer.permits(.checkin(.close))
                && !OperatorRole.observer.permits(.clear))
    }
}
