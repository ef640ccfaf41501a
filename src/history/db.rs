//! What the store asks of a database, so that one schema and one set of
//! statements serve SQLite and PostgreSQL: statements with typed parameters,
//! queries whose columns' types are named, and transactions.

/// A parameter or a column's value; a NULL keeps its type, as PostgreSQL
/// wants it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Text(Option<String>),
    Int(Option<i64>),
    Real(f64),
}

impl Value {
    pub(super) fn text(self) -> Option<String> {
        match self {
            Value::Text(text) => text,
            _ => None,
        }
    }

    pub(super) fn int(&self) -> Option<i64> {
        match self {
            Value::Int(value) => *value,
            _ => None,
        }
    }

    pub(super) fn real(&self) -> f64 {
        match self {
            Value::Real(value) => *value,
            _ => f64::NAN,
        }
    }
}

/// The type a query's column is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Column {
    Text,
    Int,
    Real,
}

/// A connection to one database; errors are the database's own words.
pub(super) trait Db {
    /// Runs statements without parameters (a migration).
    fn batch(&mut self, sql: &str) -> Result<(), String>;
    /// Runs one statement; the rows it changed.
    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String>;
    /// Runs one query; each row's values, read as `columns` says.
    fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        columns: &[Column],
    ) -> Result<Vec<Vec<Value>>, String>;
    /// Starts a transaction that writes (SQLite takes the write lock now).
    fn begin(&mut self) -> Result<(), String>;
}
