//! The Artifacts section of `report`: each output's size, then its members
//! by kind with their shares of the file and the largest of each kind (text
//! and Markdown tables, and the JSON entries); the dump directories' files
//! in one line.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::round2;
use super::table::{Colors, Column, Table, TextFormat, write_table};
use crate::artifact::{Artifact, ArtifactRole, MemberKind, outputs};
use crate::attribute::percent;

/// Members named per kind in the text table.
const TEXT_LARGEST: usize = 3;
/// Members named per kind in JSON.
const JSON_LARGEST: usize = 10;
/// The row of the bytes outside the members.
const OVERHEAD_ROW: &str = "(archive headers)";

/// Writes the section; nothing when `run.json` lists no artifacts.
pub(crate) fn write_text(
    artifacts: &[Artifact],
    format: TextFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if artifacts.is_empty() {
        return Ok(());
    }
    let markdown = format == TextFormat::Markdown;
    writeln!(out)?;
    writeln!(out, "{}artifacts", if markdown { "### " } else { "" })?;
    for artifact in outputs(artifacts) {
        writeln!(out)?;
        let line = format!("{}: {} bytes", artifact.path, artifact.bytes);
        match &artifact.note {
            Some(note) => writeln!(out, "{line}; {note}")?,
            None => writeln!(out, "{line}")?,
        }
        if artifact.entries.is_some() {
            writeln!(out)?;
            write_table(&kind_table(artifact), format, Colors::Plain, out)?;
        }
    }
    let dumps: Vec<&Artifact> = artifacts
        .iter()
        .filter(|artifact| artifact.role == ArtifactRole::Dump)
        .collect();
    if !dumps.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "dumps: {} file{}, {} bytes (run.json lists them)",
            dumps.len(),
            if dumps.len() == 1 { "" } else { "s" },
            dumps.iter().map(|dump| dump.bytes).sum::<u64>()
        )?;
    }
    Ok(())
}

/// One row per kind, and the bytes outside the members.
fn kind_table(artifact: &Artifact) -> Table {
    let mut rows: Vec<Vec<_>> = artifact
        .by_kind()
        .into_iter()
        .map(|total| {
            let largest = artifact
                .largest_of(total.kind, TEXT_LARGEST)
                .into_iter()
                .map(|member| format!("{} ({})", member.name, member.bytes))
                .collect::<Vec<_>>()
                .join(", ");
            let more = total.members.saturating_sub(TEXT_LARGEST);
            let largest = if more > 0 {
                format!("{largest}, … {more} more")
            } else {
                largest
            };
            vec![
                total.kind.name().to_owned().into(),
                total.bytes.to_string().into(),
                format!("{:.1}%", percent(total.bytes, artifact.bytes)).into(),
                total.members.to_string().into(),
                largest.into(),
            ]
        })
        .collect();
    if let Some(overhead) = artifact.overhead_bytes().filter(|bytes| *bytes > 0) {
        rows.push(vec![
            OVERHEAD_ROW.to_owned().into(),
            overhead.to_string().into(),
            format!("{:.1}%", percent(overhead, artifact.bytes)).into(),
            String::new().into(),
            String::new().into(),
        ]);
    }
    Table {
        columns: vec![
            Column::left("kind"),
            Column::right("bytes"),
            Column::right("share"),
            Column::right("members"),
            Column::left("largest members"),
        ],
        rows,
    }
}

/// An output in `report --format json`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArtifactJson {
    path: String,
    bytes: u64,
    /// By kind, largest first; empty when the file is not a ZIP archive.
    kinds: Vec<KindJson>,
    /// The bytes outside the members (the archive's headers).
    overhead_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// One kind of member of an output.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct KindJson {
    kind: MemberKind,
    bytes: u64,
    /// Of the file's bytes.
    percent: f64,
    members: usize,
    largest: Vec<MemberJson>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct MemberJson {
    name: String,
    bytes: u64,
    percent: f64,
}

/// The outputs among `artifacts`, for JSON.
pub(crate) fn to_json(artifacts: &[Artifact]) -> Vec<ArtifactJson> {
    outputs(artifacts)
        .map(|artifact| {
            let share = |bytes| round2(percent(bytes, artifact.bytes));
            ArtifactJson {
                path: artifact.path.clone(),
                bytes: artifact.bytes,
                kinds: artifact
                    .by_kind()
                    .into_iter()
                    .map(|total| KindJson {
                        kind: total.kind,
                        bytes: total.bytes,
                        percent: share(total.bytes),
                        members: total.members,
                        largest: artifact
                            .largest_of(total.kind, JSON_LARGEST)
                            .into_iter()
                            .map(|member| MemberJson {
                                name: member.name.clone(),
                                bytes: member.bytes,
                                percent: share(member.bytes),
                            })
                            .collect(),
                    })
                    .collect(),
                overhead_bytes: artifact.overhead_bytes(),
                note: artifact.note.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Member, MemberKind};

    fn vmfb() -> Vec<Artifact> {
        let member = |name: &str, bytes| Member {
            name: name.to_owned(),
            bytes,
            kind: MemberKind::of(name),
        };
        vec![
            Artifact {
                path: "out.vmfb".to_owned(),
                bytes: 89414,
                sha256: None,
                role: ArtifactRole::Output,
                entries: Some(vec![
                    member("module.fb", 9788),
                    member("d_linked_embedded_elf_x86_64.so", 79176),
                ]),
                note: None,
            },
            Artifact {
                path: "dump/module_d_linked_embedded_elf_x86_64.so".to_owned(),
                bytes: 79176,
                sha256: None,
                role: ArtifactRole::Dump,
                entries: None,
                note: None,
            },
        ]
    }

    #[test]
    fn the_section_has_the_size_the_kinds_with_shares_and_the_dumps() {
        let mut text = Vec::new();
        write_text(&vmfb(), TextFormat::Table, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("\nout.vmfb: 89414 bytes\n"), "{text}");
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert!(rows.contains(&vec![
            "executable",
            "79176",
            "88.5%",
            "1",
            "d_linked_embedded_elf_x86_64.so",
            "(79176)"
        ]));
        assert!(rows.contains(&vec!["module", "9788", "10.9%", "1", "module.fb", "(9788)"]));
        assert!(rows.contains(&vec!["(archive", "headers)", "450", "0.5%"]));
        assert!(text.ends_with("dumps: 1 file, 79176 bytes (run.json lists them)\n"));
        let json = serde_json::to_value(to_json(&vmfb())).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 1);
        assert_eq!(json[0]["kinds"][0]["kind"], "executable");
        assert_eq!(json[0]["kinds"][0]["percent"], 88.55);
        assert_eq!(json[0]["overhead_bytes"], 450);
    }

    #[test]
    fn no_artifacts_write_nothing() {
        let mut text = Vec::new();
        write_text(&[], TextFormat::Markdown, &mut text).unwrap();
        assert!(text.is_empty());
    }
}
