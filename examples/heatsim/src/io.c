/* Compressed checkpoint writer (zlib). */
#include <zlib.h>
int heatsim_write(const char* path, const void* data, unsigned len) {
  gzFile f = gzopen(path, "wb");
  if (!f) return -1;
  int n = gzwrite(f, data, len);
  gzclose(f);
  return n == (int)len ? 0 : -1;
}
