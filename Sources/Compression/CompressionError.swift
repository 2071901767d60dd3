/// Why a zlib stream refused to go on. Codes only; callers map them to protocol errors.
public enum CompressionError: Error, Equatable, Sendable {
    /// zlib could not set the stream up (bad parameters or no memory).
    case initializationFailed(code: Int32)
    /// The compressed input is not a valid deflate stream.
    case corruptData
    /// Inflating would produce more than the allowed number of bytes.
    case outputLimitExceeded(limit: Int)
    /// zlib reported an unexpected status.
    case streamError(code: Int32)
}
