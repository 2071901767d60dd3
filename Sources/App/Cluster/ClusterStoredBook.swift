import ClusterCore
import DrawRoomCore

extension ClusterStoredRows {
    /// The book as Redis holds it (nil: a row or the settings cannot be read back).
    static func book(from read: (settings: String?, rows: [String])) -> CheckinBook? {
        let entries = read.rows.compactMap(Self.entry(row:))
        guard entries.count == read.rows.count else { return nil }
        var settings = CheckinSettings()
        if let text = read.settings {
            guard let stored = CheckinSettings(stored: text) else { return nil }
            settings = stored
        }
        return CheckinBook(settings: settings, entries: entries.sorted { $0.seq < $1.seq })
    }
}
