//! Index types: a newtype per table (symbols, frames, stacks, binaries,
//! processes, threads, passes), so that an index into one table
//! cannot be used for another. The number inside is private to the module
//! that defines the type; everyone else goes through `new` and `index`
//! (the position in the table).

/// Defines `$name`, an index stored as `$repr`, with `new(usize)` and
/// `index() -> usize`.
macro_rules! index_type {
    ($(#[$doc:meta])* $vis:vis struct $name:ident($repr:ty);) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name($repr);

        impl $name {
            /// The index of the entry at `index` of its table.
            #[inline]
            pub(crate) fn new(index: usize) -> $name {
                $name(index as $repr)
            }

            /// The position in its table.
            #[inline]
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

pub(crate) use index_type;
