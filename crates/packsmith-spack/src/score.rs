//! SpackIt similarity metrics S_d and S_v (not yet written).
