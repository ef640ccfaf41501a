//! The history store on a PostgreSQL server (the `postgres` crate, without
//! TLS: a local socket, or a server on a network the team trusts). The
//! credentials come only from the environment (`PGUSER`, `PGPASSWORD`) or a
//! `.pgpass` file (`PGPASSFILE`, else `~/.pgpass`), never from the URL: a URL
//! with a password is refused, since it would sit in shell histories, CI
//! logs and process lists.

use std::path::PathBuf;
use std::time::Duration;

use postgres::config::Host;
use postgres::types::ToSql;
use postgres::{Client, Config, NoTls};

use super::db::{Column, Db, Value};

/// How long connecting may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) struct Postgres(Client);

impl Postgres {
    /// Connects to the server `url` names.
    pub(super) fn connect(url: &str) -> Result<Postgres, String> {
        let mut config: Config = url
            .parse()
            .map_err(|e| format!("not a PostgreSQL URL: {e}"))?;
        if config.get_password().is_some() {
            return Err("the URL holds a password; compile-perf takes it only from PGPASSWORD or a .pgpass file (never from the command line), so that it stays out of shell histories and CI logs".to_owned());
        }
        if config.get_user().is_none() {
            if let Some(user) = env("PGUSER").or_else(|| env("USER")) {
                config.user(&user);
            }
        }
        let password = env("PGPASSWORD").or_else(|| pgpass_password(&config));
        if let Some(password) = password {
            config.password(password);
        }
        config.connect_timeout(CONNECT_TIMEOUT);
        config.connect(NoTls).map(Postgres).map_err(|e| reason(&e))
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The error with its causes, which `postgres::Error`'s own text leaves out
/// ("error connecting to server" without the why).
fn reason(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// The password of the first `.pgpass` line that matches the connection
/// (host, port, database, user; `*` matches anything; a socket connection
/// is `localhost`), as libpq reads it.
fn pgpass_password(config: &Config) -> Option<String> {
    let path = env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(host)) => host.clone(),
        _ => "localhost".to_owned(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default().to_owned();
    let database = config.get_dbname().unwrap_or(&user).to_owned();
    pgpass_match(&text, [&host, &port, &database, &user])
}

/// The password of the first line of `pgpass` whose four fields match
/// `wanted`; `\:` and `\\` are a field's own colon and backslash.
fn pgpass_match(pgpass: &str, wanted: [&str; 4]) -> Option<String> {
    pgpass
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = split_fields(line);
            if fields.len() < 5 {
                return None;
            }
            let matches = fields
                .iter()
                .zip(wanted)
                .all(|(field, wanted)| field == "*" || field == wanted);
            matches.then(|| fields[4].clone())
        })
}

fn split_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => field.extend(chars.next()),
            ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

fn boxed(value: &Value) -> Box<dyn ToSql + Sync> {
    match value {
        Value::Text(text) => Box::new(text.clone()),
        Value::Int(value) => Box::new(*value),
        Value::Real(value) => Box::new(*value),
    }
}

impl Db for Postgres {
    fn batch(&mut self, sql: &str) -> Result<(), String> {
        self.0.batch_execute(sql).map_err(|e| reason(&e))
    }

    fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, String> {
        let owned: Vec<Box<dyn ToSql + Sync>> = params.iter().map(boxed).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = owned.iter().map(|param| &**param).collect();
        self.0.execute(sql, &refs).map_err(|e| reason(&e))
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[Value],
        columns: &[Column],
    ) -> Result<Vec<Vec<Value>>, String> {
        let owned: Vec<Box<dyn ToSql + Sync>> = params.iter().map(boxed).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = owned.iter().map(|param| &**param).collect();
        let rows = self.0.query(sql, &refs).map_err(|e| reason(&e))?;
        rows.iter()
            .map(|row| {
                columns
                    .iter()
                    .enumerate()
                    .map(|(at, column)| match column {
                        Column::Text => row.try_get(at).map(Value::Text),
                        Column::Int => row.try_get(at).map(Value::Int),
                        Column::Real => row.try_get(at).map(Value::Real),
                    })
                    .collect::<Result<Vec<Value>, _>>()
                    .map_err(|e| reason(&e))
            })
            .collect()
    }

    fn begin(&mut self) -> Result<(), String> {
        self.batch("BEGIN")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pgpass_line_matches_by_its_four_fields_with_wildcards_and_escapes() {
        let pgpass =
            "# comment\nother:5432:db:ci:wrong\n*:5432:hist*:ci:nope\n*:*:history:ci:pa\\:ss\n";
        assert_eq!(
            pgpass_match(pgpass, ["db.example", "5432", "history", "ci"]).as_deref(),
            Some("pa:ss")
        );
        assert_eq!(pgpass_match(pgpass, ["db", "5432", "history", "me"]), None);
    }

    #[test]
    fn a_url_with_a_password_is_refused_before_connecting() {
        let error = Postgres::connect("postgres://ci:secret@127.0.0.1:1/history")
            .err()
            .unwrap();
        assert!(error.contains("holds a password"), "{error}");
    }
}
