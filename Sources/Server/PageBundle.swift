/// Pages built into the binary, served when no directory is given: each file's path under the
/// page root (`js/lib/dom.js`) and its bytes, and the instant they stand for (`Last-Modified`).
public struct PageBundle: Sendable {
    public var files: [(path: String, bytes: [UInt8])]
    public var modifiedSeconds: Int

    public init(files: [(path: String, bytes: [UInt8])], modifiedSeconds: Int) {
        self.files = files
        self.modifiedSeconds = modifiedSeconds
    }
}
