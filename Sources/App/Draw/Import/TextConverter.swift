import Glibc

/// One glibc iconv conversion descriptor, from one character encoding to another: the one owner
/// of iconv calls (iconv_open(3), iconv(3), iconv_close(3)). Converts a whole input at once.
final class TextConverter {
    /// Where the input stopped being convertible: `offset` bytes of input were taken and became
    /// `converted` (the output so far), then an invalid or truncated sequence followed.
    struct Failure: Error {
        let offset: Int
        let converted: [UInt8]
    }

    private let descriptor: iconv_t

    /// nil when glibc has no converter between the two names.
    init?(from source: String, to target: String) {
        guard let descriptor = iconv_open(target, source), descriptor != iconv_t(bitPattern: -1) else { return nil }
        self.descriptor = descriptor
    }

    deinit { iconv_close(descriptor) }

    /// `bytes` in the target encoding, or where they stop being valid in the source encoding.
    /// `growth` bounds output bytes per input byte (for the one up-front buffer).
    func convert(_ bytes: [UInt8], growth: Int = 4) throws(Failure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: bytes.count * growth + 16)
        var input = bytes
        let (taken, written, ok) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                inBuffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: inBuffer.count) { inBase in
                    outBuffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: outBuffer.count) { outBase in
                        var inPointer: UnsafeMutablePointer<CChar>? = inBase
                        var outPointer: UnsafeMutablePointer<CChar>? = outBase
                        var inLeft = inBuffer.count
                        var outLeft = outBuffer.count
                        // EILSEQ (an invalid sequence) and EINVAL (truncated at the end) both stop here;
                        // E2BIG cannot happen with the buffer sized by `growth`.
                        let result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                        return (inBuffer.count - inLeft, outBuffer.count - outLeft, result != -1)
                    }
                }
            }
        }
        output.removeSubrange(written...)
        guard ok else { throw Failure(offset: taken, converted: output) }
        return output
    }
}
