@testable import Storage

func draw(_ code: String = "ABC234", createdAt: Double = 1_700_000_000.5) -> DrawRow {
    DrawRow(code: code, hostKeyHash: "hk-\(code)", createdAt: createdAt, configJSON: #"{"from":1,"to":500}"#,
            clearedThrough: -1)
}

/// The chain's `index`-th record, with a fake (but chained) hash.
func record(_ drawCode: String = "ABC234", index: Int, kind: String = "round", json: String = "{}") -> RecordRow {
    RecordRow(drawCode: drawCode, index: index, round: index + 1, kind: kind, json: json,
              hash: fakeHash(drawCode, index), prevHash: index == 0 ? RecordRow.genesisHash : fakeHash(drawCode, index - 1),
              createdAt: 1_700_000_000 + Double(index))
}

func audit(_ drawCode: String = "ABC234", index: Int, actor: String = "host") -> AuditRow {
    AuditRow(drawCode: drawCode, index: index, at: 1_700_000_000 + Double(index), actor: actor, action: "start",
             detailJSON: #"{"seq":\#(index)}"#,
             prevHash: index == 0 ? RecordRow.genesisHash : "a" + fakeHash(drawCode, index - 1),
             hash: "a" + fakeHash(drawCode, index))
}

func fakeHash(_ drawCode: String, _ index: Int) -> String { "h\(drawCode)-\(index)" }

/// The code of the `StorageError` that `body` throws, nil if it succeeds.
func storageError(_ body: () throws -> Void) -> StorageError.Code? {
    do {
        try body()
        return nil
    } catch {
        return (error as? StorageError)?.code
    }
}
