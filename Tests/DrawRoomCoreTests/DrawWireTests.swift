import DrawEngine
import JSON
import Testing
@testable import DrawRoomCore

/// The page protocol's bytes for what the room announces (docs/PROTOCOL.md): `DrawWire` writes
/// exactly what pages have always received, and tells a relay how to treat each announcement.
@Suite struct DrawWireTests {
    @Test func ticksAreWrittenAsBefore() {
        let rolling = DrawTick(seq: 3, at: 1_764_000_000_000, value: .number(17))
        #expect(DrawWire.text(.tick(rolling)) == #"{"at":1764000000000.0,"seq":3,"type":"tick","value":17}"#)
        let landing = DrawTick(seq: 4, at: 1_764_000_000_250.5, value: .name("AB12CD34"), name: "Ann",
                               landing: DrawTick.Landing(first: .name("AB12CD34"), step: 2, steps: 5))
        #expect(DrawWire.text(.tick(landing))
            == #"{"at":1764000000250.5,"landing":{"step":2,"steps":5,"value":"AB12CD34"},"name":"Ann","seq":4,"type":"tick","value":"AB12CD34"}"#)
    }

    @Test func pageMessagesAreWrittenAsBefore() {
        #expect(DrawWire.text(DrawPageMessage.role(host: true)) == #"{"role":"host","type":"role"}"#)
        #expect(DrawWire.text(DrawPageMessage.role(host: false)) == #"{"role":"viewer","type":"role"}"#)
        #expect(DrawWire.text(DrawPageMessage.error(code: "not_host", seq: nil))
            == #"{"code":"not_host","message":"Only the host can do that.","type":"error"}"#)
        #expect(DrawWire.errorText("bad_key", seq: 7)
            == #"{"code":"bad_key","message":"Wrong host key: that key does not control this draw.","seq":7,"type":"error"}"#)
    }

    @Test func announcementsAreWrittenAsBefore() {
        #expect(DrawWire.text(.phase(.rolling)) == #"{"phase":"rolling","type":"phase"}"#)
        #expect(DrawWire.text(.cleared) == #"{"type":"cleared"}"#)
        #expect(DrawWire.text(.viewers(12)) == #"{"count":12,"type":"viewers"}"#)
        #expect(DrawWire.text(.winners(round: 2, names: ["AB12CD34": .string("Ann")]))
            == #"{"names":{"AB12CD34":"Ann"},"round":2,"type":"winners"}"#)
    }

    @Test func aRelayLearnsWhatAnAnnouncementIsFromItsValue() {
        let first = DrawValue.number(9)
        #expect(DrawAnnouncement.tick(DrawTick(seq: 1, at: 0, value: first)).isLatestValue)
        #expect(DrawAnnouncement.tick(DrawTick(seq: 2, at: 0, value: first,
                                               landing: .init(first: first, step: 4, steps: 5))).isLatestValue)
        // The landing tick shows the winner: every page must get it.
        #expect(!DrawAnnouncement.tick(DrawTick(seq: 3, at: 0, value: first,
                                                landing: .init(first: first, step: 5, steps: 5))).isLatestValue)
        #expect(DrawAnnouncement.viewers(3).isLatestValue && DrawAnnouncement.viewers(3).kind == .viewers)
        #expect(!DrawAnnouncement.phase(.rolling).isLatestValue && DrawAnnouncement.phase(.rolling).kind == .phase(.rolling))
        #expect(DrawAnnouncement.winners(round: 1, names: [:]).kind == .checkinWinners)
        #expect(DrawAnnouncement.cleared.kind == .cleared && DrawAnnouncement.config("{}").kind == .other)
    }
}
