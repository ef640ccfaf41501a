//! The history store in an SQLite file (rusqlite, SQLite built in): a
//! rollback journal, so a process killed inside a transaction leaves the
//! file as it was before it; a busy timeout, so two `add`s at once wait for
//! each other.

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};

use super::db::{Column, Db, Value};

/// How long a writer waits for another's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) struct Sqlite(Connection);

impl Sqlite {
    /// Opens (or creates) the file at `path`.
    pub(super) fn open(path: &Path) -> Result<Sqlite, String> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(path, flags).map_err(|e| e.to_string())?;
        connection
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| e.to_string())?;
        connection
            .execute_batch("PRAGMA foreign_keys = ON")
            .map_err(|e| e.to_string())?;
        Ok(Sqlite(connection))
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Text(Some(text)) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            Value::Int(Some(value)) => ToSqlOutput::Borrowed(ValueRef::Integer(*value)),
            Value::Real(value) => ToSqlOutput::Borrowed(ValueRef::Real(*value)),
            Value::Text(None) | Value::Int(None) => ToSqlOutput::Borrowed(ValueRef::Null),
        })
    }
}

impl Db for Sqlite {
    fn batch(&mut self, sql: &str) -> Result<(), String> {
        self.0.execute_batch(sql).map_err(|e| e.to_string())
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String> {
        let mut statement = self.0.prepare_cached(sql).map_err(|e| e.to_string())?;
        let changed = statement
            .execute(rusqlite::params_from_iter(params))
            .map_err(|e| e.to_string())?;
        Ok(changed as u64)
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        columns: &[Column],
    ) -> Result<Vec<Vec<Value>>, String> {
        let mut statement = self.0.prepare_cached(sql).map_err(|e| e.to_string())?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(params), |row| {
                columns
                    .iter()
                    .enumerate()
                    .map(|(at, column)| {
                        Ok(match column {
                            Column::Text => Value::Text(row.get(at)?),
                            Column::Int => Value::Int(row.get(at)?),
                            Column::Real => Value::Real(row.get(at)?),
                        })
                    })
                    .collect::<rusqlite::Result<Vec<Value>>>()
            })
            .map_err(|e| e.to_string())?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| e.to_string())
    }

    fn begin(&mut self) -> Result<(), String> {
        self.batch("BEGIN IMMEDIATE")
    }
}
