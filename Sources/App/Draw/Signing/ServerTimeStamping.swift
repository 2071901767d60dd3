import Beacon
import DrawEngine
import JSON
import Locking
import Posix
import Server
import Storage

/// Outside time (issue #47, docs/FAIRNESS.md §18): with `--tsa URL`, the chain head after each
/// round's record is time-stamped by that RFC 3161 authority, off the draw loop and after the
/// record is stored (a slow or absent TSA never holds a round up; a failure is logged and the
/// round simply has no time-stamp). The answer is kept beside the record (`timestamps`) and
/// travels in the export.
public enum ServerTimeStamping {
    private static let installed = Lock<String?>(nil)

    public static var tsaURL: String? { installed.withLock { $0 } }

    public static func install(tsa: String?) { installed.withLock { $0 = tsa } }

    /// After `records` of draw `code` are stored (SQLite): stamps the last one when they hold a round.
    static func stored(_ records: [DrawRecord], code: String, storage: StorageQueue) {
        stored(records, code: code) { index, hash, stamp in
            storage.async { database in
                try database.saveTimeStamp(drawCode: code, TimeStampRow(index: index, hash: hash, tsa: stamp.tsa, response: stamp.response),
                                           at: WallClock.unixMilliseconds() / 1000)
            }
        }
    }

    /// After `records` of draw `code` are stored: when they hold a round, asks the TSA for a stamp
    /// of the last one's hash off the loop and hands the answer to `save` (record index, hash, stamp; on that thread).
    static func stored(_ records: [DrawRecord], code: String, save: @escaping @Sendable (Int, String, RecordTimeStamp) -> Void) {
        guard let url = tsaURL, let head = records.last,
              records.contains(where: { if case .round = $0.body { true } else { false } }),
              let digest = Hex.decode(head.hash) else { return }
        let started = DetachedThread.start {
            switch TimeStampFetch.stamp(digest: digest, url: url) {
            case .success(let response):
                save(head.index, head.hash, RecordTimeStamp(tsa: url, response: response))
                Log.event("draw.timestamped", fields: ["draw": .string(code), "record": .int(Int64(head.index)), "tsa": .string(url)],
                          text: nil)
            case .failure(let error):
                Log.error("draw.timestamp_failed", "draw \(code): the TSA \(url) gave no time-stamp of record \(head.index): \(error.reason)",
                          fields: ["draw": .string(code), "record": .int(Int64(head.index))])
            }
        }
        if !started { Log.error("draw.timestamp_failed", "draw \(code): no thread to ask the TSA for a time-stamp", fields: ["draw": .string(code)]) }
    }
}
