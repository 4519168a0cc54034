//! Typed data a backend hands the loop and later reads back itself: which
//! of its stages a [`StageSpec`](crate::StageSpec) is, what exactly a
//! [`Failure`](crate::Failure) was (the Spack diagnosis with its class and
//! names, the Nix hash mismatch). The loop clones and carries it but never
//! looks inside, so a backend's repair rules work on its own types instead
//! of parsing back the stage name or the prose written for the model.
//!
//! Why an opaque `Arc<dyn Any + Send + Sync>` and not an associated type
//! `Ecosystem::Detail`: the loop drives `&dyn Ecosystem`, and failures and
//! stage specs travel through backend-neutral serde data (events, history,
//! snapshots, `report.json`). An associated type would make all of those
//! generic and rule out the trait object; the only price here is one
//! downcast in the backend, which can fail only if a value from another
//! backend is passed in (an internal error). `Arc`, not `Box`, because
//! failures are cloned into history and snapshots.
//!
//! The detail lives in memory only: serde skips it, so a failure read back
//! from `report.json` has none, and equality ignores it (a failure equals
//! itself read back).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A backend's own typed value, carried by the loop unread.
#[derive(Clone, Default)]
pub struct BackendDetail(Option<Arc<dyn Any + Send + Sync>>);

impl BackendDetail {
    pub fn new<T: Any + Send + Sync>(value: T) -> Self {
        Self(Some(Arc::new(value)))
    }

    /// The value, when there is one and it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref()?.downcast_ref::<T>()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

impl fmt::Debug for BackendDetail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_empty() {
            "BackendDetail(none)"
        } else {
            "BackendDetail(..)"
        })
    }
}

/// Any two are equal: the detail is the backend's typed view of what the
/// value carrying it already says, and it does not survive serde.
impl PartialEq for BackendDetail {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for BackendDetail {}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Stage {
        Build,
    }

    #[test]
    fn the_backend_reads_back_its_own_type_only() {
        let d = BackendDetail::new(Stage::Build);
        assert_eq!(d.get::<Stage>(), Some(&Stage::Build));
        assert_eq!(d.get::<String>(), None);
        let copy = d.clone();
        assert_eq!(copy.get::<Stage>(), Some(&Stage::Build));
        assert!(BackendDetail::default().is_empty());
        assert_eq!(BackendDetail::default().get::<Stage>(), None);
    }
}
