/* SQLite's default VFS with the write-ahead log's appends gathered into one write per commit (see WALBuffer.c). */
#ifndef MV_WAL_BUFFER_H
#define MV_WAL_BUFFER_H

/* Registers the VFS once (not as the default); returns its name for sqlite3_open_v2, or NULL when SQLite has no
   default VFS to wrap or registering failed (callers then open with SQLite's default). */
const char *mv_wal_buffer_vfs(void);

/* How many writes this thread made to WAL files opened through it. */
unsigned long mv_wal_buffer_writes_on_thread(void);

#endif
