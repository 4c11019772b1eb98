#include <png.h>
#include <string.h>

/* PNG_IMAGE_VERSION and the simplified-API size macros do not import; the simplified API needs no setjmp. */
static inline int mv_png_write_gray8(unsigned char *out, size_t *outSize, const unsigned char *pixels,
                                     unsigned width, unsigned height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_GRAY;
    png_alloc_size_t size = *outSize;
    int ok = png_image_write_to_memory(&image, out, &size, 0, pixels, (png_int_32)width, NULL);
    *outSize = (size_t)size;
    png_image_free(&image);
    return ok;
}

/* 8-bit RGB, same simplified API (covers the iOS app can decode: it cannot show SVG). */
static inline int mv_png_write_rgb8(unsigned char *out, size_t *outSize, const unsigned char *pixels,
                                    unsigned width, unsigned height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGB;
    png_alloc_size_t size = *outSize;
    int ok = png_image_write_to_memory(&image, out, &size, 0, pixels, (png_int_32)(width * 3), NULL);
    *outSize = (size_t)size;
    png_image_free(&image);
    return ok;
}
