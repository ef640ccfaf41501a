//! Executables a compile built more than once: dumped sources that are the
//! same once their symbols and SSA names are renamed in order of
//! appearance (**identical**), or the same but for the values of their
//! constants (**but for constants**). iree-compile merges identical
//! executables before codegen (`DeduplicateExecutablesPass`), so the first
//! kind says that merging missed some. The second is one shape codegen'd
//! once per constant: a scale or a bound (and the offset of a result in
//! its buffer, which iree-compile 3.13 puts in the executable as a
//! constant).

use std::fmt::Write;
use std::path::PathBuf;
use std::sync::LazyLock;

use hashbrown::HashMap;
use regex::Regex;

use super::ExecutableSource;

/// How the executables of a group are alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Likeness {
    /// The same source once symbols and SSA names are renamed.
    Identical,
    /// The same source once names are renamed and constants' values
    /// blanked; some differ in a constant.
    ButForConstants,
}

impl Likeness {
    /// The words the text reports use.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Likeness::Identical => "identical",
            Likeness::ButForConstants => "the same but for constants",
        }
    }
}

/// Executables that are alike, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TwinGroup {
    likeness: Likeness,
    /// Indexes into the sources given to [`twins`], at least two.
    members: Vec<usize>,
}

/// Dumped executables that are alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alike {
    pub likeness: Likeness,
    /// The executables' names, in the order of the sources.
    pub names: Vec<String>,
    /// Their dumped sources.
    pub files: Vec<PathBuf>,
}

/// The groups of alike executables among the dumped `sources`, largest
/// first.
pub(crate) fn alike(sources: &[ExecutableSource]) -> Vec<Alike> {
    let texts: Vec<&str> = sources.iter().map(|source| source.text.as_str()).collect();
    twins(&texts)
        .into_iter()
        .map(|group| Alike {
            likeness: group.likeness,
            names: group
                .members
                .iter()
                .map(|&member| sources[member].name.clone())
                .collect(),
            files: group
                .members
                .iter()
                .map(|&member| sources[member].file.clone())
                .collect(),
        })
        .collect()
}

/// Names a line of alike executables lists before "and N more".
const LISTED: usize = 6;

/// The first names of a group, `a, b, c and 4 more`.
pub(crate) fn listed_names(names: &[String]) -> String {
    let mut listed = names[..names.len().min(LISTED)].join(", ");
    if names.len() > LISTED {
        listed.push_str(&format!(" and {} more", names.len() - LISTED));
    }
    listed
}

/// `diff A B` of the first two of a group's sources, each quoted when it
/// has a space; `None` for fewer than two.
pub(crate) fn diff_command(sources: &[String]) -> Option<String> {
    let quoted = |path: &str| match path.contains(' ') {
        true => format!("'{path}'"),
        false => path.to_owned(),
    };
    match sources {
        [first, second, ..] => Some(format!("diff {} {}", quoted(first), quoted(second))),
        _ => None,
    }
}

/// A name the printer chose or the compile made up: a symbol (`@name`,
/// `@"quoted name"`) or an SSA value (`%c16384`, `%cst_0`, `%arg0`).
static NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"@("[^"]*"|[A-Za-z_$.][\w$.\-]*)|%[\w$.\-]+"#).expect("the name pattern compiles")
});

/// The value of an `arith.constant`, up to its ` : type`.
static CONSTANT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"arith\.constant (dense<[^>]*>|[^:\s][^:]*?) :")
        .expect("the constant pattern compiles")
});

/// The groups of alike executables among `sources` (each a dumped source's
/// text), largest first, then in the order of their first member.
fn twins(sources: &[&str]) -> Vec<TwinGroup> {
    let renamed: Vec<String> = sources.iter().map(|text| rename_names(text)).collect();
    let mut by_shape: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, text) in renamed.iter().enumerate() {
        let shape = CONSTANT.replace_all(text, "arith.constant ? :");
        by_shape.entry(shape.into_owned()).or_default().push(index);
    }
    let mut groups: Vec<TwinGroup> = by_shape
        .into_values()
        .filter(|members| members.len() > 1)
        .map(|members| {
            let first = &renamed[members[0]];
            let likeness = if members.iter().all(|&member| renamed[member] == *first) {
                Likeness::Identical
            } else {
                Likeness::ButForConstants
            };
            TwinGroup { likeness, members }
        })
        .collect();
    // Members are in the sources' order, so each group's first member
    // orders groups of a size as the sources are.
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.members[0].cmp(&b.members[0]))
    });
    groups
}

/// `text` with each distinct symbol and SSA value replaced by `@n0`,
/// `%n1`, … in the order it first appears. The printer names an index
/// constant by its value (`%c16384`), so values are renamed with symbols.
fn rename_names(text: &str) -> String {
    let mut numbers: HashMap<&str, usize> = HashMap::new();
    let mut renamed = String::with_capacity(text.len());
    let mut last = 0;
    for name in NAME.find_iter(text) {
        let next = numbers.len();
        let number = *numbers.entry(name.as_str()).or_insert(next);
        renamed.push_str(&text[last..name.start()]);
        renamed.push_str(&name.as_str()[..1]);
        // Writing into a String does not fail.
        let _ = write!(renamed, "n{number}");
        last = name.end();
    }
    renamed.push_str(&text[last..]);
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dumped source of iree-compile 3.13 (abridged), with `NAME` for the
    /// executable's name and `VALUE` for its constant.
    const SOURCE: &str = "hal.executable public @NAME {
  hal.executable.variant public @embedded_elf_x86_64 target(<\"llvm-cpu\", \"embedded-elf-x86_64\", {cpu = \"generic\"}>) {
    hal.executable.export public @NAME_elementwise_4096_f32 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, \"ReadOnly|Indirect\">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
      %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
      hal.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @NAME_elementwise_4096_f32() {
        %cst = arith.constant VALUE : f32
        %c0 = arith.constant 0 : index
        return
      }
    }
  }
}
";

    fn source(name: &str, value: &str) -> String {
        SOURCE.replace("NAME", name).replace("VALUE", value)
    }

    #[test]
    fn renamed_executables_are_identical_and_other_constants_are_twins() {
        let texts = [
            source("g0_dispatch_0", "1.500000e+00"),
            source("g1_dispatch_0", "2.500000e+00"),
            source("g2_dispatch_0", "1.500000e+00"),
            source("other_dispatch_0", "1.500000e+00").replace("arith.constant 0 : index", ""),
            source("g3_dispatch_0", "dense<[1.0, 2.0]>"),
        ];
        let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert_eq!(
            twins(&sources),
            [TwinGroup {
                likeness: Likeness::ButForConstants,
                members: vec![0, 1, 2, 4],
            }]
        );
        assert_eq!(
            twins(&[sources[0], sources[2]]),
            [TwinGroup {
                likeness: Likeness::Identical,
                members: vec![0, 1],
            }]
        );
        assert!(twins(&[sources[0], sources[3]]).is_empty());
    }

    #[test]
    fn names_are_renamed_by_first_appearance_so_references_keep_their_pairing() {
        assert_eq!(
            rename_names("call @f(@g) @f @\"q q\" %c16384 = %arg0 : %c16384"),
            "call @n0(@n1) @n0 @n2 %n3 = %n4 : %n3"
        );
        // A swapped pairing is a different program.
        assert_ne!(rename_names("@a @b @a"), rename_names("@a @b @b"));
    }

    #[test]
    fn a_type_is_not_a_constant_s_value() {
        let texts = [
            source("a", "1.0"),
            source("b", "1.0").replace(": f32", ": f16"),
        ];
        let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert!(twins(&sources).is_empty());
    }
}
