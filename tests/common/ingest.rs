//! A listener on 127.0.0.1 that stands in for a Pyroscope server in the
//! `push` tests: it reads one HTTP request (the request line, headers and
//! body), answers it, and hands the request to the test, which checks it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;

use super::bin;

/// One HTTP request as the listener read it.
pub(crate) struct Request {
    pub(crate) target: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The query parameters of the target, percent-decoded.
    pub(crate) fn query(&self) -> Vec<(String, String)> {
        let query = self.target.split_once('?').map_or("", |(_, query)| query);
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(key, value)| (decode(key), decode(value)))
            .collect()
    }

    /// One query parameter, which must be there.
    pub(crate) fn param(&self, key: &str) -> String {
        self.query()
            .into_iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
            .unwrap_or_else(|| panic!("no {key} in {}", self.target))
    }

    /// The bytes of one part of a multipart/form-data body.
    pub(crate) fn form_part(&self, name: &str) -> Vec<u8> {
        let content_type = self.header("content-type").expect("a content type");
        let boundary = content_type
            .split("boundary=")
            .nth(1)
            .expect("a multipart boundary");
        let delimiter = format!("--{boundary}");
        let body = &self.body;
        let marker = format!("name=\"{name}\"");
        let start = find(body, marker.as_bytes()).unwrap_or_else(|| panic!("no part {name}"));
        let data_start = start + find(&body[start..], b"\r\n\r\n").expect("part headers") + 4;
        let data_end = data_start
            + find(&body[data_start..], format!("\r\n{delimiter}").as_bytes())
                .expect("the part ends");
        body[data_start..data_end].to_vec()
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' if at + 2 < bytes.len() => {
                out.push(u8::from_str_radix(&text[at + 1..at + 3], 16).expect("a %XX escape"));
                at += 3;
            }
            b'+' => {
                out.push(b' ');
                at += 1;
            }
            byte => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// Reads one request from `stream` and answers it with `status` and `answer`.
fn serve_one(stream: TcpStream, status: &str, answer: &str) -> Request {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut parts = line.split_whitespace();
    assert_eq!(parts.next(), Some("POST"), "the request line: {line}");
    let target = parts.next().unwrap().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).unwrap();
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (key, value) = header.split_once(':').unwrap();
        headers.push((key.trim().to_owned(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("content-length"))
        .map(|(_, value)| value.parse().unwrap())
        .expect("a content length");
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let mut stream = reader.into_inner();
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
        answer.len()
    )
    .unwrap();
    Request {
        target,
        headers,
        body,
    }
}

/// `compile-perf push INPUT --url http://127.0.0.1:PORT ARGS` against a
/// listener answering `status`; the exit code, stderr and the request.
pub(crate) fn push_to_listener(
    input: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    status: &str,
) -> (Option<i32>, String, Request) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let status = status.to_owned();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        serve_one(stream, &status, "stored")
    });
    let mut command = Command::new(bin());
    command
        .args(["push", input.to_str().unwrap(), "--url", &url, "-q"])
        .args(args)
        .env_remove("PYROSCOPE_BASIC_AUTH_USER")
        .env_remove("PYROSCOPE_BASIC_AUTH_PASSWORD");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let request = server.join().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        request,
    )
}
