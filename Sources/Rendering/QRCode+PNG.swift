extension QRCode {
    /// Renders crisp square modules with a 4-module quiet zone, at least `minimumPixels` wide.
    public func png(minimumPixels: Int = 320) throws(PNGImage.EncodingError) -> [UInt8] {
        let quietZone = 4
        let modulesAcross = size + 2 * quietZone
        let scale = max(1, (minimumPixels + modulesAcross - 1) / modulesAcross)
        let width = modulesAcross * scale
        var pixels = [UInt8](repeating: 255, count: width * width)
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                for row in 0..<scale {
                    let start = ((y + quietZone) * scale + row) * width + (x + quietZone) * scale
                    for column in 0..<scale { pixels[start + column] = 0 }
                }
            }
        }
        return try PNGImage.grayscale(pixels: pixels, width: width, height: width)
    }
}
