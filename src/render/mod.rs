//! Pictures: flamegraph SVGs rendered by inferno, coloured by category, and
//! the timeline of categories over the compile.

pub mod flamegraph;
pub mod timeline;

/// A command line for a picture's title: the program without its directory,
/// cut to `max_chars` with `…`.
pub fn short_command(command: &str, max_chars: usize) -> String {
    let (program, args) = command.split_once(' ').unwrap_or((command, ""));
    let program = program.rsplit('/').next().unwrap_or(program);
    let short = format!("{program} {args}").trim_end().to_owned();
    if short.chars().count() <= max_chars {
        return short;
    }
    short
        .chars()
        .take(max_chars.saturating_sub(1))
        .collect::<String>()
        + "…"
}

#[cfg(test)]
mod tests {
    #[test]
    fn commands_lose_their_program_directory_and_are_cut() {
        assert_eq!(
            super::short_command("/a/b/iree-compile x.mlir", 40),
            "iree-compile x.mlir"
        );
        assert_eq!(
            super::short_command("/a/b/iree-compile x.mlir", 10),
            "iree-comp…"
        );
    }
}
