/*
 * libmicrohttpd 0.9.75 answers requests its parser rejects (request line or headers too large: 414/431,
 * malformed request, bad Content-Length or chunking: 400, unsupported HTTP version: 505) by itself, before
 * any application callback, with fixed HTML bodies; it offers no option to replace them. SPEC R26 wants
 * every error body to be {"error": ...}. Its internal error path creates that body through the exported
 * MHD_create_response_from_buffer (a PLT call, so the executable's definition of the same name wins) with
 * MHD_RESPMEM_PERSISTENT and a static "<html>" string. This definition swaps exactly those bodies for the
 * JSON error shape and passes every other call through to libmicrohttpd's own function.
 *
 * MHD_queue_response is a PLT call from the same error path, so it is replaced too: its one 500 ("Internal
 * server error", when the read buffer is full while the application has not taken the body) can only mean,
 * with our handler taking every byte, a chunk-size line longer than the buffer (a 6 KB chunk extension): the
 * request is too large, 413. And every response on a TLS connection, ours and the library's, gets HSTS here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "ErrorBodies.h"

typedef struct MHD_Response *(*create_from_buffer_fn)(size_t, void *, enum MHD_ResponseMemoryMode);
typedef enum MHD_Result (*queue_response_fn)(struct MHD_Connection *, unsigned int, struct MHD_Response *);

static const char internal_error_title[] = "<html><head><title>Internal server error";
/* transmit_error_response creates and queues its response on one thread, one right after the other. */
static __thread struct MHD_Response *library_internal_error = NULL;

static const char *json_body_for(const char *html, size_t size) {
    static const struct { const char *title; const char *json; } bodies[] = {
        { "<html><head><title>Request too big", "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}" },
        { "<html><head><title>Request content too large", "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}" },
        { "<html><head><title>&quot;Host:&quot;", "{\"error\":\"Host-Header fehlt.\",\"code\":\"missing_host\"}" },
        { "<html><head><title>Requested HTTP version", "{\"error\":\"HTTP-Version nicht unterstützt.\",\"code\":\"http_version\"}" },
        { "<html><head><title>Internal server error", "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}" },
    };
    for (size_t index = 0; index < sizeof bodies / sizeof bodies[0]; index++) {
        size_t length = strlen(bodies[index].title);
        if (size >= length && memcmp(html, bodies[index].title, length) == 0) return bodies[index].json;
    }
    return "{\"error\":\"Ungültige Anfrage.\",\"code\":\"malformed_request\"}";
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    static create_from_buffer_fn original = NULL;
    if (original == NULL) original = (create_from_buffer_fn)dlsym(RTLD_NEXT, "MHD_create_response_from_buffer");
    if (original == NULL) return NULL;
    static const char html[] = "<html>";
    if (mode == MHD_RESPMEM_PERSISTENT && buffer != NULL && size >= sizeof html - 1 && memcmp(buffer, html, sizeof html - 1) == 0) {
        const char *json = json_body_for((const char *)buffer, size);
        struct MHD_Response *response = original(strlen(json), (void *)json, MHD_RESPMEM_PERSISTENT);
        if (response != NULL) MHD_add_response_header(response, "Content-Type", "application/json; charset=utf-8");
        bool internal = size >= sizeof internal_error_title - 1
            && memcmp(buffer, internal_error_title, sizeof internal_error_title - 1) == 0;
        library_internal_error = internal ? response : NULL;
        return response;
    }
    return original(size, buffer, mode);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    static queue_response_fn original = NULL;
    if (original == NULL) original = (queue_response_fn)dlsym(RTLD_NEXT, "MHD_queue_response");
    if (original == NULL) return MHD_NO;
    if (response != NULL && response == library_internal_error && status == MHD_HTTP_INTERNAL_SERVER_ERROR) {
        status = MHD_HTTP_CONTENT_TOO_LARGE;
    }
    library_internal_error = NULL;
    /* A year, without includeSubDomains: the server often runs on a bare IP or a .local name whose
       siblings it does not speak for. Never on plain HTTP, where browsers ignore it anyway (RFC 6797 8.1). */
    if (response != NULL && MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION) != NULL) {
        MHD_add_response_header(response, "Strict-Transport-Security", "max-age=31536000");
    }
    return original(connection, status, response);
}

int mv_error_bodies_installed(void) { return 1; }
