#include <stdio.h>
#include <zlib.h>

/* Uses zlib's header only: no library is linked. */
int main(void)
{
    printf("zlib headers %s\n", ZLIB_VERSION);
    return 0;
}
