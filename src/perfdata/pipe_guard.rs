//! Watches the record framing of a pipe-mode stream as it is read, so that a
//! stream which stops early is reported as cut short.
//!
//! linux-perf-data treats the end of a pipe as the end of the recording, even
//! in the middle of a record. This reader sits between the byte source and the
//! library, follows the `perf_event_header` sizes, and remembers whether the
//! data stopped inside a record or before perf's closing `FINISHED_ROUND`.

use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

/// Size of the pipe-mode file header (magic + size).
const PIPE_HEADER_SIZE: u64 = 16;
/// Size of `struct perf_event_header`.
const EVENT_HEADER_SIZE: usize = 8;
/// `PERF_RECORD_FINISHED_ROUND`: perf closes every complete stream with one.
const FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_AUXTRACE`: its payload follows the record, outside its size.
const AUXTRACE: u32 = 71;
/// `PERF_RECORD_LOST_SAMPLES`: perf 6.1 writes these after its closing round.
const LOST_SAMPLES: u32 = 13;

/// What the guard saw of the stream's end.
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamEnd {
    /// Bytes read from the source, headers included.
    pub bytes: u64,
    /// The source ended inside a record.
    pub inside_record: bool,
    /// The last complete record was perf's closing `FINISHED_ROUND`.
    pub ended_with_round: bool,
    /// The source returned end-of-file at least once.
    pub reached_eof: bool,
}

impl StreamEnd {
    /// Why the stream is incomplete, or `None` when it ended as perf ends it.
    pub fn cut_reason(&self) -> Option<&'static str> {
        if self.inside_record {
            Some("it ends in the middle of a record")
        } else if !self.ended_with_round {
            Some("it lacks the closing FINISHED_ROUND record that perf writes last")
        } else {
            None
        }
    }
}

/// A `Read` adapter that tracks record boundaries of a perf pipe stream.
pub struct PipeGuard<R> {
    inner: R,
    state: Rc<Cell<StreamEnd>>,
    /// Bytes of the file header still to come.
    header_left: u64,
    /// The event header being assembled, and how much of it has arrived.
    event_header: [u8; EVENT_HEADER_SIZE],
    event_header_len: usize,
    /// Body bytes of the current record still to come.
    body_left: u64,
    /// Type of the current record, once its header is complete.
    record_type: u32,
    /// First bytes of an AUXTRACE body, which hold the payload size.
    auxtrace_size: [u8; 8],
    auxtrace_seen: usize,
}

impl<R: Read> PipeGuard<R> {
    /// Wraps `inner`, which must be positioned at the start of the stream.
    pub fn new(inner: R) -> (Self, Rc<Cell<StreamEnd>>) {
        let state = Rc::new(Cell::new(StreamEnd::default()));
        let guard = PipeGuard {
            inner,
            state: Rc::clone(&state),
            header_left: PIPE_HEADER_SIZE,
            event_header: [0; EVENT_HEADER_SIZE],
            event_header_len: 0,
            body_left: 0,
            record_type: 0,
            auxtrace_size: [0; 8],
            auxtrace_seen: 0,
        };
        (guard, state)
    }

    fn observe(&mut self, mut bytes: &[u8]) {
        let mut end = self.state.get();
        end.bytes += bytes.len() as u64;
        while !bytes.is_empty() {
            if self.header_left > 0 {
                let take = bytes.len().min(self.header_left as usize);
                self.header_left -= take as u64;
                bytes = &bytes[take..];
            } else if self.body_left > 0 {
                let take = bytes.len().min(self.body_left as usize);
                if self.record_type == AUXTRACE && self.auxtrace_seen < 8 {
                    let wanted = (8 - self.auxtrace_seen).min(take);
                    self.auxtrace_size[self.auxtrace_seen..self.auxtrace_seen + wanted]
                        .copy_from_slice(&bytes[..wanted]);
                    self.auxtrace_seen += wanted;
                    if self.auxtrace_seen == 8 {
                        self.body_left += u64::from_le_bytes(self.auxtrace_size);
                    }
                }
                self.body_left -= take as u64;
                bytes = &bytes[take..];
                if self.body_left == 0 && self.record_type != LOST_SAMPLES {
                    end.ended_with_round = false;
                }
            } else {
                let take = bytes.len().min(EVENT_HEADER_SIZE - self.event_header_len);
                self.event_header[self.event_header_len..self.event_header_len + take]
                    .copy_from_slice(&bytes[..take]);
                self.event_header_len += take;
                bytes = &bytes[take..];
                if self.event_header_len == EVENT_HEADER_SIZE {
                    self.event_header_len = 0;
                    self.start_record(&mut end);
                }
            }
        }
        end.inside_record = self.header_left > 0 || self.body_left > 0 || self.event_header_len > 0;
        self.state.set(end);
    }

    fn start_record(&mut self, end: &mut StreamEnd) {
        let header = self.event_header;
        self.record_type = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        let size = u16::from_le_bytes([header[6], header[7]]) as usize;
        self.body_left = size.saturating_sub(EVENT_HEADER_SIZE) as u64;
        self.auxtrace_seen = 0;
        if self.record_type != LOST_SAMPLES {
            end.ended_with_round = self.body_left == 0 && self.record_type == FINISHED_ROUND;
        }
    }
}

impl<R: Read> Read for PipeGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            let mut end = self.state.get();
            end.reached_eof = true;
            self.state.set(end);
        }
        self.observe(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(record_type: u32, body: &[u8]) -> Vec<u8> {
        let mut bytes = record_type.to_le_bytes().to_vec();
        bytes.extend_from_slice(&0u16.to_le_bytes());
        bytes.extend_from_slice(&((8 + body.len()) as u16).to_le_bytes());
        bytes.extend_from_slice(body);
        bytes
    }

    fn stream_end(bytes: &[u8]) -> StreamEnd {
        let (mut guard, state) = PipeGuard::new(bytes);
        let mut sink = Vec::new();
        guard.read_to_end(&mut sink).unwrap();
        state.get()
    }

    fn stream() -> Vec<u8> {
        let mut bytes = b"PERFILE2".to_vec();
        bytes.extend_from_slice(&16u64.to_le_bytes());
        bytes.extend(record(9, &[1; 40]));
        bytes.extend(record(FINISHED_ROUND, &[]));
        bytes
    }

    #[test]
    fn a_complete_stream_has_no_cut_reason() {
        let end = stream_end(&stream());
        assert_eq!(end.cut_reason(), None);
        assert!(end.reached_eof);
    }

    #[test]
    fn lost_samples_after_the_closing_round_keep_the_stream_complete() {
        let mut bytes = stream();
        bytes.extend(record(LOST_SAMPLES, &[0; 16]));
        assert_eq!(stream_end(&bytes).cut_reason(), None);
    }

    #[test]
    fn every_cut_inside_the_records_is_noticed() {
        let full = stream();
        for cut in 17..full.len() {
            let end = stream_end(&full[..cut]);
            assert!(end.cut_reason().is_some(), "cut at {cut} went unnoticed");
        }
    }
}
