#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>

/* Each connection's memory pool (libmicrohttpd's default: 32 KiB): request line and headers must fit in it
   (past it: 414/431), and an event stream over TLS keeps it (the others are handed over and give it back). 0.9.75 zeroes what
   the read buffer gives back, so every byte of it is resident. 5 KiB holds a head up to MV_REQUEST_HEAD_LIMIT and
   the largest answer head (the monitor page's, 644 bytes) with 256-512 bytes to spare (measured: 4,864 bytes still
   answer, 4,608 close such a connection unanswered; RequestHeadAttackTests sweeps it). 6 KiB was 1 KiB more per
   subscriber. */
#define MV_CONNECTION_MEMORY (5 * 1024)

/* TLS 1.2 and 1.3 only, and in 1.2 only ephemeral ECDHE key exchange (forward secrecy): no static RSA,
   no finite-field DHE. TLS 1.3 suites are all forward secret. */
#define MV_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-DHE-RSA:-DHE-DSS"

/* The callbacks besides the access handler that the server installs, each with its own context. */
struct mv_daemon_callbacks {
    MHD_RequestCompletedCallback completed;
    void *completedContext;
    MHD_AcceptPolicyCallback acceptPolicy;
    void *acceptPolicyContext;
    MHD_NotifyConnectionCallback connectionNotified;
    void *connectionNotifiedContext;
    void *(*requestLineReceived)(void *context, const char *uri, struct MHD_Connection *connection);
};

/* Where libmicrohttpd's own diagnostics go when the server's log takes them (JSON lines); NULL: its standard error. */
typedef void (*mv_library_log)(const char *line);

/* MHD_OPTION_EXTERNAL_LOGGER hands a printf format and a va_list, which Swift cannot format: made one line here.
   Without a log of ours, to standard error as libmicrohttpd's own logger. */
static inline void mv_format_library_log(void *context, const char *format, va_list arguments) {
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    /* The access handler's "no" closes a connection on purpose: an event stream took its socket over, or a refusal
       was written on the socket; neither is an internal error. */
    if (strncmp(line, "Application reported internal error", 35) == 0) return;
    if (context == NULL) {
        fputs(line, stderr);
        return;
    }
    ((mv_library_log)context)(line);
}

/* MHD_start_daemon is variadic and does not import; this wrapper fixes the option list we use. */
static inline struct MHD_Daemon *mv_start_daemon(unsigned int flags, int listenSocket,
                                                 MHD_AccessHandlerCallback handler, void *handlerContext,
                                                 struct mv_daemon_callbacks callbacks,
                                                 unsigned int connectionLimit, unsigned int perAddressLimit,
                                                 unsigned int threadPoolSize, unsigned int connectionTimeout,
                                                 const char *tlsKey, const char *tlsCert, mv_library_log libraryLog) {
    /* The socket is bound by the caller (ListeningSocket), so a bind failure can name its cause. */
    const int tls = tlsKey != NULL && tlsCert != NULL;
    return MHD_start_daemon(flags | (tls ? MHD_USE_TLS : 0), 0, callbacks.acceptPolicy, callbacks.acceptPolicyContext,
                            handler, handlerContext,
                            /* First: libmicrohttpd reads the options in order and logs with the one it has. */
                            MHD_OPTION_EXTERNAL_LOGGER, mv_format_library_log, (void *)libraryLog,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listenSocket,
                            MHD_OPTION_NOTIFY_COMPLETED, callbacks.completed, callbacks.completedContext,
                            MHD_OPTION_NOTIFY_CONNECTION, callbacks.connectionNotified, callbacks.connectionNotifiedContext,
                            MHD_OPTION_URI_LOG_CALLBACK, callbacks.requestLineReceived, NULL,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MV_CONNECTION_MEMORY,
                            MHD_OPTION_THREAD_POOL_SIZE, threadPoolSize,
                            MHD_OPTION_CONNECTION_TIMEOUT, connectionTimeout,
                            /* Options after MHD_OPTION_END are not read: without TLS the list ends here. */
                            tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, tlsKey,
                            MHD_OPTION_HTTPS_MEM_CERT, tlsCert,
                            MHD_OPTION_HTTPS_PRIORITIES, MV_TLS_PRIORITIES,
                            MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic; port 0 needs the port the kernel picked. */
static inline uint16_t mv_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* MHD_get_connection_info is variadic; writes the client's IP as text (empty when unknown). */
static inline void mv_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, out, (socklen_t)size);
    }
}

/* MHD_get_connection_info is variadic; the client's socket address (NULL when unknown). */
static inline const struct sockaddr *mv_client_socket_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* MHD_get_connection_info is variadic; the connection's socket, -1 when unknown. */
static inline int mv_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/* MHD_set_connection_option is variadic; an event stream waits longer between writes than a request may idle. */
static inline int mv_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds) == MHD_YES;
}

/* MHD_SIZE_UNKNOWN is a macro that does not import. */
static inline uint64_t mv_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/* MHD_CONTENT_READER_END_OF_STREAM / _WITH_ERROR are cast macros. */
static inline ssize_t mv_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t mv_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
