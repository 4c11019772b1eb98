/*
 * Build tool of the FoldTable plugin: asks the system ICU, one code point at a time, what the
 * blacklist folds turn it into, and writes that table as one Swift source file for PartyCore. It runs on the
 * build machine only; the server carries the table and never links ICU.
 *
 * Two folds per code point, each settled (repeated until nothing changes, so the table is idempotent):
 * - caseless: ICU's full case folding, then the TR39 skeleton (uspoof_getSkeleton, ICU's copy of
 *   confusables.txt), case-folded again and compatibility-decomposed (NFKD). Equal for every case of a letter.
 * - as written: the skeleton of the code point as it is, then the caseless fold. Catches capitals whose
 *   lowercase looks like something else (Greek capital Mu is "M", its lowercase is not "m").
 * Only code points that PartyCore can meet (NFKD-stable, assigned, not private use) and that some fold changes
 * are written, one line each: "POINT CASELESS...|AS-WRITTEN...", in hex; the "|" part only when they differ.
 * Usage: FoldTableGenerator OUTPUT
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>

enum { capacity = 256, rounds = 8 };

typedef struct {
    char *bytes;
    size_t length, size;
} Text;

static void append(Text *text, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void append(Text *text, const char *format, ...) {
    for (;;) {
        va_list arguments;
        va_start(arguments, format);
        int needed = vsnprintf(text->bytes + text->length, text->size - text->length, format, arguments);
        va_end(arguments);
        if (needed < 0) abort();
        if ((size_t)needed < text->size - text->length) {
            text->length += (size_t)needed;
            return;
        }
        text->size = text->size * 2 + (size_t)needed;
        text->bytes = realloc(text->bytes, text->size);
        if (text->bytes == NULL) abort();
    }
}

static void fail(const char *step, UErrorCode status) {
    fprintf(stderr, "FoldTableGenerator: %s: %s\n", step, u_errorName(status));
    exit(1);
}

static const USpoofChecker *checker;
static const UNormalizer2 *nfkd;

/* One round: (fold case unless as written), take the skeleton, fold case again, decompose. Returns the length. */
static int32_t fold_round(int caseless, const UChar *source, int32_t length, UChar *result) {
    UChar folded[capacity], skeleton[capacity], refolded[capacity];
    UErrorCode status = U_ZERO_ERROR;
    int32_t count = length;
    if (caseless) {
        count = u_strFoldCase(folded, capacity, source, length, U_FOLD_CASE_DEFAULT, &status);
        if (U_FAILURE(status)) fail("u_strFoldCase", status);
    } else {
        memcpy(folded, source, sizeof(UChar) * (size_t)length);
    }
    /* "type: The type of skeleton, 0 for the default" (uspoof.h; the single-script flag is deprecated). */
    count = uspoof_getSkeleton(checker, 0, folded, count, skeleton, capacity, &status);
    if (U_FAILURE(status)) fail("uspoof_getSkeleton", status);
    count = u_strFoldCase(refolded, capacity, skeleton, count, U_FOLD_CASE_DEFAULT, &status);
    if (U_FAILURE(status)) fail("u_strFoldCase", status);
    count = unorm2_normalize(nfkd, refolded, count, result, capacity, &status);
    if (U_FAILURE(status)) fail("unorm2_normalize", status);
    return count;
}

/* One as-written round (when asked), then caseless rounds until the text stops changing. */
static int32_t settle(UChar32 point, int as_written, UChar *result) {
    UChar current[capacity], next[capacity];
    int32_t length = 0;
    U16_APPEND_UNSAFE(current, length, point);
    if (as_written) {
        length = fold_round(0, current, length, next);
        memcpy(current, next, sizeof(UChar) * (size_t)length);
    }
    for (int round = 0; round < rounds; round++) {
        int32_t next_length = fold_round(1, current, length, next);
        int same = next_length == length && memcmp(next, current, sizeof(UChar) * (size_t)length) == 0;
        memcpy(current, next, sizeof(UChar) * (size_t)next_length);
        length = next_length;
        if (same) {
            memcpy(result, current, sizeof(UChar) * (size_t)length);
            return length;
        }
    }
    fprintf(stderr, "FoldTableGenerator: U+%04X does not settle\n", (unsigned)point);
    exit(1);
}

static void append_points(Text *out, const UChar *text, int32_t length) {
    for (int32_t index = 0; index < length;) {
        UChar32 point;
        U16_NEXT(text, index, length, point);
        append(out, " %X", (unsigned)point);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: FoldTableGenerator OUTPUT\n");
        return 2;
    }
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker *spoof = uspoof_open(&status);
    if (U_FAILURE(status)) fail("uspoof_open", status);
    checker = spoof;
    nfkd = unorm2_getNFKDInstance(&status);
    if (U_FAILURE(status)) fail("unorm2_getNFKDInstance", status);

    UVersionInfo version;
    char icu[U_MAX_VERSION_STRING_LENGTH], unicode[U_MAX_VERSION_STRING_LENGTH];
    u_getVersion(version);
    u_versionToString(version, icu);
    u_getUnicodeVersion(version);
    u_versionToString(version, unicode);

    Text out = {malloc(1 << 16), 0, 1 << 16};
    if (out.bytes == NULL) abort();
    append(&out, "// Generated at build time by FoldTableGenerator from ICU %s (Unicode %s); do not edit.\n\n", icu, unicode);
    append(&out, "extension FoldTable {\n");
    append(&out, "    /// One line per code point, in hex: the point, its caseless fold, and after \"|\" its as-written fold\n");
    append(&out, "    /// when that differs.\n");
    append(&out, "    static let packed = #\"\"\"\n");
    int entries = 0;
    for (UChar32 point = 0; point <= 0x10FFFF; point++) {
        int8_t type = u_charType(point);
        if (U_IS_SURROGATE(point) || type == U_UNASSIGNED || type == U_PRIVATE_USE_CHAR) continue;
        UChar source[2], caseless[capacity], written[capacity];
        int32_t length = 0;
        U16_APPEND_UNSAFE(source, length, point);
        status = U_ZERO_ERROR;
        if (!unorm2_isNormalized(nfkd, source, length, &status)) continue;
        int32_t caseless_length = settle(point, 0, caseless);
        int32_t written_length = settle(point, 1, written);
        int caseless_same = caseless_length == length && memcmp(caseless, source, sizeof(UChar) * (size_t)length) == 0;
        int written_same = written_length == caseless_length
            && memcmp(written, caseless, sizeof(UChar) * (size_t)written_length) == 0;
        if (caseless_same && written_same) continue;
        append(&out, "%X", (unsigned)point);
        append_points(&out, caseless, caseless_length);
        if (!written_same) {
            append(&out, " |");
            append_points(&out, written, written_length);
        }
        append(&out, "\n");
        entries++;
    }
    append(&out, "\"\"\"#\n\n    static let entryCount = %d\n}\n", entries);
    uspoof_close(spoof);
    /* Unchanged output keeps its timestamp, so PartyCore is not recompiled for nothing. */
    FILE *existing = fopen(argv[1], "rb");
    if (existing != NULL) {
        char *old = malloc(out.length + 1);
        size_t got = old == NULL ? 0 : fread(old, 1, out.length + 1, existing);
        fclose(existing);
        int unchanged = got == out.length && memcmp(old, out.bytes, out.length) == 0;
        free(old);
        if (unchanged) return 0;
    }
    FILE *file = fopen(argv[1], "wb");
    if (file == NULL || fwrite(out.bytes, 1, out.length, file) != out.length || fclose(file) != 0) {
        fprintf(stderr, "FoldTableGenerator: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
