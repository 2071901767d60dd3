/// Why a request could not be parsed; `status` is what to answer before closing.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case requestLineTooLong
        case headerSectionTooLarge
        case tooManyHeaderFields
        case bodyTooLarge
        case invalidRequestLine
        case invalidMethod
        case invalidTarget
        case invalidVersion
        case unsupportedVersion
        case invalidHeaderName
        case invalidHeaderValue
        case obsoleteLineFolding
        case missingHost
        case multipleHosts
        case invalidContentLength
        case unsupportedTransferEncoding
        case invalidTransferEncoding
        case contentLengthWithTransferEncoding
        case invalidChunkSize
        case chunkSizeLineTooLong
        case invalidChunkTerminator
        case tooManyEmptyLines
    }

    public let kind: Kind

    public init(_ kind: Kind) { self.kind = kind }

    /// The status to send before closing the connection.
    public var status: HTTPStatus {
        switch kind {
        case .requestLineTooLong: .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaderFields: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedTransferEncoding: .notImplemented
        default: .badRequest
        }
    }

    /// A short, fixed English reason for logs (never echoes request bytes).
    public var reason: String {
        switch kind {
        case .requestLineTooLong: "request line too long"
        case .headerSectionTooLarge: "header section too large"
        case .tooManyHeaderFields: "too many header fields"
        case .bodyTooLarge: "body too large"
        case .invalidRequestLine: "malformed request line"
        case .invalidMethod: "invalid method"
        case .invalidTarget: "invalid request target"
        case .invalidVersion: "malformed HTTP version"
        case .unsupportedVersion: "unsupported HTTP version"
        case .invalidHeaderName: "invalid header field name"
        case .invalidHeaderValue: "invalid header field value"
        case .obsoleteLineFolding: "obsolete line folding"
        case .missingHost: "missing Host header"
        case .multipleHosts: "more than one Host header"
        case .invalidContentLength: "invalid or conflicting Content-Length"
        case .unsupportedTransferEncoding: "unsupported Transfer-Encoding"
        case .invalidTransferEncoding: "invalid Transfer-Encoding"
        case .contentLengthWithTransferEncoding: "both Content-Length and Transfer-Encoding"
        case .invalidChunkSize: "invalid chunk size"
        case .chunkSizeLineTooLong: "chunk size line too long"
        case .invalidChunkTerminator: "chunk data not followed by CRLF"
        case .tooManyEmptyLines: "too many empty lines before request"
        }
    }

    public var description: String { "\(status.code) \(reason)" }
}
