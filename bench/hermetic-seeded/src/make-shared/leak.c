#include <stdio.h>
#include <zlib.h>

/* Links zlib: the leak is a host library in DT_NEEDED (or a static copy). */
int main(void)
{
    printf("zlib %s\n", zlibVersion());
    return 0;
}
