//! The `compile-perf` binary: parses arguments, runs, maps the outcome to an exit code.

use std::process::ExitCode;

use compile_perf::Cli;

fn main() -> ExitCode {
    let config = Cli::parse_with_tips(std::env::args_os()).into_config();
    match compile_perf::run(&config) {
        Ok(code) => ExitCode::from(code),
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("compile-perf: error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}
