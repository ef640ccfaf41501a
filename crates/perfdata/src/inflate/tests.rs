//! Tests of `perfdata::inflate`.

use zstd_safe::{CCtx, CParameter, InBuffer, OutBuffer, zstd_sys::ZSTD_EndDirective};

use super::*;
use crate::test_random::xorshift;

const ORDER: ByteOrder = ByteOrder { big_endian: false };

/// Sample records (type 9) of random sizes, each a header and a body
/// of repeated runs, so that they compress as stacks do.
fn records(count: usize, seed: u64) -> Vec<u8> {
    let mut next = xorshift(seed);
    let mut bytes = Vec::new();
    for _ in 0..count {
        let size = 8 * (2 + next() as usize % 1000);
        bytes.extend_from_slice(&9u32.to_le_bytes());
        bytes.extend_from_slice(&0u16.to_le_bytes());
        bytes.extend_from_slice(&(size as u16).to_le_bytes());
        let end = bytes.len() + size - HEADER_SIZE;
        while bytes.len() < end {
            let run = next();
            bytes.extend(std::iter::repeat_n(run as u8, 1 + (run >> 8) as usize % 24));
        }
        bytes.truncate(end);
    }
    bytes
}

/// `plain` compressed as perf does (level 1), but with a window of
/// `1 << window_log` bytes: one zstd stream, flushed after every 256 KiB
/// of records, cut into compressed records' data of at most 64 KiB.
fn perf_zstd(plain: &[u8], window_log: u32) -> Vec<Vec<u8>> {
    let mut context = CCtx::create();
    context
        .set_parameter(CParameter::CompressionLevel(1))
        .unwrap();
    context
        .set_parameter(CParameter::WindowLog(window_log))
        .unwrap();
    let mut chunks = Vec::new();
    for input in plain.chunks(256 << 10) {
        let mut source = InBuffer::around(input);
        loop {
            let mut space = vec![0u8; 0xffff - 16];
            let mut target = OutBuffer::around(&mut space[..]);
            let left = context
                .compress_stream2(&mut target, &mut source, ZSTD_EndDirective::ZSTD_e_flush)
                .unwrap();
            let written = target.pos();
            space.truncate(written);
            if written > 0 {
                chunks.push(space);
            }
            if left == 0 && source.pos() == input.len() {
                break;
            }
        }
    }
    chunks
}

/// Inflates `chunks` ahead, as the decompression thread does, giving
/// every piece back as soon as it is handed on (the quickest reader);
/// returns the decompressed bytes in order, the `Done` marks, whether the
/// direct decoder ran, and how many pieces were made.
fn inflate_all(chunks: &[Vec<u8>]) -> (Vec<u8>, Vec<Done>, bool, usize) {
    let (give_back, returned) = std::sync::mpsc::channel();
    let mut inflater = Inflater::ahead(ORDER, &chunks[0], returned);
    let direct = matches!(inflater.decoder, Decoder::Direct(_));
    let (mut bytes, mut done) = (Vec::new(), Vec::new());
    let mut pieces = std::collections::HashSet::new();
    let mut hand = |inflated| match inflated {
        Inflated::Piece {
            bytes: piece,
            done: marks,
        } => {
            bytes.extend_from_slice(&piece);
            done.extend(marks);
            pieces.insert(piece.as_ptr());
            give_back.send(piece).is_ok()
        }
        Inflated::Failed { reason, .. } => panic!("{reason}"),
    };
    for (index, chunk) in chunks.iter().enumerate() {
        assert!(inflater.inflate(chunk, index as u64, &mut hand));
    }
    inflater.flush(&mut hand);
    (bytes, done, direct, pieces.len())
}

#[test]
fn the_pieces_hold_the_stream_whatever_the_decoder() {
    let plain = records(4000, 7);
    assert!(plain.len() > 12 << 20, "{} bytes", plain.len());
    // perf's default window (512 KiB) and a 2 MiB one (in larger
    // pieces) decode directly; an 8 MiB one goes through the streaming
    // decoder.
    for (window_log, direct) in [(19, true), (21, true), (23, false)] {
        let chunks = perf_zstd(&plain, window_log);
        let (bytes, done, was_direct, pieces) = inflate_all(&chunks);
        assert_eq!(was_direct, direct, "window 2^{window_log}");
        // The current piece and the one handed on before it, reused
        // throughout.
        assert_eq!(pieces, 2, "window 2^{window_log}: pieces made");
        assert!(bytes == plain, "window 2^{window_log}: the bytes differ");
        assert_eq!(done.len(), chunks.len());
        assert_eq!(done.last().unwrap().written, plain.len() as u64);
        assert!(
            done.windows(2)
                .all(|pair| pair[0].written <= pair[1].written)
        );
    }
}

#[test]
fn damaged_zstd_data_is_named_after_the_whole_records_before_it() {
    let plain = records(1000, 11);
    let mut chunks = perf_zstd(&plain, 19);
    let middle = chunks.len() / 2;
    chunks[middle].fill(0xff);
    let (_give_back, returned) = std::sync::mpsc::channel();
    let mut inflater = Inflater::ahead(ORDER, &chunks[0], returned);
    let mut handed = Vec::new();
    let mut hand = |inflated| {
        handed.push(inflated);
        true
    };
    let stopped_at = (chunks.iter().enumerate())
        .position(|(index, chunk)| !inflater.inflate(chunk, index as u64, &mut hand))
        .expect("the damage stops the decompression");
    assert!(stopped_at >= middle);
    let Some(Inflated::Failed { offset, .. }) = handed.pop() else {
        panic!("the damage is named");
    };
    assert_eq!(offset, stopped_at as u64);
    let mut bytes = Vec::new();
    let mut sound = 0;
    for inflated in handed {
        let Inflated::Piece { bytes: piece, done } = inflated else {
            panic!("one failure");
        };
        bytes.extend_from_slice(&piece);
        let before_damage = done.iter().filter(|done| (done.offset as usize) < middle);
        sound = before_damage.fold(sound, |sound, done| sound.max(done.written as usize));
    }
    // The records decompressed before the damaged data are handed on
    // whole (all but an unfinished last one), and are right.
    let checked = sound.min(bytes.len());
    assert!(checked > 1 << 20, "{checked} bytes");
    assert!(bytes[..checked] == plain[..checked]);
}
