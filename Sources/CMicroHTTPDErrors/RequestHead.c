/*
 * A request head must leave room in the connection's memory pool (MV_CONNECTION_MEMORY, 5 KiB) for the
 * answer's head. libmicrohttpd 0.9.75 grows its read buffer into the whole pool and stores one 64-byte record
 * per header in it too; measured on this machine (with a 6 KiB pool), heads of 5.0-5.8 KB (fewer with more headers) were parsed,
 * reached the handler (a party was created), and then "Closing connection (failed to create response
 * header)" sent nothing. Its own error path frees the read buffer before building the answer, so the limit is
 * enforced where that path is taken: when a header is stored, through the exported
 * MHD_set_connection_value_n (a PLT call from connection_add_header, like ErrorBodies.c's function).
 * Refusing there makes libmicrohttpd answer 431 with ErrorBodies' JSON body; no handler runs.
 *
 * The same hook drops a Content-Length libmicrohttpd cannot parse (-1, 2^64): 0.9.75 queues its 400/413 for
 * those in parse_connection_headers and then overwrites the connection state, so the head is built twice and
 * the body no longer matches. The access handler answers the recorded flaw instead, closing the connection.
 *
 * Query arguments and cookies cannot be refused that way (see below): one that would take the head past the limit
 * is dropped instead, and the head is marked too large. A head without a single header (HTTP/1.0 allows it)
 * never reaches the refusal either. Such a head reaches the access handler's first call, which answers 431
 * before any work through mv_answer_request_head_too_large: written on the socket, not queued, because a queued
 * answer's head is built in what the request line left of the pool, and a line of about 4.9-5.1 KB leaves
 * nothing (measured: closed unanswered); no application callback can take libmicrohttpd's error path, which
 * frees the read buffer first. A request line longer than the pool gets libmicrohttpd's own 414.
 * libmicrohttpd logs each refusal here as "Not enough memory in pool to allocate header record!" (each answer
 * written on the socket as "Application reported internal error, closing connection.", which shim.h leaves out).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include "RequestHead.h"

/* 0.9.75's struct MHD_HTTP_Header: six pointer-sized fields and an enum (56 bytes), rounded up to the pool's
   16-byte alignment. */
#define MV_HEADER_RECORD_BYTES ((size_t)64)
/* Method, version, spaces and line ends around the URI. */
#define MV_REQUEST_LINE_OVERHEAD ((size_t)24)

struct mv_request_head {
    size_t bytes;
    unsigned int flaw;
};

void *mv_request_head_create(void) { return calloc(1, sizeof(struct mv_request_head)); }

void mv_request_head_destroy(void *head) { free(head); }

static struct mv_request_head *head_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : (struct mv_request_head *)info->socket_context;
}

void *mv_request_line_received(void *context, const char *uri, struct MHD_Connection *connection) {
    (void)context;
    struct mv_request_head *head = head_of(connection);
    if (head != NULL) {
        head->bytes = strlen(uri) + MV_REQUEST_LINE_OVERHEAD;
        head->flaw = 0;
    }
    return NULL;
}

unsigned int mv_request_head_flaw(struct MHD_Connection *connection) {
    struct mv_request_head *head = head_of(connection);
    if (head == NULL) return 0;
    /* Over the limit here: its request line, arguments or cookies took it there (a header is refused while parsed). */
    if (head->bytes > MV_REQUEST_HEAD_LIMIT) return MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
    return head->flaw;
}

void mv_answer_request_head_too_large(struct MHD_Connection *connection) {
    /* The body of HTTPError.requestHeadTooLarge and of libmicrohttpd's own 431 (ErrorBodies.c). */
    static const char body[] = "{\"error\":\"Anfrage zu groß.\",\"code\":\"request_too_big\"}";
    const union MHD_ConnectionInfo *tls = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    const union MHD_ConnectionInfo *socket = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    char date[40];
    time_t now = time(NULL);
    struct tm utc;
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&now, &utc));
    char answer[512];
    int length = snprintf(answer, sizeof answer,
                          "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nDate: %s\r\n%s"
                          "Content-Type: application/json; charset=utf-8\r\nContent-Length: %zu\r\n\r\n%s",
                          date, tls != NULL && tls->tls_session != NULL ? "Strict-Transport-Security: max-age=31536000\r\n" : "",
                          sizeof body - 1, body);
    if (length <= 0 || (size_t)length >= sizeof answer) return;
    /* A fresh connection's send buffer takes these few hundred bytes at once; if not, it closes unanswered. */
    if (tls != NULL && tls->tls_session != NULL) {
        (void)gnutls_record_send((gnutls_session_t)tls->tls_session, answer, (size_t)length);
    } else if (socket != NULL) {
        (void)send(socket->connect_fd, answer, (size_t)length, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

/* What libmicrohttpd's MHD_str_to_uint64_n_ accepts: 1+ decimal digits that fit in 64 bits. */
static unsigned int content_length_flaw(const char *value, size_t size) {
    if (size == 0) return MHD_HTTP_BAD_REQUEST;
    uint64_t number = 0;
    for (size_t index = 0; index < size; index++) {
        if (value[index] < '0' || value[index] > '9') return MHD_HTTP_BAD_REQUEST;
        unsigned int digit = (unsigned int)(value[index] - '0');
        if (number > (UINT64_MAX - digit) / 10) return MHD_HTTP_CONTENT_TOO_LARGE;
        number = number * 10 + digit;
    }
    return 0;
}

typedef enum MHD_Result (*set_value_fn)(struct MHD_Connection *, enum MHD_ValueKind, const char *, size_t,
                                        const char *, size_t);

enum MHD_Result MHD_set_connection_value_n(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                           const char *key, size_t key_size, const char *value, size_t value_size) {
    static set_value_fn original = NULL;
    if (original == NULL) original = (set_value_fn)dlsym(RTLD_NEXT, "MHD_set_connection_value_n");
    if (original == NULL) return MHD_NO;
    struct mv_request_head *head = head_of(connection);
    /* Arguments live in the URI, already counted; both they and cookies still cost a record. */
    if (head != NULL && (kind == MHD_HEADER_KIND || kind == MHD_GET_ARGUMENT_KIND || kind == MHD_COOKIE_KIND)) {
        head->bytes += MV_HEADER_RECORD_BYTES + (kind == MHD_HEADER_KIND ? key_size + value_size + 4 : 0);
        /* libmicrohttpd copies a Cookie header's value into the pool to split it. */
        if (kind == MHD_HEADER_KIND && key_size == 6 && strncasecmp(key, "Cookie", 6) == 0) head->bytes += value_size + 1;
        if (head->bytes > MV_REQUEST_HEAD_LIMIT) {
            /* Only a header is refused: a refused argument or cookie (or one the full pool cannot hold) sends 0.9.75
               down an error path whose caller carries on parsing, so the head is answered twice or never. Dropped,
               it is refused by mv_request_head_flaw. */
            return kind == MHD_HEADER_KIND ? MHD_NO : MHD_YES;
        }
        if (kind == MHD_HEADER_KIND) {
            if (key_size == 14 && strncasecmp(key, "Content-Length", 14) == 0) {
                unsigned int flaw = content_length_flaw(value, value_size);
                if (flaw != 0) {
                    head->flaw = flaw;
                    return MHD_YES;
                }
            }
        }
    }
    return original(connection, kind, key, key_size, value, value_size);
}
