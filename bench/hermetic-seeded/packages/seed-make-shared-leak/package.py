from spack.package import *


class SeedMakeSharedLeak(MakefilePackage):
    """Hermeticity check fixture (make-shared): the build takes zlib-api and the recipe
    does not declare it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/make-shared-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")


    def install(self, spec, prefix):
        make("install", f"PREFIX={prefix}")
