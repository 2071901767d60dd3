import DrawEngine
import Posix

extension Draw {
    /// Commits to the next round with a fresh seed from the OS CSPRNG, at `at` (now unless
    /// given): the one place the server makes a commitment (a new draw, a draw read back, a
    /// room rebuilt after a failed write, a cluster owner taking over, the history generator).
    mutating func prepareFreshCommitment(at: Int64 = Int64(WallClock.unixMilliseconds())) throws(DrawError) -> DrawRecord {
        try prepareCommitment(seed: .fresh(), at: at)
    }
}
