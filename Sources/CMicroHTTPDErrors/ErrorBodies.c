/*
 * libmicrohttpd 0.9.75 answers requests its parser rejects (request line or headers too large: 414/431,
 * malformed request, bad Content-Length or chunking: 400, unsupported HTTP version: 505) by itself, before
 * any application callback, with fixed HTML bodies; it offers no option to replace them. SPEC R26 wants
 * every error body to be {"error": ...}. Its internal error path creates that body through the exported
 * MHD_create_response_from_buffer (a PLT call, so the executable's definition of the same name wins) with
 * MHD_RESPMEM_PERSISTENT and a static "<html>" string. This definition swaps exactly those bodies for the
 * JSON error shape and passes every other call through to libmicrohttpd's own function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "ErrorBodies.h"

typedef struct MHD_Response *(*create_from_buffer_fn)(size_t, void *, enum MHD_ResponseMemoryMode);

static const char *json_body_for(const char *html, size_t size) {
    static const struct { const char *title; const char *json; } bodies[] = {
        { "<html><head><title>Request too big", "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}" },
        { "<html><head><title>Request content too large", "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}" },
        { "<html><head><title>&quot;Host:&quot;", "{\"error\":\"Host-Header fehlt.\",\"code\":\"missing_host\"}" },
        { "<html><head><title>Requested HTTP version", "{\"error\":\"HTTP-Version nicht unterstützt.\",\"code\":\"http_version\"}" },
        { "<html><head><title>Internal server error", "{\"error\":\"Interner Fehler.\",\"code\":\"internal\"}" },
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
        return response;
    }
    return original(size, buffer, mode);
}

int mv_error_bodies_installed(void) { return 1; }
