import CPNG

/// 8-bit grayscale PNG encoding through libpng's simplified API.
public enum PNGImage {
    public enum EncodingError: Error { case libpngFailed }

    public static func grayscale(pixels: [UInt8], width: Int, height: Int) throws(EncodingError) -> [UInt8] {
        precondition(pixels.count == width * height)
        var capacity = width * height + 4096 + height * 8
        var output = [UInt8](repeating: 0, count: capacity)
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            pixels.withUnsafeBufferPointer { source in
                mv_png_write_gray8(buffer.baseAddress, &capacity, source.baseAddress, UInt32(width), UInt32(height))
            }
        }
        guard ok != 0 else { throw .libpngFailed }
        return Array(output.prefix(capacity))
    }
}
