//! Tests of every kind of path an output file can be written to.

use super::*;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::os::unix::net::UnixListener;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compile-perf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn write_text(path: &Path, text: &str) -> io::Result<()> {
    write_file(path, |out| out.write_all(text.as_bytes()))
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_char_device())
}

#[test]
fn an_existing_file_is_replaced_and_nothing_else_is_left() {
    let dir = scratch_dir("replace");
    let path = dir.join("out.folded");
    std::fs::write(&path, "old contents\n").unwrap();
    write_text(&path, "new contents\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents\n");
    assert_eq!(names_in(&dir), ["out.folded"]);

    let failed = write_file(&path, |out| {
        out.write_all(b"half")?;
        Err(io::Error::other("the writer failed"))
    });
    assert!(failed.is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new contents\n");
    assert_eq!(names_in(&dir), ["out.folded"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_file_is_created_and_a_failed_write_leaves_nothing() {
    let dir = scratch_dir("missing");
    let failed = dir.join("failed.svg");
    assert!(
        write_file(&failed, |out| {
            out.write_all(b"<svg")?;
            Err(io::Error::other("the writer failed"))
        })
        .is_err()
    );
    assert_eq!(names_in(&dir), Vec::<String>::new());
    let path = dir.join("out.svg");
    write_text(&path, "<svg/>").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "<svg/>");
    assert_eq!(names_in(&dir), ["out.svg"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlink_stays_and_its_target_is_replaced() {
    let dir = scratch_dir("symlink");
    std::fs::create_dir(dir.join("real")).unwrap();
    std::fs::write(dir.join("real/out.txt"), "old").unwrap();
    // A relative target, taken from the link's directory.
    symlink("real/out.txt", dir.join("link")).unwrap();
    write_text(&dir.join("link"), "new").unwrap();
    assert!(dir.join("link").is_symlink());
    assert_eq!(
        std::fs::read_link(dir.join("link")).unwrap(),
        Path::new("real/out.txt")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("real/out.txt")).unwrap(),
        "new"
    );
    assert_eq!(names_in(&dir), ["link", "real"]);
    assert_eq!(names_in(&dir.join("real")), ["out.txt"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_chain_of_symlinks_is_followed_to_its_end_even_when_it_dangles() {
    let dir = scratch_dir("chain");
    std::fs::write(dir.join("target"), "old").unwrap();
    symlink(dir.join("target"), dir.join("second")).unwrap();
    symlink("second", dir.join("first")).unwrap();
    write_text(&dir.join("first"), "new").unwrap();
    assert!(dir.join("first").is_symlink() && dir.join("second").is_symlink());
    assert_eq!(std::fs::read_to_string(dir.join("target")).unwrap(), "new");
    assert_eq!(names_in(&dir), ["first", "second", "target"]);

    // Dangling at the end of a chain: the missing target is created.
    symlink("made-by-write", dir.join("dangling")).unwrap();
    symlink("dangling", dir.join("to-dangling")).unwrap();
    write_text(&dir.join("to-dangling"), "made").unwrap();
    assert!(dir.join("dangling").is_symlink() && dir.join("to-dangling").is_symlink());
    assert_eq!(
        std::fs::read_to_string(dir.join("made-by-write")).unwrap(),
        "made"
    );
    assert_eq!(
        names_in(&dir),
        [
            "dangling",
            "first",
            "made-by-write",
            "second",
            "target",
            "to-dangling"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlink_loop_is_an_error_and_changes_nothing() {
    let dir = scratch_dir("loop");
    symlink("b", dir.join("a")).unwrap();
    symlink("a", dir.join("b")).unwrap();
    let error = write_text(&dir.join("a"), "never").unwrap_err();
    assert_eq!(error.raw_os_error(), Some(libc::ELOOP));
    assert_eq!(names_in(&dir), ["a", "b"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_is_written_in_place_to_its_reader() {
    let dir = scratch_dir("fifo");
    let fifo = dir.join("pipe");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `mkfifo` reads the NUL-terminated path it is given.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let text = "line\n".repeat(300_000);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut received = String::new();
            File::open(&fifo)
                .unwrap()
                .read_to_string(&mut received)
                .unwrap();
            received
        })
    };
    // A writer of our own, held while the test writes: the reader sees
    // the end even if the write never opened the FIFO.
    let held_open = OpenOptions::new().write(true).open(&fifo).unwrap();
    let written = write_text(&fifo, &text);
    drop(held_open);
    written.unwrap();
    assert_eq!(reader.join().unwrap(), text);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(names_in(&dir), ["pipe"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_socket_is_connected_to_and_written() {
    let dir = scratch_dir("socket");
    let path = dir.join("socket");
    let listener = UnixListener::bind(&path).unwrap();
    let reader = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut received = String::new();
        stream.read_to_string(&mut received).unwrap();
        received
    });
    write_text(&path, "through the socket\n").unwrap();
    assert_eq!(reader.join().unwrap(), "through the socket\n");
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_socket()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dev_null_takes_the_output_and_stays_a_device() {
    write_text(Path::new("/dev/null"), &"x".repeat(3 << 20)).unwrap();
    assert!(is_char_device(Path::new("/dev/null")));
    // Through a symlink too: the device is written, the link stays.
    let dir = scratch_dir("devnull");
    symlink("/dev/null", dir.join("null")).unwrap();
    write_text(&dir.join("null"), "gone").unwrap();
    assert!(dir.join("null").is_symlink() && is_char_device(Path::new("/dev/null")));
    assert_eq!(names_in(&dir), ["null"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dev_full_is_a_write_error_and_stays_a_device() {
    let error = write_text(Path::new("/dev/full"), "no room").unwrap_err();
    assert_eq!(error.raw_os_error(), Some(libc::ENOSPC));
    assert!(is_char_device(Path::new("/dev/full")));
}

#[test]
fn a_directory_in_the_way_is_an_error_and_is_kept() {
    let dir = scratch_dir("directory");
    let path = dir.join("out.svg");
    std::fs::create_dir(&path).unwrap();
    let error = write_text(&path, "<svg/>").unwrap_err();
    assert_eq!(error.raw_os_error(), Some(libc::EISDIR));
    assert!(path.is_dir());
    assert_eq!(names_in(&dir), ["out.svg"]);
    // A symlink to it is refused the same way.
    symlink("out.svg", dir.join("link")).unwrap();
    assert!(write_text(&dir.join("link"), "<svg/>").is_err());
    assert_eq!(names_in(&dir), ["link", "out.svg"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_block_device_is_refused() {
    // A node for loop device 0 made in a scratch directory (it is never
    // opened), or where that is not allowed, a block device of /dev.
    let dir = scratch_dir("block");
    let node = dir.join("loop0");
    let name = std::ffi::CString::new(node.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `mknod` reads the NUL-terminated path it is given.
    let made = unsafe { libc::mknod(name.as_ptr(), libc::S_IFBLK | 0o600, libc::makedev(7, 0)) };
    let is_block = |path: &Path| {
        std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_block_device())
    };
    let block = if made == 0 {
        node
    } else {
        std::fs::read_dir("/dev")
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| is_block(path))
            .expect("mknod is not allowed and /dev has no block device to test with")
    };
    let error = write_file(&block, |_| panic!("nothing is written")).unwrap_err();
    assert!(error.to_string().contains("block device"), "{error}");
    assert!(is_block(&block));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_reached_through_proc_is_appended_to_not_replaced() {
    let dir = scratch_dir("proc");
    let path = dir.join("redirected.txt");
    std::fs::write(&path, "header\n").unwrap();
    let open = OpenOptions::new().append(true).open(&path).unwrap();
    use std::os::fd::AsRawFd;
    let through_proc = PathBuf::from(format!("/proc/self/fd/{}", open.as_raw_fd()));
    assert_eq!(destination(&through_proc).unwrap(), Destination::InPlace);
    write_text(&through_proc, "body\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "header\nbody\n");
    assert_eq!(names_in(&dir), ["redirected.txt"]);
    drop(open);
    std::fs::remove_dir_all(&dir).unwrap();
}
