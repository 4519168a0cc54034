//! SpackIt similarity metrics (placeholder, filled below).
