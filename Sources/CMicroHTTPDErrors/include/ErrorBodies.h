/* The JSON error bodies for libmicrohttpd's own parser errors (see ErrorBodies.c). */
int mv_error_bodies_installed(void);
