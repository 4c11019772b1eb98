#include <libpq-fe.h>
#include <postgres_ext.h>

/* PG_DIAG_* are character-literal macros Swift imports with the wrong type: name the two fields we read. */
static inline const char *mv_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

static inline const char *mv_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
