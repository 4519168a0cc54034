//! Reader for Spack `package.py` recipes (not yet written).
