//! What the kernel lost while recording: each `PERF_RECORD_LOST` (when, on
//! which CPU, how many records), the counts of perf's
//! `PERF_RECORD_LOST_SAMPLES`, and the samples lost they add up to. Plain
//! numbers: `perfdata` reads the records, the reports count and place them.

/// One `PERF_RECORD_LOST`: a CPU's ring buffer was full, and the kernel
/// dropped `count` records (most of them samples) before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Loss {
    /// When the kernel wrote the record (ns, the samples' clock), when the
    /// recording says (`sample_id_all`).
    pub time: Option<u64>,
    /// The CPU, when the recording says.
    pub cpu: Option<u32>,
    /// Records dropped.
    pub count: u64,
}

/// Everything the recording says was lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Losses {
    /// One entry per `PERF_RECORD_LOST`, in the recording's order.
    pub records: Vec<Loss>,
    /// The counts of the `PERF_RECORD_LOST_SAMPLES` records, summed.
    pub samples_reported: u64,
}

impl Losses {
    /// Records dropped, summed over the `PERF_RECORD_LOST` records.
    pub(crate) fn records_lost(&self) -> u64 {
        self.records.iter().map(|loss| loss.count).sum()
    }

    /// Samples lost. perf 6 counts the same drops twice: as records
    /// (`PERF_RECORD_LOST`, as they happen) and, at the end, as samples per
    /// CPU (`PERF_RECORD_LOST_SAMPLES`, from the kernel's counter). The
    /// samples' count is the exact one; an older perf writes only records,
    /// and then they stand for samples.
    pub(crate) fn samples(&self) -> u64 {
        if self.samples_reported > 0 {
            self.samples_reported
        } else {
            self.records_lost()
        }
    }

    /// The share (%) of the samples taken that were lost, when `read`
    /// samples were read.
    pub(crate) fn samples_percent(&self, read: u64) -> f64 {
        let lost = self.samples();
        let taken = read.saturating_add(lost);
        if taken == 0 {
            0.0
        } else {
            lost as f64 * 100.0 / taken as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(count: u64) -> Loss {
        Loss {
            time: Some(count),
            cpu: None,
            count,
        }
    }

    #[test]
    fn lost_samples_are_perfs_count_of_samples_not_its_records_added_to_it() {
        let losses = Losses {
            records: vec![loss(3), loss(9)],
            samples_reported: 11,
        };
        assert_eq!(losses.records_lost(), 12);
        assert_eq!(losses.samples(), 11);
    }

    #[test]
    fn without_perfs_count_of_samples_the_records_lost_stand_for_them() {
        let losses = Losses {
            records: vec![loss(3), loss(9)],
            samples_reported: 0,
        };
        assert_eq!(losses.samples(), 12);
        assert_eq!(Losses::default().samples(), 0);
    }

    #[test]
    fn the_share_lost_is_of_the_samples_taken_read_and_lost() {
        let losses = Losses {
            records: vec![loss(25)],
            samples_reported: 0,
        };
        assert_eq!(losses.samples_percent(75), 25.0);
        assert_eq!(losses.samples_percent(0), 100.0);
        assert_eq!(Losses::default().samples_percent(0), 0.0);
    }
}
