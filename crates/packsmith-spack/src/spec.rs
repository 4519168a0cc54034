//! Spack spec grammar (not yet written).
