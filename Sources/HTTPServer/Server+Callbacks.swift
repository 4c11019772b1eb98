import Foundation
import CMicroHTTPD
import CMicroHTTPDErrors
import ClientNetwork

/// Per-connection request state between libmicrohttpd's access-handler calls.
final class PendingRequest {
    /// When the headers were complete: the body must follow within `Server.bodyDeadline`, however slowly
    /// it trickles (libmicrohttpd's timeout only measures idleness, which one byte a second resets).
    let started = DispatchTime.now()
    var body: [UInt8] = []
    var tooLarge = false
    /// Set while a deferred response is being computed; its result is queued on the call after the resume.
    var deferred: DeferredResponse?
    /// An event stream took the connection's socket (`Server.handOverStream`): the call after the resume closes it.
    var handedOver = false
}

/// libmicrohttpd's access handler: collects the body, then answers on the final call.
/// Answering on a later call than the first keeps the connection alive (NOTES-libmicrohttpd).
/// Free functions, not closures in main.swift: those are main-actor isolated and crash on MHD threads.
let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let requestContext, let uploadSize else { return .NO }
    let server = Unmanaged<Server>.fromOpaque(context).takeUnretainedValue()
    guard let raw = requestContext.pointee else {
        server.connections?.headCompleted(connection)
        // Refused before any work (RequestHead.c): a head over the limit that no header took there, or a
        // Content-Length libmicrohttpd could not parse, now dropped; the body's end is unknown, so the connection closes.
        switch mv_request_head_flaw(connection) {
        case 0: break
        case UInt32(MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE):
            // Written, not queued: the pool may have no room left to build a queued answer's head in.
            mv_answer_request_head_too_large(connection)
            return .NO
        case UInt32(MHD_HTTP_CONTENT_TOO_LARGE):
            return queue(Response(error: .payloadTooLarge).adding(header: "Connection", "close"), on: connection)
        default:
            return queue(Response(error: .malformedRequest).adding(header: "Connection", "close"), on: connection)
        }
        let pending = PendingRequest()
        if let length = lookup(connection, .HEADER_KIND, "Content-Length").flatMap(Int.init), length > Server.maxBodyBytes {
            // MHD accepts a response only before the body phase or after it; answering now skips reading a huge
            // body, at the price of closing the connection. A body up to `drainedBodyBytes` is read and dropped.
            guard length <= Server.drainedBodyBytes else { return queue(Response(error: .payloadTooLarge), on: connection) }
            pending.tooLarge = true
        }
        requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
        server.requestStarted()
        return .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(raw).takeUnretainedValue()
    // libmicrohttpd closes its side of a handed-over stream: what it holds now is a placeholder socket.
    if pending.handedOver { return .NO }
    if uploadSize.pointee > 0 {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - pending.started.uptimeNanoseconds) / 1e9
        if elapsed > Server.bodyDeadline { return .NO }
        if !pending.tooLarge, let uploadData {
            let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
            if pending.body.count + chunk.count > Server.maxBodyBytes {
                pending.tooLarge = true
                pending.body = []
            } else {
                pending.body.append(contentsOf: chunk)
            }
        }
        // A chunked body past the cap is read and dropped; the final call answers 413.
        uploadSize.pointee = 0
        return .YES
    }
    if pending.tooLarge { return queue(Response(error: .payloadTooLarge), on: connection) }
    if let deferred = pending.deferred {
        // Called again after the worker resumed the connection: answer with what it computed.
        pending.deferred = nil
        return queue(deferred.result?() ?? Response(error: HTTPError(status: 500, message: "Interner Fehler.")), on: connection,
                     closing: server.isDraining)
    }
    var request = Request(
        method: method.map { String(cString: $0) } ?? "GET",
        path: url.map { String(cString: $0) } ?? "/",
        query: values(connection, .GET_ARGUMENT_KIND),
        headers: values(connection, .HEADER_KIND, lowercased: true),
        body: pending.body,
        clientAddress: clientAddress(connection))
    if request.path.isEmpty { request.path = "/" }
    let response = server.respond(request)
    if case .stream(let stream) = response.body, request.method == "GET", response.status == 200, server.streamSockets != nil {
        pending.handedOver = true
        return server.handOverStream(stream, headers: response.headers, connection: connection) ? .YES : .NO
    }
    guard case .deferred(let deferred) = response.body else { return queue(response, on: connection, closing: server.isDraining) }
    pending.deferred = deferred
    // Suspend before the work starts, so its resume can never come first (NOTES: suspend from the handler).
    MHD_suspend_connection(connection)
    let resumable = ResumableConnection(connection)
    DeferredResponse.inFlight.enter()
    let begin: @Sendable () -> Void = {
        deferred.start { render in
            deferred.result = render
            resumable.resume()
            DeferredResponse.inFlight.leave()
        }
    }
    if deferred.handsOn { begin() } else { DeferredResponse.workers.asyncAfter(deadline: .now() + deferred.delay, execute: begin) }
    return .YES
}

extension Server {
    /// Hands an event stream the connection's socket, with its answer head to write first (not with TLS: only
    /// libmicrohttpd's GnuTLS session can write those bytes). libmicrohttpd is left a placeholder under the same
    /// descriptor number, which it closes on the call after the resume: its close shuts the socket down for writing
    /// first (0.9.75, `MHD_connection_mark_closed_`), which would end the stream with it. The suspend first takes the
    /// descriptor out of its epoll set while it is still the client's (removing it later would find no such entry,
    /// which 0.9.75 answers with a panic). False: the socket could not be had (nothing suspended); the connection
    /// closes and the client connects again.
    /// The head is HTTP/1.1 without a length or chunks: the stream's end is the connection's (`Connection: close`), as
    /// a stream never carries another request. The connection keeps counting against its network and the total until
    /// the stream ends, and a drain waits for it as for any request in progress.
    func handOverStream(_ stream: EventStream, headers: [(String, String)], connection: OpaquePointer) -> Bool {
        let own = mv_connection_socket(connection)
        guard let sockets = streamSockets, let connections, own >= 0 else { stream.finish(); return false }
        let socket = fcntl(own, F_DUPFD_CLOEXEC, 0)
        guard socket >= 0 else { stream.finish(); return false }
        let placeholder = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard placeholder >= 0 else {
            Glibc.close(socket)
            stream.finish()
            return false
        }
        defer { Glibc.close(placeholder) }
        MHD_suspend_connection(connection)
        let swapped = dup2(placeholder, own) >= 0
        MHD_resume_connection(connection)
        guard swapped else {
            Glibc.close(socket)
            stream.finish()
            return true
        }
        var head = "HTTP/1.1 200 OK\r\n"
        for (name, value) in headers where !name.contains(where: \.isNewline) && !value.contains(where: \.isNewline) {
            head += "\(name): \(value)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        let release = connections.handOver(connection)
        requestStarted()
        stream.whenFinished { [weak self] in
            release()
            self?.requestFinished()
        }
        stream.adopt(socket: socket, head: Array(head.utf8), sockets: sockets)
        return true
    }
}

/// Carries the connection pointer to the worker; valid until MHD completes the request, which cannot
/// happen while the connection is suspended.
private struct ResumableConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
    func resume() { MHD_resume_connection(connection) }
}

let requestCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    let server = context.map { Unmanaged<Server>.fromOpaque($0).takeUnretainedValue() }
    if let server, let connection { server.connections?.requestCompleted(connection) }
    guard let requestContext, let raw = requestContext.pointee else { return }
    server?.requestFinished()
    Unmanaged<PendingRequest>.fromOpaque(raw).release()
    requestContext.pointee = nil
}

/// libmicrohttpd asks after its own per-address limit; a refused connection is closed unanswered.
let acceptPolicy: MHD_AcceptPolicyCallback = { context, address, _ in
    guard let context, let address else { return .YES }
    let connections = Unmanaged<Server>.fromOpaque(context).takeUnretainedValue().connections
    guard connections?.admit(AddressPrefix(address)) ?? true else {
        HTTPMetrics.refusedConnections.add()
        return .NO
    }
    return .YES
}

/// Each connection's socket context is its request-head budget (RequestHead.c); the guard tracks its prefix
/// and head deadline.
let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, socketContext, code in
    guard let context, let connection, let socketContext else { return }
    let server = Unmanaged<Server>.fromOpaque(context).takeUnretainedValue()
    let connections = server.connections
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        server.acceptedConnections.add()
        socketContext.pointee = mv_request_head_create()
        connections?.opened(connection, socket: mv_connection_socket(connection),
                            prefix: mv_client_socket_address(connection).flatMap(AddressPrefix.init))
    default:
        connections?.closed(connection)
        mv_request_head_destroy(socketContext.pointee)
        socketContext.pointee = nil
    }
}

/// libmicrohttpd's diagnostics, one formatted line each (shim.h), to the handler `Server.sendLibraryLog` set.
let forwardLibraryLog: mv_library_log = { line in
    guard let line else { return }
    var text = String(cString: line)
    while text.last?.isNewline == true { text.removeLast() }
    Server.libraryLog.withLock { $0 }?(text)
}

private let streamReader: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let context, let buffer else { return mv_reader_end_with_error() }
    return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

/// libmicrohttpd frees the stream response when the connection is done with it.
private let streamFreed: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(context)
    stream.takeUnretainedValue().finish()
    stream.release()
}

/// `closing`: the server drains, and the connection ends after this answer (a kept-alive client opens its next
/// connection elsewhere).
private func queue(_ response: Response, on connection: OpaquePointer, closing: Bool = false) -> MHD_Result {
    let handle: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        handle = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
    case .stream(let stream):
        _ = mv_set_connection_timeout(connection, Server.streamTimeout)
        stream.attach(connection)
        let context = Unmanaged.passRetained(stream).toOpaque()
        // The block size is a buffer inside each response that 0.9.75's chunked replies do not read into (the reader
        // writes into the connection's pool, as much as fits): 1 KiB of it was idle memory per subscriber.
        handle = MHD_create_response_from_callback(mv_size_unknown(), 128, streamReader, context, streamFreed)
        if handle == nil { Unmanaged<EventStream>.fromOpaque(context).release() }
    case let .file(descriptor, offset, length):
        // MHD owns the descriptor from here and closes it when the response is destroyed.
        handle = MHD_create_response_from_fd_at_offset64(length, descriptor, offset)
        if handle == nil { close(descriptor) }
    case .deferred:
        handle = nil
    }
    guard let handle else { return .NO }
    for (name, value) in response.headers { MHD_add_response_header(handle, name, value) }
    if closing, response.header("Connection") == nil { MHD_add_response_header(handle, "Connection", "close") }
    let result = MHD_queue_response(connection, UInt32(response.status), handle)
    MHD_destroy_response(handle)
    return result
}

private func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ key: String) -> String? {
    MHD_lookup_connection_value(connection, kind, key).map { String(cString: $0) }
}

private final class ValueCollector {
    var values: [String: String] = [:]
    let lowercased: Bool
    init(lowercased: Bool) { self.lowercased = lowercased }
}

private let collectValue: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(context).takeUnretainedValue()
    collector.values[collector.lowercased ? asciiLowercased(key) : String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

/// A header name with its ASCII capitals made small, every other byte kept (invalid UTF-8 repaired as `String(cString:)`
/// does). Names are ASCII tokens: Unicode's lowercasing cost a like a twentieth of its HTTP work, and it
/// made some non-ASCII names into ASCII ones (the Kelvin sign's "K" into "k"), which this one never does.
func asciiLowercased(_ name: UnsafePointer<CChar>) -> String {
    let length = strlen(name)
    return String(unsafeUninitializedCapacity: length) { buffer in
        for index in 0..<length {
            let byte = UInt8(bitPattern: name[index])
            buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        return length
    }
}

private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool = false) -> [String: String] {
    let collector = ValueCollector(lowercased: lowercased)
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(connection, kind, collectValue, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.values
}

private func clientAddress(_ connection: OpaquePointer) -> String {
    let address = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        buffer.initialize(repeating: 0)
        mv_client_address(connection, buffer.baseAddress, buffer.count)
        return String(cString: buffer.baseAddress!)
    }
    // On a dual-stack socket (`--host ::`) IPv4 clients arrive as ::ffff:a.b.c.d: one client, one address.
    return address.hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address
}
