#include <stdio.h>
#ifdef HAVE_ZLIB_H
#include <zlib.h>
#else
#define ZLIB_VERSION "absent"
#endif

/* Uses zlib's header only: no library is linked. */
int main(void)
{
    printf("zlib headers %s\n", ZLIB_VERSION);
    return 0;
}
