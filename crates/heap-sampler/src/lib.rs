//! The interposer of `record --heap`, `LD_PRELOAD`ed into the compile: it
//! wraps malloc, calloc, realloc, reallocarray, free, posix_memalign,
//! aligned_alloc and memalign around glibc's own `__libc_*` functions,
//! samples allocations by bytes (each byte with probability 1/R, R from
//! `COMPILE_PERF_HEAP_RATE`, default 512 KiB: the tcmalloc/jemalloc method),
//! keeps the sampled pointers in a lock-free table, and calls
//! [`compile_perf_heap_alloc`] on each sampled allocation and
//! [`compile_perf_heap_free`] on each free of a sampled pointer. perf puts
//! uprobes on those two markers; nothing here writes or reads a file.
//!
//! Rules of the hooks: no allocation, no lock, no panic (a panic would
//! allocate); a thread already inside a hook (re-entered through glibc)
//! goes straight to glibc. After `fork` the child has a copy of the table,
//! which holds exactly its sampled pointers; after `exec` the library is
//! loaded again from `LD_PRELOAD`, with an empty table.

mod sampling;
mod table;

use std::ffi::c_void;

use sampling::Sampled;

unsafe extern "C" {
    fn __libc_malloc(size: usize) -> *mut c_void;
    fn __libc_calloc(count: usize, size: usize) -> *mut c_void;
    fn __libc_realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
    fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
    fn __libc_free(ptr: *mut c_void);
}

/// The marker of a sampled allocation: `ptr` of `size` bytes stands for
/// `weight` bytes (`size / (1 − e^(−size/R))`). perf's uprobe reads the
/// three arguments from `%di`, `%si` and `%dx` at its entry.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn compile_perf_heap_alloc(ptr: usize, size: usize, weight: usize) {
    std::hint::black_box((ptr, size, weight));
}

/// The marker of a free (or a realloc that moves or frees) of a sampled
/// pointer; called before glibc frees it, so that an allocation that
/// reuses the address comes after it in time.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C" fn compile_perf_heap_free(ptr: usize) {
    std::hint::black_box(ptr);
}

/// Counts `size` bytes just allocated at `ptr` against this thread's
/// countdown; when sampled, records the pointer and calls the marker.
fn allocated(ptr: *mut c_void, size: usize) {
    if ptr.is_null() {
        return;
    }
    if let Some(Sampled { weight }) = sampling::count(size) {
        let _guard = sampling::Guard::enter();
        if table::insert(ptr as usize) {
            compile_perf_heap_alloc(ptr as usize, size, weight);
        }
    }
}

/// Forgets `ptr` when it was sampled, calling the free marker.
fn freeing(ptr: *mut c_void) {
    if !ptr.is_null() && table::remove(ptr as usize) {
        compile_perf_heap_free(ptr as usize);
    }
}

/// # Safety
/// The C contract of `malloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
    // SAFETY: glibc's malloc, with the caller's argument.
    let ptr = unsafe { __libc_malloc(size) };
    allocated(ptr, size);
    ptr
}

/// # Safety
/// The C contract of `calloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    // SAFETY: glibc's calloc, which checks the product for overflow.
    let ptr = unsafe { __libc_calloc(count, size) };
    allocated(ptr, count.saturating_mul(size));
    ptr
}

/// # Safety
/// The C contract of `realloc`: `ptr` is null or from this allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    // The old block is gone once glibc returns (moved, or freed for size
    // 0); a failed realloc loses the sample of a block it keeps.
    freeing(ptr);
    // SAFETY: glibc's realloc, with the caller's arguments.
    let moved = unsafe { __libc_realloc(ptr, size) };
    allocated(moved, size);
    moved
}

/// # Safety
/// The C contract of `reallocarray`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn reallocarray(ptr: *mut c_void, count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        // SAFETY: the contract of realloc, which the caller keeps.
        Some(bytes) => unsafe { realloc(ptr, bytes) },
        None => {
            set_errno(libc_errno::ENOMEM);
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// The C contract of `free`: `ptr` is null or from this allocator.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(ptr: *mut c_void) {
    freeing(ptr);
    // SAFETY: glibc's free of a block glibc allocated.
    unsafe { __libc_free(ptr) }
}

/// # Safety
/// The C contract of `memalign`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memalign(align: usize, size: usize) -> *mut c_void {
    // SAFETY: glibc's memalign, which checks the alignment.
    let ptr = unsafe { __libc_memalign(align, size) };
    allocated(ptr, size);
    ptr
}

/// # Safety
/// The C contract of `aligned_alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut c_void {
    if !align.is_power_of_two() {
        set_errno(libc_errno::EINVAL);
        return std::ptr::null_mut();
    }
    // SAFETY: the contract of memalign, with a power-of-two alignment.
    unsafe { memalign(align, size) }
}

/// # Safety
/// The C contract of `posix_memalign`: `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 {
    if !align.is_power_of_two() || align % size_of::<*mut c_void>() != 0 {
        return libc_errno::EINVAL;
    }
    // SAFETY: the contract of memalign, with a valid alignment.
    let ptr = unsafe { memalign(align, size) };
    if ptr.is_null() {
        return libc_errno::ENOMEM;
    }
    // SAFETY: the caller gives a writable `out`.
    unsafe { *out = ptr };
    0
}

/// The two error numbers the wrappers set (Linux's values).
mod libc_errno {
    pub(crate) const ENOMEM: i32 = 12;
    pub(crate) const EINVAL: i32 = 22;
}

fn set_errno(value: i32) {
    unsafe extern "C" {
        fn __errno_location() -> *mut i32;
    }
    // SAFETY: glibc's pointer to this thread's errno, always valid.
    unsafe { *__errno_location() = value };
}
