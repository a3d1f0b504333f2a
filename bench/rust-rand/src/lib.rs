//! The Rust peer of `surand bench`: rand 0.8's `thread_rng()`, the generator a
//! Rust program gets from `rand::random()` (ChaCha12 in a 64-word buffer per
//! thread, reseeded from the OS every 64 KiB).  Each call asks `thread_rng()`
//! for the thread's handle and draws from it, as `rand::random()` does: no
//! handle is kept between calls, the same convention as surand_u32().
//!
//! The bench (tools/bench_sources.c) loads this object with dlopen() and calls
//! these functions through pointers, like every other source.
// SPDX-License-Identifier: MIT

use rand::RngCore;
use std::os::raw::{c_char, c_int};

/// One 32-bit draw: `thread_rng().next_u32()`.
#[no_mangle]
pub extern "C" fn surand_peer_rust_u32() -> u32 {
    rand::thread_rng().next_u32()
}

/// One 64-bit draw: `thread_rng().next_u64()`.
#[no_mangle]
pub extern "C" fn surand_peer_rust_u64() -> u64 {
    rand::thread_rng().next_u64()
}

/// Fills buf[0..len) with `thread_rng().try_fill_bytes()`: 0, or -1 on failure.
///
/// # Safety
/// buf must point to len writable bytes (len 0: any pointer).
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_fill(buf: *mut u8, len: usize) -> c_int {
    if len == 0 {
        return 0;
    }
    if buf.is_null() {
        return -1;
    }
    let out = std::slice::from_raw_parts_mut(buf, len);
    match rand::thread_rng().try_fill_bytes(out) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// What this object is, one line (a static string).
#[no_mangle]
pub extern "C" fn surand_peer_rust_desc() -> *const c_char {
    concat!(
        "Rust rand 0.8 thread_rng() (ChaCha12, 64-word buffer per thread, reseeded from the OS \
         every 64 KiB; next_u32 at 4 B, next_u64 at 8 B, fill_bytes otherwise)",
        "\0"
    )
    .as_ptr() as *const c_char
}
