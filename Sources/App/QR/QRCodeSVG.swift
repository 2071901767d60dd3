import Server
import CQREncode

/// A QR code rendered as a self-contained SVG document through libqrencode.
/// The symbol is drawn as one path of unit squares with a 4-module quiet zone,
/// so it scales crisply on a projector.
public enum QRCodeSVG {
    /// Longest text we encode: a join URL is far shorter, and the cap keeps a
    /// request from asking for the largest symbol libqrencode can make.
    public static let maximumTextLength = 512

    /// Returns the SVG, or nil when the text is empty, too long or cannot be encoded.
    public static func render(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maximumTextLength, !text.utf8.contains(0) else { return nil }
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        let quiet = 4
        let size = width + 2 * quiet
        var path = ""
        path.reserveCapacity(width * width * 4)
        for row in 0..<width {
            var column = 0
            while column < width {
                // Bit 0 of each byte is the module's colour (1 = dark).
                guard modules[row * width + column] & 1 == 1 else { column += 1; continue }
                let start = column
                while column < width, modules[row * width + column] & 1 == 1 { column += 1 }
                path += "M\(start + quiet) \(row + quiet)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
        <rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
        """
    }
}
