import Testing
@testable import Storage

/// Named operators at rest (issue #41): only the key's hash, every role the schema allows
/// (migration 11 added `observer`), revocation kept as a time, an unknown role refused.
@Suite struct OperatorRepositoryTests {
    @Test func operatorsAreAddedRevokedAndReadBack() throws {
        let dir = TemporaryDirectory()
        let db = try Database(path: dir.path("t.sqlite"))
        let roles = ["host", "presenter", "checkin", "observer"]
        for (i, role) in roles.enumerated() {
            try db.insertOperator(OperatorRow(drawCode: "ABC234", id: "op-\(i)", name: "N\(i)", role: role,
                                              keyHash: String(repeating: "\(i)", count: 64), createdAt: Double(i)))
        }
        #expect(try db.revokeOperator(drawCode: "ABC234", id: "op-1", at: 9))
        #expect(try !db.revokeOperator(drawCode: "ABC234", id: "op-1", at: 10), "revoked once")
        #expect(try !db.revokeOperator(drawCode: "OTHER2", id: "op-2", at: 10), "another draw's id")
        let rows = try db.loadOperators()
        #expect(rows.map(\.role) == roles && rows.map(\.revokedAt) == [nil, 9, nil, nil])
        #expect(throws: StorageError.self) {
            try db.insertOperator(OperatorRow(drawCode: "ABC234", id: "op-9", name: "X", role: "admin",
                                              keyHash: String(repeating: "9", count: 64), createdAt: 1))
        }
    }
}
