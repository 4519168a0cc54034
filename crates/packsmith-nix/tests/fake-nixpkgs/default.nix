# A stand-in for nixpkgs with just what the tests use, so the runner's real
# path (generated default.nix → import nixpkgs → callPackage ./package.nix)
# runs here, where nixpkgs itself cannot be fetched.
{
  config ? { },
  overlays ? [ ],
}:
let
  lib = {
    fakeHash = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  };
  callPackage =
    fn: args:
    let
      f = if builtins.isFunction fn then fn else import fn;
    in
    f (builtins.intersectAttrs (builtins.functionArgs f) pkgs // args);
  pkgs = {
    inherit lib callPackage;
    # Nix's built-in fetcher: fixed-output, so a wrong hash is a real mismatch.
    fetchurl =
      { url, hash }:
      derivation {
        name = baseNameOf url;
        system = "builtin";
        builder = "builtin:fetchurl";
        inherit url;
        urls = [ url ];
        outputHashMode = "flat";
        outputHashAlgo = "";
        outputHash = hash;
        unpack = false;
        executable = false;
      };
    # Two packages for the search tests (never built).
    hello =
      derivation {
        name = "hello-2.12";
        system = builtins.currentSystem;
        builder = "/bin/sh";
      }
      // {
        pname = "hello";
        version = "2.12";
        meta.description = "Program that produces a familiar, friendly greeting";
      };
    # Buildable (with /bin/sh in the sandbox), so an input list naming it
    # is built as a real dependency.
    zlib =
      derivation {
        name = "zlib-1.3";
        system = builtins.currentSystem;
        builder = "/bin/sh";
        args = [
          "-c"
          "echo zlib > $out"
        ];
      }
      // {
        pname = "zlib";
        version = "1.3";
        meta.description = "Lossless data-compression library";
      };
    bzip2 = derivation {
      name = "bzip2-1.0.8";
      system = builtins.currentSystem;
      builder = "/bin/sh";
      args = [
        "-c"
        "echo bzip2 > $out"
      ];
    };
    # A derivation whose builder is the host's /bin/sh (in the sandbox).
    shDerivation =
      {
        name,
        script,
        src ? null,
        buildInputs ? [ ],
      }:
      derivation {
        inherit name src buildInputs;
        system = builtins.currentSystem;
        builder = "/bin/sh";
        args = [
          "-c"
          script
        ];
      };
  };
in
pkgs
