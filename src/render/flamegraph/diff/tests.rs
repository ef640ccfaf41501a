//! Tests of the differential flamegraph: colours by path, the noise, the
//! correction, moved work and the frames' places.

use super::*;

/// The title and fill of every frame of an SVG, in order.
fn frames(svg: &Svg) -> Vec<(String, String)> {
    let svg = std::str::from_utf8(&svg.bytes).unwrap();
    let frames =
        &svg[svg.find("<svg id=\"frames\"").unwrap()..svg.find("<g id=\"legend\"").unwrap()];
    frames
        .split("<title>")
        .skip(1)
        .map(|frame| {
            let title = frame[..frame.find("</title>").unwrap()].to_owned();
            let fill_at = frame.find("fill=\"").unwrap() + "fill=\"".len();
            let fill = frame[fill_at..fill_at + frame[fill_at..].find('"').unwrap()].to_owned();
            (title, fill)
        })
        .collect()
}

/// A diff of one run a side (sampling error only), at a 1 pp threshold.
fn sampling_error_only<'a>(
    base: &'a [HashMap<String, u64>],
    new: &'a [HashMap<String, u64>],
) -> DiffStacks<'a> {
    DiffStacks {
        base,
        new,
        noise: Noise {
            dispersion: 1.0,
            degrees_of_freedom: None,
        },
        threshold_pp: 1.0,
    }
}

fn labels() -> Labels {
    Labels {
        title: "t".to_owned(),
        base: "base".to_owned(),
        new: "new".to_owned(),
    }
}

fn stacks(lines: &[(&str, u64)]) -> HashMap<String, u64> {
    lines
        .iter()
        .map(|(line, count)| ((*line).to_owned(), *count))
        .collect()
}

#[test]
fn each_frame_is_coloured_by_the_change_of_its_own_path() {
    // `c` grows under `b` and shrinks under `a` and `e`: colours go by
    // frame (path), not by name. `c` falls by 20 pp in all, so the work
    // under `a` and `b` did not merely move.
    let base = stacks(&[
        ("main;a;c", 300),
        ("main;b;c", 300),
        ("main;e;c", 200),
        ("main;d", 180),
        ("main;f", 10),
        ("main;f(int)", 10),
    ]);
    let new = stacks(&[
        ("main;a;c", 100),
        ("main;b;c", 500),
        ("main;d", 380),
        ("main;f", 10),
        ("main;f(int)", 10),
    ]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&new));
    let labels = labels();
    let red = "rgb(255,90,90)";
    let blue = "rgb(90,90,255)";
    let grey = "rgb(212,212,212)";
    let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap());
    let fill_of = |frames: &[(String, String)], title: &str| -> String {
        frames
            .iter()
            .find(|(text, _)| text.starts_with(title))
            .unwrap_or_else(|| panic!("no frame {title} in {frames:?}"))
            .1
            .clone()
    };
    // Frames in the order of folded lines: a, c under a, b, c under
    // b, d, f(int), f.
    assert_eq!(fill_of(&drawn, "a (100 samples"), blue);
    assert_eq!(fill_of(&drawn, "c (100 samples"), blue);
    assert_eq!(fill_of(&drawn, "b (500 samples"), red);
    assert_eq!(fill_of(&drawn, "c (500 samples"), red);
    assert_eq!(fill_of(&drawn, "d (380 samples"), red);
    assert_eq!(fill_of(&drawn, "main (1,000 samples"), grey);
    assert_eq!(fill_of(&drawn, "f (10 samples"), grey);
    assert_eq!(fill_of(&drawn, "f(int) (10 samples"), grey);
    assert!(
        drawn
            .iter()
            .any(|(title, _)| title == "c (500 samples, 50.00%; base 30.00%, +20.00 pp)"),
        "{drawn:?}"
    );
    // BASE's stacks, the same colours: `c` under `a` has 300 samples there,
    // and `e`, gone from NEW, is drawn only here.
    let drawn = frames(&draw(&diff, Drawn::Base, &labels, 0.0).unwrap());
    assert_eq!(fill_of(&drawn, "c (300 samples, 30.00%; new 10.00%"), blue);
    assert_eq!(fill_of(&drawn, "c (300 samples, 30.00%; new 50.00%"), red);
    assert_eq!(fill_of(&drawn, "e (200 samples, 20.00%; new 0.00%"), blue);
}

#[test]
fn work_that_only_moved_to_another_path_is_drawn_as_moved() {
    // The pass ran under the pipeline adaptor in BASE and on a worker in
    // NEW: its frames are on one side only, but `pass`, `matmul` and
    // `lex` take as many samples in all. The adaptor and the worker are
    // where it ran: they did change.
    let base = stacks(&[
        ("cc;main;adaptor;pass;matmul", 300),
        ("cc;main;adaptor;pass;lex", 100),
        ("cc;main;other", 600),
    ]);
    let new = stacks(&[
        ("cc;worker;pass;matmul", 300),
        ("cc;worker;pass;lex", 100),
        ("cc;main;other", 600),
    ]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&new));
    let labels = labels();
    let moved = "rgb(176,196,222)";
    let (red, blue) = ("rgb(255,90,90)", "rgb(90,90,255)");
    let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap());
    let fills = |frames: &[(String, String)], name: &str| -> Vec<String> {
        frames
            .iter()
            .filter(|(title, _)| title.starts_with(&format!("{name} (")))
            .map(|(_, fill)| fill.clone())
            .collect()
    };
    for name in ["pass", "matmul", "lex"] {
        assert_eq!(fills(&drawn, name), [moved], "{name}: {drawn:?}");
    }
    assert!(
        drawn.iter().any(|(title, _)| title
            == "pass (400 samples, 40.00%; base 0.00%, +40.00 pp, moved: the same work on another path)"),
        "{drawn:?}"
    );
    assert_eq!(fills(&drawn, "worker"), [red]);
    assert_eq!(fills(&drawn, "main"), [blue]);
    assert_eq!(fills(&drawn, "other"), ["rgb(212,212,212)"]);
    let drawn = frames(&draw(&diff, Drawn::Base, &labels, 0.0).unwrap());
    assert_eq!(fills(&drawn, "adaptor"), [blue], "{drawn:?}");
    assert_eq!(fills(&drawn, "pass"), [moved], "{drawn:?}");
    let svg = draw(&diff, Drawn::New, &labels, 0.0).unwrap();
    let svg = std::str::from_utf8(&svg.bytes).unwrap();
    assert!(svg.contains("moved: same work, other path"), "the legend");

    // When the work also grew, its new path is grown, not moved: `lex`
    // takes 200 more samples in all, and so does `pass`.
    let new = stacks(&[
        ("cc;worker;pass;matmul", 300),
        ("cc;worker;pass;lex", 300),
        ("cc;main;other", 400),
    ]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&new));
    let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap());
    // Red, paler than `worker`'s, the largest change drawn.
    assert_eq!(fills(&drawn, "lex"), ["rgb(255,158,158)"], "{drawn:?}");
    assert_eq!(fills(&drawn, "pass"), [red], "{drawn:?}");
    // `matmul` moved with the same samples: it alone only moved.
    assert_eq!(fills(&drawn, "matmul"), [moved], "{drawn:?}");
}

#[test]
fn a_function_inside_itself_counts_its_samples_once() {
    // `f` recurses in BASE; in NEW it runs once as deep, elsewhere: 300
    // samples of `f` in all on both sides, so its frames moved.
    let base = stacks(&[("cc;a;f;f;x", 300), ("cc;b", 700)]);
    let new = stacks(&[("cc;c;f;x", 300), ("cc;b", 700)]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&new));
    let tree = Tree::new(&diff);
    let functions = tree.function_runs();
    assert_eq!(functions["f"], [vec![300], vec![300]]);
    assert_eq!(functions["cc"], [vec![1000], vec![1000]]);
    let labels = labels();
    let drawn = frames(&draw(&diff, Drawn::Base, &labels, 0.0).unwrap());
    let moved: Vec<&str> = drawn
        .iter()
        .filter(|(_, fill)| fill == "rgb(176,196,222)")
        .map(|(title, _)| &title[..title.find(' ').unwrap()])
        .collect();
    assert_eq!(moved, ["f", "f", "x"], "{drawn:?}");
}

#[test]
fn a_frame_that_moves_as_much_between_runs_as_between_sides_stays_grey() {
    // Three runs a side: `a` is 30%, 50%, 40% of BASE's runs and 45%,
    // 55%, 50% of NEW's. Pooled, +10 pp would be far beyond sampling
    // error; against the spread between runs it is not.
    let run = |a: u64| stacks(&[("main;a", a), ("main;b", 1000 - a)]);
    let base = [run(300), run(500), run(400)];
    let new = [run(450), run(550), run(500)];
    let noisy = DiffStacks {
        base: &base,
        new: &new,
        noise: Noise {
            dispersion: 1.0,
            degrees_of_freedom: Some(80.0),
        },
        threshold_pp: 1.0,
    };
    let labels = labels();
    let drawn = frames(&draw(&noisy, Drawn::New, &labels, 0.0).unwrap());
    assert!(
        drawn.iter().all(|(_, fill)| fill == "rgb(212,212,212)"),
        "{drawn:?}"
    );
    // The same change with runs that agree is flagged.
    let base = [run(400), run(401), run(399)];
    let new = [run(500), run(501), run(499)];
    let steady = DiffStacks {
        base: &base,
        new: &new,
        ..noisy
    };
    let drawn = frames(&draw(&steady, Drawn::New, &labels, 0.0).unwrap());
    assert!(
        drawn.iter().any(|(_, fill)| fill == "rgb(255,90,90)"),
        "{drawn:?}"
    );
}

#[test]
fn changes_within_sampling_error_stay_grey() {
    // 50% → 52% of 1000 samples is within sampling error (z ≈ 0.9).
    let base = stacks(&[("main;a", 500), ("main;b", 500)]);
    let new = stacks(&[("main;a", 520), ("main;b", 480)]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&new));
    let labels = labels();
    let drawn = frames(&draw(&diff, Drawn::New, &labels, 0.0).unwrap());
    assert!(
        drawn.iter().all(|(_, fill)| fill == "rgb(212,212,212)"),
        "{drawn:?}"
    );
}

#[test]
fn frames_sit_in_line_order_after_their_callers_own_samples_and_keep_their_places() {
    let base = stacks(&[
        ("main;a", 1),
        ("main;c", 400),
        ("main;b", 489),
        ("main", 10),
        ("main;f;x", 60),
        ("main;f(int)", 40),
    ]);
    let diff = sampling_error_only(std::slice::from_ref(&base), std::slice::from_ref(&base));
    let tree = Tree::new(&diff);
    // At 0.5%, `a` (1 sample of 1,000) is left out; `b` starts after
    // it and after `main`'s own 10 samples. `f(int);` sorts before
    // `f;`, as their folded lines do.
    let placed: Vec<(&str, usize, u64, u64)> = tree
        .frames(0, 0.5)
        .iter()
        .map(|frame| {
            (
                tree.nodes[frame.key].name,
                frame.depth,
                frame.start,
                frame.width,
            )
        })
        .collect();
    assert_eq!(
        placed,
        [
            ("", 0, 0, 1000),
            ("main", 1, 0, 1000),
            ("b", 2, 11, 489),
            ("c", 2, 500, 400),
            ("f(int)", 2, 900, 40),
            ("f", 2, 940, 60),
            ("x", 3, 940, 60),
        ]
    );
}
