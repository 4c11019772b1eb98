import CPNG

/// 8-bit grayscale and RGB PNG encoding through libpng's simplified API.
public enum PNGImage {
    public enum EncodingError: Error { case libpngFailed }

    public static func grayscale(pixels: [UInt8], width: Int, height: Int) throws(EncodingError) -> [UInt8] {
        precondition(pixels.count == width * height)
        return try encode(pixels: pixels, width: width, height: height, bytesPerPixel: 1, writer: mv_png_write_gray8)
    }

    /// `pixels`: rows of red, green, blue bytes.
    public static func rgb(pixels: [UInt8], width: Int, height: Int) throws(EncodingError) -> [UInt8] {
        precondition(pixels.count == width * height * 3)
        return try encode(pixels: pixels, width: width, height: height, bytesPerPixel: 3, writer: mv_png_write_rgb8)
    }

    private typealias Writer = (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, UInt32, UInt32) -> Int32

    private static func encode(pixels: [UInt8], width: Int, height: Int, bytesPerPixel: Int,
                               writer: Writer) throws(EncodingError) -> [UInt8] {
        // Uncompressed size plus headers: libpng never needs more for these images.
        var capacity = width * height * bytesPerPixel + 4096 + height * 8
        var output = [UInt8](repeating: 0, count: capacity)
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            pixels.withUnsafeBufferPointer { source in
                writer(buffer.baseAddress, &capacity, source.baseAddress, UInt32(width), UInt32(height))
            }
        }
        guard ok != 0 else { throw .libpngFailed }
        return Array(output.prefix(capacity))
    }
}
