from spack.package import *


class SeedMakeHeaderOnlyDeclared(MakefilePackage):
    """Hermeticity check fixture (make-header-only): the build takes eigen and the recipe
    declares it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/make-header-only-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    depends_on("eigen")

    def install(self, spec, prefix):
        make("install", f"PREFIX={prefix}")
