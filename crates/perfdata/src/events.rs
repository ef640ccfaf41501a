//! The events of a recording as the reader needs them: how each event's
//! records are laid out, and which event a record belongs to.

use hashbrown::HashMap;
use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, RawData, RawEventRecord, RecordParseInfo, RecordType,
};
use linux_perf_data::{Endianness, PerfFile};

use super::byte_order::ByteOrder;
use super::plausible::RecordRules;
use super::record_header::Header;

/// How one recording's records are laid out: its events, and how a record
/// names its event.
#[derive(Clone)]
pub(super) struct Events {
    pub(super) parse_infos: Vec<RecordParseInfo>,
    pub(super) ids: EventIds,
    pub(super) event_of_id: HashMap<u64, usize>,
    pub(super) rules: RecordRules,
}

/// Where a record's event id is.
#[derive(Clone)]
pub(super) enum EventIds {
    /// One event: every record is its.
    One,
    /// Every event puts the id at the same place.
    Same,
    /// Every event has `PERF_SAMPLE_IDENTIFIER`: first in samples, last in
    /// other records (with `sample_id_all`).
    Identifier { sample_id_all: bool },
}

impl Events {
    pub(super) fn new(perf_file: &PerfFile) -> Events {
        let endian = perf_file.endian();
        let attributes = perf_file.event_attributes();
        let parse_infos: Vec<RecordParseInfo> = attributes
            .iter()
            .map(|attribute| RecordParseInfo::new(&attribute.attr, endian))
            .collect();
        let first = parse_infos.first();
        let ids = if parse_infos.len() <= 1 {
            EventIds::One
        } else if parse_infos
            .iter()
            .all(|info| Some(&info.id_parse_info) == first.map(|first| &first.id_parse_info))
        {
            EventIds::Same
        } else {
            EventIds::Identifier {
                sample_id_all: attributes
                    .first()
                    .is_some_and(|first| first.attr.flags.contains(AttrFlags::SAMPLE_ID_ALL)),
            }
        };
        let event_of_id = attributes
            .iter()
            .enumerate()
            .flat_map(|(index, attribute)| attribute.event_ids.iter().map(move |&id| (id, index)))
            .collect();
        let exact_trailers = parse_infos.iter().all(|info| {
            Some(info.common_data_offset_from_end)
                == first.map(|first| first.common_data_offset_from_end)
        });
        Events {
            parse_infos,
            ids,
            event_of_id,
            rules: RecordRules {
                order: ByteOrder {
                    big_endian: endian == Endianness::BigEndian,
                },
                exact_trailers,
            },
        }
    }

    /// The event a record belongs to, by its id; the first when it has none.
    pub(super) fn event_of(&self, header: Header, body: &[u8]) -> usize {
        let id = match self.ids {
            EventIds::One => return 0,
            EventIds::Same => self.record(header, body, 0).id(),
            EventIds::Identifier { sample_id_all } => {
                let order = self.rules.order;
                if header.record_type == RecordType::SAMPLE.0 {
                    order.u64(body, 0)
                } else if sample_id_all {
                    body.len().checked_sub(8).and_then(|at| order.u64(body, at))
                } else {
                    None
                }
            }
        };
        id.and_then(|id| self.event_of_id.get(&id).copied())
            .unwrap_or(0)
    }

    /// The record with `header` and `body`, parsed as one of event `attr_index`.
    pub(super) fn record<'a>(
        &self,
        header: Header,
        body: &'a [u8],
        attr_index: usize,
    ) -> RawEventRecord<'a> {
        RawEventRecord::new(
            RecordType(header.record_type),
            header.misc,
            RawData::Single(body),
            self.parse_infos[attr_index],
        )
    }
}
