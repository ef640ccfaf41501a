//! How busy other processes kept the machine while the command ran: the
//! CPU time of the whole machine (`/proc/stat`), less the command's own
//! (`getrusage`), per second of the command's wall time, in cores.

/// The CPU seconds every CPU of the machine has been busy since boot: user,
/// nice, system, irq, softirq, and steal (time the host gave to others);
/// `None` when `/proc/stat` cannot be read.
pub(crate) fn machine_busy_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    // SAFETY: `sysconf` reads a constant of the system.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    busy_ticks(&stat).map(|ticks| ticks as f64 / ticks_per_second.max(1) as f64)
}

/// The busy ticks of the `cpu` line (every CPU added up) of `/proc/stat`.
fn busy_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // user nice system idle iowait irq softirq steal (guest is in user).
    let &[user, nice, system, _idle, _iowait, irq, softirq, steal, ..] = ticks.as_slice() else {
        return None;
    };
    Some(user + nice + system + irq + softirq + steal)
}

/// The cores other processes kept busy on average: the machine's busy
/// seconds between `start` and `end` (of [`machine_busy_seconds`]), less
/// the command's own CPU seconds, per wall second. perf's own work is in
/// it, about the same from run to run.
pub(crate) fn other_cores_busy(start: f64, end: f64, own_cpu: f64, wall: f64) -> Option<f64> {
    let cores = |busy: f64| ((busy / wall).max(0.0) * 100.0).round() / 100.0;
    (wall > 0.0 && end >= start).then(|| cores(end - start - own_cpu))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_ticks_leave_out_idle_and_iowait() {
        let stat = "cpu  100 2 30 5000 40 5 6 7 0 0\ncpu0 50 1 15 2500 20 2 3 3 0 0\n";
        assert_eq!(busy_ticks(stat), Some(100 + 2 + 30 + 5 + 6 + 7));
        assert_eq!(busy_ticks("cpu  1 2 3\n"), None);
        assert_eq!(busy_ticks("intr 5\n"), None);
    }

    #[test]
    fn the_others_are_the_machine_less_the_command() {
        assert_eq!(other_cores_busy(10.0, 16.0, 2.0, 2.0), Some(2.0));
        // Clock ticks are coarse: never below nothing.
        assert_eq!(other_cores_busy(10.0, 11.0, 1.2, 1.0), Some(0.0));
        assert_eq!(other_cores_busy(10.0, 11.0, 1.0, 0.0), None);
    }

    #[test]
    fn this_machine_has_been_busy() {
        assert!(machine_busy_seconds().is_some_and(|seconds| seconds > 0.0));
    }
}
