from spack.package import *


class SeedCmakeSharedLeak(CMakePackage):
    """Hermeticity check fixture (cmake-shared): the build takes zlib-api and the recipe
    does not declare it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/cmake-shared-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

