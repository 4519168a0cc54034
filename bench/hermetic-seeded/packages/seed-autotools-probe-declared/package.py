from spack.package import *


class SeedAutotoolsProbeDeclared(AutotoolsPackage):
    """Hermeticity check fixture (autotools-probe): the build takes zlib-api and the recipe
    declares it."""

    homepage = "https://example.org/packsmith/hermetic-seeded"
    url = "https://example.org/packsmith/hermetic-seeded/autotools-probe-1.0.tar.gz"

    license("Apache-2.0")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")
    depends_on("zlib-api")
