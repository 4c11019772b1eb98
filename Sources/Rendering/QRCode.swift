import CQREncode

/// A QR code's module matrix, encoded by libqrencode. Owns nothing after init: the C struct is copied and freed.
public struct QRCode: Sendable {
    public let size: Int
    /// Row-major, true = dark module.
    public let modules: [Bool]

    public enum EncodingError: Error { case tooLong }

    /// Encodes `text` byte-for-byte; case-sensitive so URLs keep their case.
    public init(_ text: String) throws(EncodingError) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { throw .tooLong }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // Bit 0 of each byte is the dark/light flag (qrencode.h).
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }
}
