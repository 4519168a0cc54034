from spack.package import *


class SeedMakeStaticDeclared(MakefilePackage):
    """Hermeticity check fixture (make-static): the build takes zlib-api and the recipe
    declares it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/make-static-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    depends_on("zlib-api")

    def install(self, spec, prefix):
        make("install", f"PREFIX={prefix}")
