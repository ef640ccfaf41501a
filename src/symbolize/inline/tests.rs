//! Inline names read here against addr2line's.

use super::*;
use object::ObjectSymbol;
use std::path::PathBuf;

/// The raw names addr2line finds at `address`, innermost first.
fn context_frames(context: &addr2line::Context<Reader>, address: u64) -> Vec<Reader> {
    let Ok(mut frames) = context.find_frames(address).skip_all_loads() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    while let Ok(Some(frame)) = frames.next() {
        if let Some(function) = frame.function {
            names.push(function.name);
        }
    }
    names
}

/// The raw names of every frame at `probes`, read here and by addr2line.
fn both_ways(image: &ElfImage, probes: &[u64]) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut reader = InlineInfo::load(image).expect("the binary has DWARF");
    let context = addr2line::Context::from_dwarf(load_dwarf(image).unwrap()).unwrap();
    let text = |names: Vec<Reader>| -> Vec<String> {
        (names.iter())
            .map(|name| name.to_string_lossy().unwrap().into_owned())
            .collect()
    };
    (probes.iter())
        .map(|&probe| {
            (
                text(reader.raw_frames(probe).unwrap_or_default()),
                text(context_frames(&context, probe)),
            )
        })
        .unzip()
}

/// Names only, read here, are the names addr2line gives, at the start
/// and the middle of every function of the test binary, and of the
/// binary `COMPILE_PERF_TEST_DWARF` names (such as a libpython with
/// DWARF).
#[test]
fn names_are_those_addr2line_gives() {
    let mut paths = vec![std::env::current_exe().expect("the test binary has a path")];
    paths.extend(std::env::var_os("COMPILE_PERF_TEST_DWARF").map(PathBuf::from));
    for path in paths {
        let image = ElfImage::open(&path).unwrap();
        let elf = object::File::parse(image.data()).unwrap();
        let probes: Vec<u64> = (elf.symbols())
            .filter(|symbol| symbol.kind() == object::SymbolKind::Text && symbol.size() > 0)
            .flat_map(|symbol| [symbol.address(), symbol.address() + symbol.size() / 2])
            .collect();
        let (ours, addr2line) = both_ways(&image, &probes);
        let differ: Vec<_> = (probes.iter().zip(ours.iter().zip(&addr2line)))
            .filter(|(_, (ours, theirs))| ours != theirs)
            .take(5)
            .collect();
        assert!(differ.is_empty(), "{}: {differ:#?}", path.display());
        let inlined = ours.iter().filter(|names| names.len() > 1).count();
        assert!(
            inlined > 100,
            "{}: {inlined} probes in inlined code",
            path.display()
        );
    }
}
