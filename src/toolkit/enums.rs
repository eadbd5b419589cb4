//! Open enums: opcodes and constants with their names in one place.
//!
//! Modelled on gimli's `constants.rs`: a constant is a newtype over its wire integer, so a value
//! the table does not know still round-trips as its number instead of being forced into a
//! variant. One `open_enum!` block declares the constants, their names and the name lookup; no
//! decoder writes a `match … _ => ""` of its own.
//!
//! ```
//! gamedissect::open_enum! {
//!     /// Server-to-client opcodes.
//!     pub struct Op(u8) {
//!         NOP = 1 => "svc_nop",
//!         EOF = 8 => "svc_EOF",
//!     }
//! }
//! assert_eq!(Op(8), Op::EOF);
//! assert_eq!(Op::EOF.name(), Some("svc_EOF"));
//! assert_eq!(Op(99).name(), None);
//! assert_eq!(Op(99).to_string(), "99");
//! ```

/// Declares an open enum: `pub struct Name(repr) { CONST = value => "name", … }`.
///
/// Generates the newtype (`Copy`, `Eq`, `Hash`, `Ord`), one associated constant per entry,
/// `ALL` (every known value with its name, in declaration order), `name()` (`None` for values
/// the table does not know), `name_or(default)`, and `Display` (the name, or the number).
#[macro_export]
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident($repr:ty) {
            $( $(#[$cmeta:meta])* $konst:ident = $value:expr => $text:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
        $vis struct $name(pub $repr);

        #[allow(dead_code)]
        impl $name {
            $( $(#[$cmeta])* pub const $konst: $name = $name($value); )*

            /// Every known value with its name, in declaration order.
            pub const ALL: &'static [($name, &'static str)] = &[ $( ($name($value), $text) ),* ];

            /// The name of a known value; `None` for a value the table does not know.
            pub fn name(self) -> Option<&'static str> {
                #[allow(unreachable_patterns)]
                match self.0 {
                    $( v if v == $value => Some($text), )*
                    _ => None,
                }
            }

            /// The name of a known value, or `default`.
            pub fn name_or(self, default: &'static str) -> &'static str {
                self.name().unwrap_or(default)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}", self.0),
                }
            }
        }

        impl From<$repr> for $name {
            fn from(v: $repr) -> $name {
                $name(v)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::open_enum! {
        /// A test table.
        pub struct Color(u16) {
            RED = 1 => "red",
            /// Documented constant.
            BLUE = 0x200 => "blue",
        }
    }

    #[test]
    fn known_values_have_names_and_unknown_ones_survive() {
        assert_eq!(Color::RED, Color(1));
        assert_eq!(Color(0x200).name(), Some("blue"));
        assert_eq!(Color(7).name(), None);
        assert_eq!(Color(7).name_or("?"), "?");
        assert_eq!(Color::BLUE.to_string(), "blue");
        assert_eq!(Color(7).to_string(), "7");
        assert_eq!(Color::ALL, &[(Color::RED, "red"), (Color::BLUE, "blue")]);
        assert_eq!(Color::from(1u16), Color::RED);
    }
}
