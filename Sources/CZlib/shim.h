#include <zlib.h>

/* deflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)), so it does not import.
   windowBits 15 + 16 asks for a gzip header and trailer instead of a zlib one (zlib.h, deflateInit2). */
static inline int mv_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}
