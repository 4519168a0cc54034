from spack.package import *


class SeedCmakeHeaderOnlyLeak(CMakePackage):
    """Hermeticity check fixture (cmake-header-only): the build takes eigen and the recipe
    does not declare it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/cmake-header-only-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

