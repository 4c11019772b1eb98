#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy the bound bytes. */
static inline int mv_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text) {
    return sqlite3_bind_text(statement, index, text, -1, SQLITE_TRANSIENT);
}

/* sqlite3_config is variadic. Before SQLite's first use only (SQLITE_MISUSE after, changing nothing): no memory
   statistics, which took a global mutex on every allocation of both connections (3 % of a like's time).
   Nothing here reads them (sqlite3_status, a soft heap limit). */
static inline int mv_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
