/// Dynamic text (a rendered page) gzipped per request for clients that accept it: on slow party Wi-Fi the
/// guest page is a quarter of its size. Static assets have their gzip variant made once instead (`StaticContent`).
extension Response {
    public func gzipped(for request: Request) -> Response {
        guard case .bytes(let bytes) = body, StaticContent.acceptsGzip(request.header("accept-encoding")),
              !headers.contains(where: { $0.0.lowercased() == "content-encoding" }),
              let smaller = GzipEncoder.smaller(bytes, level: 6) else { return self }
        return Response(status: status, headers: headers + [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")],
                        body: .bytes(smaller))
    }
}
