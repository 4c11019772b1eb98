import CZlib

/// One zlib deflate stream producing gzip (RFC 1952): the only owner of its `z_stream`, freed in `deinit`.
/// Static text assets are compressed once at start at the best level; pages per request at a faster one.
final class GzipEncoder {
    enum Failure: Error { case initialization(Int32), deflate(Int32) }

    private var stream = z_stream()

    init(level: Int32 = 9) throws(Failure) {
        let status = mv_deflate_init_gzip(&stream, level)
        guard status == Z_OK else { throw .initialization(status) }
    }

    deinit { deflateEnd(&stream) }

    /// The whole input as one gzip member.
    func compress(_ input: [UInt8]) throws(Failure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw .deflate(status) }
        output.removeLast(Int(stream.avail_out))
        return output
    }

    /// `bytes` gzipped, or nil when that does not make them smaller by at least a tenth (or zlib failed).
    static func smaller(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8]? {
        guard bytes.count >= 256, let gzipped = try? GzipEncoder(level: level).compress(bytes), gzipped.count * 10 <= bytes.count * 9 else {
            return nil
        }
        return gzipped
    }
}
