/*
 * A power cut under the store's SQLite settings, many times over.
 *
 * A kill -9 loses no acknowledged commit because a commit's frames are in the operating system before it returns
 * (RestartTests kills the server at random points to show it). A power cut is harsher: the disk keeps only what was
 * synced. This program puts a VFS under SQLite that copies the database file and the log aside each time SQLite
 * syncs one of them; a cut at a random commit opens those copies, which is the disk as a power cut leaves it when
 * every write after a file's last sync is lost. With synchronous=FULL (the server's setting) a commit returns only
 * once the log is synced, so after each cut:
 *   - PRAGMA integrity_check is "ok";
 *   - the rows present are whole transactions, oldest first (ids 1…n without a gap, each row's bytes as written);
 *   - every acknowledged transaction is there, and nothing else.
 * The writer uses the server's settings (WAL, synchronous=FULL, cache spills off) and checkpoints every 30 pages,
 * so runs cross many checkpoints and restarts of the log; some transactions span many pages.
 *
 * Usage: power-cut FOLDER [RUNS] [SEED]. Prints one line per run; exits 1 on the first broken promise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

/* The VFS that keeps each synced file's bytes ("<file>-synced"). */

typedef struct {
    sqlite3_file base;
    sqlite3_file *real;   /* the unix VFS's file, right after this struct */
    char path[1024];
    int keep;             /* the database file or its log: copied aside at each sync */
    sqlite3_int64 dirty_low, dirty_high; /* the span written since the last sync */
} CutFile;

static sqlite3_vfs *unix_vfs;
static sqlite3_vfs cut_vfs;
static long acknowledged_rows;          /* rows of transactions whose COMMIT returned */
static long log_syncs;                  /* syncs of the log in this run */
static int copy_failed;

/* The bytes written since the last sync go to the copy, which then takes the file's size: the copy is the file as
   of its last sync (every file starts empty in a run, so every byte of it was written through here). */
static int copy_aside(CutFile *f) {
    sqlite3_int64 size = 0;
    if (f->real->pMethods->xFileSize(f->real, &size) != SQLITE_OK) return SQLITE_IOERR;
    char target[1100];
    snprintf(target, sizeof target, "%s-synced", f->path);
    int out = open(target, O_RDWR | O_CREAT, 0600), rc = out >= 0 ? SQLITE_OK : SQLITE_IOERR;
    sqlite3_int64 high = f->dirty_high < size ? f->dirty_high : size;
    if (rc == SQLITE_OK && f->dirty_low < high) {
        size_t length = (size_t)(high - f->dirty_low);
        unsigned char *bytes = malloc(length);
        if (!bytes) rc = SQLITE_NOMEM;
        else if (f->real->pMethods->xRead(f->real, bytes, (int)length, f->dirty_low) != SQLITE_OK
                 || pwrite(out, bytes, length, f->dirty_low) != (ssize_t)length) rc = SQLITE_IOERR;
        free(bytes);
    }
    if (rc == SQLITE_OK && ftruncate(out, size) != 0) rc = SQLITE_IOERR;
    if (out >= 0 && close(out) != 0) rc = SQLITE_IOERR;
    f->dirty_low = INT64_MAX;
    f->dirty_high = 0;
    if (rc != SQLITE_OK) copy_failed = 1;
    return rc;
}

#define REAL(file) (((CutFile *)(file))->real)
static int cut_close(sqlite3_file *file) { return REAL(file)->pMethods->xClose(REAL(file)); }
static int cut_read(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    return REAL(file)->pMethods->xRead(REAL(file), data, amount, offset);
}
static int cut_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    CutFile *f = (CutFile *)file;
    if (offset < f->dirty_low) f->dirty_low = offset;
    if (offset + amount > f->dirty_high) f->dirty_high = offset + amount;
    return f->real->pMethods->xWrite(f->real, data, amount, offset);
}
static int cut_truncate(sqlite3_file *file, sqlite3_int64 size) { return REAL(file)->pMethods->xTruncate(REAL(file), size); }
/* The copy is this simulation's disk: the real file needs no sync of its own. */
static int cut_sync(sqlite3_file *file, int flags) {
    CutFile *f = (CutFile *)file;
    if (!f->keep) return f->real->pMethods->xSync(f->real, flags);
    size_t length = strlen(f->path);
    if (length > 4 && strcmp(f->path + length - 4, "-wal") == 0) log_syncs++;
    return copy_aside(f);
}
static int cut_file_size(sqlite3_file *file, sqlite3_int64 *size) { return REAL(file)->pMethods->xFileSize(REAL(file), size); }
static int cut_lock(sqlite3_file *file, int level) { return REAL(file)->pMethods->xLock(REAL(file), level); }
static int cut_unlock(sqlite3_file *file, int level) { return REAL(file)->pMethods->xUnlock(REAL(file), level); }
static int cut_check_reserved_lock(sqlite3_file *file, int *reserved) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), reserved);
}
static int cut_file_control(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}
static int cut_sector_size(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int cut_device_characteristics(sqlite3_file *file) { return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file)); }
static int cut_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, memory);
}
static int cut_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, count, flags);
}
static void cut_shm_barrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int cut_shm_unmap(sqlite3_file *file, int delete) { return REAL(file)->pMethods->xShmUnmap(REAL(file), delete); }
/* No memory-mapped reads: every read goes through xRead, as the server's files do (mmap_size is 0). */
static int cut_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    (void)file; (void)offset; (void)amount;
    *pointer = NULL;
    return SQLITE_OK;
}
static int cut_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    (void)file; (void)offset; (void)pointer;
    return SQLITE_OK;
}

static const sqlite3_io_methods cut_methods = {
    3, cut_close, cut_read, cut_write, cut_truncate, cut_sync, cut_file_size, cut_lock, cut_unlock,
    cut_check_reserved_lock, cut_file_control, cut_sector_size, cut_device_characteristics, cut_shm_map,
    cut_shm_lock, cut_shm_barrier, cut_shm_unmap, cut_fetch, cut_unfetch,
};

static int cut_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    CutFile *f = (CutFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)(f + 1);
    f->keep = (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) != 0 && name != NULL;
    f->dirty_low = INT64_MAX;
    if (name) snprintf(f->path, sizeof f->path, "%s", name);
    int rc = unix_vfs->xOpen(unix_vfs, name, f->real, flags, out_flags);
    if (rc == SQLITE_OK && f->real->pMethods) f->base.pMethods = &cut_methods;
    return rc;
}

static int cut_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return unix_vfs->xDelete(unix_vfs, name, sync_directory);
}
static int cut_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return unix_vfs->xAccess(unix_vfs, name, flags, result);
}
static int cut_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return unix_vfs->xFullPathname(unix_vfs, name, size, out);
}
static int cut_randomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return unix_vfs->xRandomness(unix_vfs, size, out); }
static int cut_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return unix_vfs->xSleep(unix_vfs, microseconds); }
static int cut_current_time(sqlite3_vfs *vfs, double *now) { (void)vfs; return unix_vfs->xCurrentTime(unix_vfs, now); }
static int cut_last_error(sqlite3_vfs *vfs, int size, char *message) { (void)vfs; return unix_vfs->xGetLastError(unix_vfs, size, message); }
static int cut_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return unix_vfs->xCurrentTimeInt64(unix_vfs, now);
}

/* SQLite's unix VFS underneath, registered as the default. */
static int register_cut_vfs(void) {
    unix_vfs = sqlite3_vfs_find("unix");
    if (!unix_vfs) return 0;
    cut_vfs = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(CutFile) + unix_vfs->szOsFile, .mxPathname = unix_vfs->mxPathname,
        .zName = "power-cut", .xOpen = cut_open, .xDelete = cut_delete, .xAccess = cut_access,
        .xFullPathname = cut_full_pathname, .xRandomness = cut_randomness, .xSleep = cut_sleep,
        .xCurrentTime = cut_current_time, .xGetLastError = cut_last_error, .xCurrentTimeInt64 = cut_current_time_int64,
    };
    return sqlite3_vfs_register(&cut_vfs, 1) == SQLITE_OK;
}

/* One run: bursts of transactions, a cut after a random one, the copies checked. */

static uint64_t random_state;
static uint64_t next_random(void) {
    uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int fail(const char *what, const char *detail) {
    printf("FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 0;
}

static int exec(sqlite3 *db, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK) return 1;
    fail(sql, message);
    sqlite3_free(message);
    return 0;
}

/* Copies "<path>-synced" to `target`, or removes `target` when the file was never synced. */
static int restore(const char *path, const char *target) {
    char source[1100];
    snprintf(source, sizeof source, "%s-synced", path);
    remove(target);
    FILE *in = fopen(source, "rb");
    if (!in) return errno == ENOENT;
    FILE *out = fopen(target, "wb");
    if (!out) { fclose(in); return 0; }
    char buffer[65536];
    size_t n;
    int ok = 1;
    while ((n = fread(buffer, 1, sizeof buffer, in)) > 0) ok &= fwrite(buffer, 1, n, out) == n;
    fclose(in);
    return fclose(out) == 0 && ok;
}

/* A row's bytes follow from its id: a torn or misplaced page shows as a row whose bytes are not its own. */
static const char *row_check =
    "SELECT count(*), coalesce(max(id), 0), "
    "coalesce(sum(length(body) != 200 + id % 7 * 900 OR substr(body, 1, 8) != printf('%08d', id) "
    "OR substr(body, 9) != substr(hex(zeroblob(100 + id % 7 * 450)), 1, 192 + id % 7 * 900)), 0) "
    "FROM rows";

static int one_run(const char *folder, int run) {
    char path[600], image[700];
    snprintf(path, sizeof path, "%s/run-%d.sqlite", folder, run);
    snprintf(image, sizeof image, "%s/run-%d-cut.sqlite", folder, run);
    acknowledged_rows = 0;
    log_syncs = 0;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        return fail("open", sqlite3_errmsg(db));
    if (!exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_spill=OFF; "
                  "PRAGMA wal_autocheckpoint=30; CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL); "
                  "PRAGMA wal_checkpoint(FULL)")) return 0;
    sqlite3_stmt *insert = NULL;
    /* A row's text: its id in eight digits, then zeros, 200 to 5,600 bytes long (some rows span pages). */
    sqlite3_prepare_v2(db, "INSERT INTO rows (id, body) VALUES (?1, "
                           "printf('%08d', ?1) || substr(hex(zeroblob(100 + ?1 % 7 * 450)), 1, 192 + ?1 % 7 * 900))",
                       -1, &insert, NULL);
    long cut_after = 20 + (long)(next_random() % 400), transactions = 0;
    while (transactions < cut_after) {
        /* Mostly a few rows; one in twenty about 40 pages. */
        long rows = next_random() % 20 == 0 ? 40 + (long)(next_random() % 20) : 1 + (long)(next_random() % 4);
        if (!exec(db, "BEGIN")) return 0;
        for (long i = 0; i < rows; i++) {
            sqlite3_bind_int64(insert, 1, acknowledged_rows + i + 1);
            if (sqlite3_step(insert) != SQLITE_DONE) return fail("insert", sqlite3_errmsg(db));
            sqlite3_reset(insert);
        }
        if (!exec(db, "COMMIT")) return 0;
        acknowledged_rows += rows;
        transactions++;
    }
    /* The cut: the disk as its last syncs left it. The writer is abandoned, as power loss abandons it. */
    char wal[700], image_wal[800];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(image_wal, sizeof image_wal, "%s-wal", image);
    if (copy_failed || !restore(path, image) || !restore(wal, image_wal)) return fail("the copies of the synced files", NULL);
    sqlite3 *cut = NULL;
    if (sqlite3_open_v2(image, &cut, SQLITE_OPEN_READWRITE, "unix") != SQLITE_OK) return fail("open the cut", sqlite3_errmsg(cut));
    sqlite3_stmt *statement = NULL;
    sqlite3_prepare_v2(cut, "PRAGMA integrity_check", -1, &statement, NULL);
    int whole = sqlite3_step(statement) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(statement, 0), "ok") == 0;
    sqlite3_finalize(statement);
    if (!whole) return fail("integrity_check after the cut", sqlite3_errmsg(cut));
    if (sqlite3_prepare_v2(cut, row_check, -1, &statement, NULL) != SQLITE_OK || sqlite3_step(statement) != SQLITE_ROW)
        return fail("read the cut", sqlite3_errmsg(cut));
    long count = sqlite3_column_int64(statement, 0), highest = sqlite3_column_int64(statement, 1);
    long wrong = sqlite3_column_int64(statement, 2);
    sqlite3_finalize(statement);
    printf("run %d: %ld transactions, %ld rows acknowledged, %ld syncs of the log, %ld rows after the cut\n",
           run, transactions, acknowledged_rows, log_syncs, count);
    char detail[200];
    snprintf(detail, sizeof detail, "%ld rows, highest id %ld, %ld not their own bytes, %ld acknowledged", count, highest,
             wrong, acknowledged_rows);
    if (count != highest || wrong != 0) return fail("the rows after the cut are not whole transactions in order", detail);
    if (count < acknowledged_rows) return fail("an acknowledged transaction is missing", detail);
    if (count > acknowledged_rows) return fail("more rows than were written", detail);
    sqlite3_close(cut);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: power-cut FOLDER [RUNS] [SEED]\n"); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 30;
    random_state = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    if (!register_cut_vfs()) { fprintf(stderr, "cannot register the VFS\n"); return 2; }
    for (int run = 0; run < runs; run++) {
        if (!one_run(argv[1], run)) return 1;
    }
    printf("%d cuts: every one whole, with every acknowledged transaction\n", runs);
    return 0;
}
