/// The files of `Public/` as they were when this binary was built (Plugins/Embed writes
/// `generated` at build time), so the binary serves every page from any directory.
public enum EmbeddedPages {
    enum Contents {
        case text(String)
        case bytes([UInt8])
    }

    /// Each file's path under `Public/` (e.g. `js/lib/dom.js`) and its bytes.
    public static var files: [(path: String, bytes: [UInt8])] {
        generated.map { file in
            switch file.contents {
            case .text(let text): (file.path, Array(text.utf8))
            case .bytes(let bytes): (file.path, bytes)
            }
        }
    }
}
