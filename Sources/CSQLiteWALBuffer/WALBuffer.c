/*
 * SQLite writes each WAL frame with two pwrite calls, its 24-byte header and then its page
 * (wal.c, walWriteOneFrame), so a group commit of 15 pages costs 30 system calls: 33 us on this project's
 * 2-core benchmark box, against 10 us for the same bytes in one call. This VFS is SQLite's default one with
 * the WAL file's appends gathered: a write that extends the log is copied into a buffer, and the gathered
 * run goes to the file in one pwrite
 *   - right after the page of the frame that ends a transaction (its header's "database size after commit"
 *     field is not zero; https://sqlite.org/fileformat2.html#walformat), inside the very xWrite call SQLite
 *     makes for it, so a commit returns only once all of its frames are in the operating system (kill -9
 *     loses nothing that was acknowledged), and a failing write fails the commit as before;
 *   - before anything else touches the file (read, sync, truncate, size, file control, close), before a write
 *     that does not extend the run, and when the buffer is full.
 * A write that does not extend the log (SQLite rewriting frames of its open transaction in place, their
 * checksums after a cache spill) goes straight to the file. Frames reach the file before SQLite adds them
 * to the wal-index and publishes its header, so no reader sees a frame that is not written.
 * Database.swift turns cache spills off, and this buffer depends on it: every run the buffer holds then ends
 * with a commit frame, and nothing of a transaction that rolled back can stay behind to be written later over
 * another writer's frames (with spills on and two writers, a review's randomized test corrupted the file).
 * Not for synchronous=FULL with powersafe overwrite off (its padding frame is split at a sync
 * point; the server uses NORMAL). The database file and every other file pass through untouched.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "WALBuffer.h"

/* The unix VFS writes at most 128 KiB - 1 per call (os_unix.c, seekAndWriteFd: nBuf &= 0x1ffff); a longer
   write comes back short and fails with SQLITE_FULL. */
enum { buffer_capacity = 120 * 1024, frame_header_size = 24 };

typedef struct {
    sqlite3_file base;            /* pMethods: buffered_methods */
    sqlite3_file *file;           /* the default VFS's file, in the same allocation right after this struct */
    unsigned char *bytes;         /* the gathered run, allocated at the first write */
    int count;                    /* bytes gathered */
    sqlite3_int64 offset;         /* where the run starts in the file */
    int ends_transaction;         /* a commit frame's header is gathered: its page is the run's last write */
    sqlite3_int64 end;            /* the end of the furthest write since the last one at offset 0 */
} BufferedFile;

static sqlite3_vfs *underlying;
static sqlite3_vfs buffered_vfs;
/* Writes to WAL files this thread made through the default VFS (the tests count a commit's). */
static _Thread_local unsigned long writes_on_thread;

static int write_through(BufferedFile *f, const void *data, int amount, sqlite3_int64 offset) {
    writes_on_thread++;
    return f->file->pMethods->xWrite(f->file, data, amount, offset);
}

static int flush(BufferedFile *f) {
    if (f->count == 0) return SQLITE_OK;
    int count = f->count;
    f->count = 0;
    f->ends_transaction = 0;
    return write_through(f, f->bytes, count, f->offset);
}

static int buffered_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    BufferedFile *f = (BufferedFile *)file;
    int rc;
    /* Read first: a flush for room below forgets it, and this may be the commit frame's page. */
    const int commit_page = f->ends_transaction;
    /* Only frame headers are 24 bytes (the WAL header is 32, a page at least 512): bytes 4-7 hold the
       database's size in pages after the commit, zero on every frame but a transaction's last. */
    const unsigned char *header = data;
    const int commit_header = amount == frame_header_size && (header[4] | header[5] | header[6] | header[7]) != 0;
    const int extends = f->count > 0 ? offset == f->offset + f->count : (offset == 0 || offset >= f->end);
    if (offset == 0) f->end = 0;
    if (offset + amount > f->end) f->end = offset + amount;
    if (f->count > 0 && (!extends || f->count + amount > buffer_capacity)) {
        if ((rc = flush(f)) != SQLITE_OK) return rc;
    }
    if (!extends || amount > buffer_capacity || (!f->bytes && !(f->bytes = malloc(buffer_capacity)))) {
        rc = write_through(f, data, amount, offset);
        /* A commit frame's header written through all the same: its page, if gathered, goes out at once. */
        if (rc == SQLITE_OK) f->ends_transaction = commit_header;
        return rc;
    }
    if (f->count == 0) f->offset = offset;
    memcpy(f->bytes + f->count, data, (size_t)amount);
    f->count += amount;
    if (commit_page) return flush(f);
    f->ends_transaction = commit_header;
    return SQLITE_OK;
}

static int buffered_close(sqlite3_file *file) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    int closed = f->file->pMethods->xClose(f->file);
    free(f->bytes);
    f->bytes = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int buffered_read(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->file->pMethods->xRead(f->file, data, amount, offset);
}

static int buffered_truncate(sqlite3_file *file, sqlite3_int64 size) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->file->pMethods->xTruncate(f->file, size);
}

static int buffered_sync(sqlite3_file *file, int flags) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->file->pMethods->xSync(f->file, flags);
}

static int buffered_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->file->pMethods->xFileSize(f->file, size);
}

static int buffered_file_control(sqlite3_file *file, int op, void *argument) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->file->pMethods->xFileControl(f->file, op, argument);
}

/* The rest pass through. */
static int buffered_lock(sqlite3_file *file, int level) {
    BufferedFile *f = (BufferedFile *)file;
    return f->file->pMethods->xLock(f->file, level);
}
static int buffered_unlock(sqlite3_file *file, int level) {
    BufferedFile *f = (BufferedFile *)file;
    return f->file->pMethods->xUnlock(f->file, level);
}
static int buffered_check_reserved_lock(sqlite3_file *file, int *reserved) {
    BufferedFile *f = (BufferedFile *)file;
    return f->file->pMethods->xCheckReservedLock(f->file, reserved);
}
static int buffered_sector_size(sqlite3_file *file) {
    BufferedFile *f = (BufferedFile *)file;
    return f->file->pMethods->xSectorSize(f->file);
}
static int buffered_device_characteristics(sqlite3_file *file) {
    BufferedFile *f = (BufferedFile *)file;
    return f->file->pMethods->xDeviceCharacteristics(f->file);
}
/* The WAL file has no wal-index and is not memory-mapped: SQLite asks these of the database file. */
static int buffered_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
    BufferedFile *f = (BufferedFile *)file;
    if (f->file->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return f->file->pMethods->xShmMap(f->file, region, size, extend, memory);
}
static int buffered_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
    BufferedFile *f = (BufferedFile *)file;
    if (f->file->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    return f->file->pMethods->xShmLock(f->file, offset, count, flags);
}
static void buffered_shm_barrier(sqlite3_file *file) {
    BufferedFile *f = (BufferedFile *)file;
    if (f->file->pMethods->iVersion >= 2) f->file->pMethods->xShmBarrier(f->file);
}
static int buffered_shm_unmap(sqlite3_file *file, int delete) {
    BufferedFile *f = (BufferedFile *)file;
    if (f->file->pMethods->iVersion < 2) return SQLITE_OK;
    return f->file->pMethods->xShmUnmap(f->file, delete);
}
static int buffered_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    BufferedFile *f = (BufferedFile *)file;
    int rc = flush(f);
    if (rc != SQLITE_OK || f->file->pMethods->iVersion < 3) { *pointer = NULL; return rc; }
    return f->file->pMethods->xFetch(f->file, offset, amount, pointer);
}
static int buffered_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    BufferedFile *f = (BufferedFile *)file;
    if (f->file->pMethods->iVersion < 3) return SQLITE_OK;
    return f->file->pMethods->xUnfetch(f->file, offset, pointer);
}

static const sqlite3_io_methods buffered_methods = {
    3, buffered_close, buffered_read, buffered_write, buffered_truncate, buffered_sync, buffered_file_size,
    buffered_lock, buffered_unlock, buffered_check_reserved_lock, buffered_file_control, buffered_sector_size,
    buffered_device_characteristics, buffered_shm_map, buffered_shm_lock, buffered_shm_barrier, buffered_shm_unmap,
    buffered_fetch, buffered_unfetch,
};

static int buffered_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) return underlying->xOpen(underlying, name, file, flags, out_flags);
    BufferedFile *f = (BufferedFile *)file;
    memset(f, 0, sizeof *f);
    f->file = (sqlite3_file *)(f + 1);
    int rc = underlying->xOpen(underlying, name, f->file, flags, out_flags);
    /* SQLite calls xClose only on a file whose pMethods is set: after a failed open, neither is. */
    if (rc == SQLITE_OK && f->file->pMethods) f->base.pMethods = &buffered_methods;
    return rc;
}

static int buffered_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return underlying->xDelete(underlying, name, sync_directory);
}
static int buffered_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return underlying->xAccess(underlying, name, flags, result);
}
static int buffered_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return underlying->xFullPathname(underlying, name, size, out);
}
static void *buffered_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return underlying->xDlOpen(underlying, name);
}
static void buffered_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    underlying->xDlError(underlying, size, message);
}
static void (*buffered_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return underlying->xDlSym(underlying, handle, symbol);
}
static void buffered_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    underlying->xDlClose(underlying, handle);
}
static int buffered_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return underlying->xRandomness(underlying, size, out);
}
static int buffered_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return underlying->xSleep(underlying, microseconds);
}
static int buffered_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return underlying->xCurrentTime(underlying, now);
}
static int buffered_last_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return underlying->xGetLastError(underlying, size, message);
}
static int buffered_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return underlying->xCurrentTimeInt64(underlying, now);
}

static pthread_once_t registration = PTHREAD_ONCE_INIT;
static const char *registered_name;

static void register_vfs(void) {
    underlying = sqlite3_vfs_find(NULL);
    if (!underlying || underlying->iVersion < 2) return;
    buffered_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(BufferedFile) + underlying->szOsFile,
        .mxPathname = underlying->mxPathname,
        .zName = "musicvoting-wal-buffer",
        .xOpen = buffered_open, .xDelete = buffered_delete, .xAccess = buffered_access,
        .xFullPathname = buffered_full_pathname, .xDlOpen = buffered_dl_open, .xDlError = buffered_dl_error,
        .xDlSym = buffered_dl_sym, .xDlClose = buffered_dl_close, .xRandomness = buffered_randomness,
        .xSleep = buffered_sleep, .xCurrentTime = buffered_current_time, .xGetLastError = buffered_last_error,
        .xCurrentTimeInt64 = buffered_current_time_int64,
    };
    if (sqlite3_vfs_register(&buffered_vfs, 0) == SQLITE_OK) registered_name = buffered_vfs.zName;
}

unsigned long mv_wal_buffer_writes_on_thread(void) { return writes_on_thread; }

const char *mv_wal_buffer_vfs(void) {
    pthread_once(&registration, register_vfs);
    return registered_name;
}
