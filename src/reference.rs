//! The field and expert-note reference (`gamedissect fields`, `docs/fields.md`), generated from
//! the registered definitions.
//!
//! (Transitional: the definitions still live in `cli`.)

pub use crate::cli::{all_fields, fields_markdown};
