/* The request head's budget and Content-Length check, enforced while libmicrohttpd parses (see RequestHead.c). */
#include <stddef.h>

struct MHD_Connection;

/* Bytes of a request head the connection's memory pool holds for us (see RequestHead.c for the arithmetic). */
#define MV_REQUEST_HEAD_LIMIT ((size_t)4096)

/* Per-connection state: the socket context from MHD_CONNECTION_NOTIFY_STARTED to _CLOSED. */
void *mv_request_head_create(void);
void mv_request_head_destroy(void *head);

/* MHD_OPTION_URI_LOG_CALLBACK: a request line arrived, a new head starts. Returns NULL (no request context). */
void *mv_request_line_received(void *context, const char *uri, struct MHD_Connection *connection);

/* 0, or the status the request deserves before any work: 431 for a head over the limit that no header took
   there (its request line, arguments or cookies), 400 or 413 for a Content-Length that was dropped (malformed,
   too large). */
unsigned int mv_request_head_flaw(struct MHD_Connection *connection);

/* Writes the 431 answer with the JSON error shape straight to the client, in the clear or over TLS; the access
   handler then returns MHD_NO, which closes the connection (see RequestHead.c for why not a queued response). */
void mv_answer_request_head_too_large(struct MHD_Connection *connection);
