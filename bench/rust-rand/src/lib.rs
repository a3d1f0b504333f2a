//! The Rust peer of `surand bench`: rand 0.8's `thread_rng()` (ChaCha12 in a
//! 64-word buffer per thread, reseeded from the OS every 64 KiB), the
//! generator a Rust program gets from `rand::thread_rng()` / `rand::random()`.
//!
//! Each bench thread asks `thread_rng()` once for its handle and keeps it, as
//! a Rust loop does (`let mut rng = thread_rng();`): the calls then draw from
//! the handle without the thread-local lookup, which in a shared object costs
//! a `__tls_get_addr` call that a Rust program linked as one executable would
//! not pay.  That is the peer at its fastest; surand_u32() has no handle.
//!
//! The bench (bench/lib/bench_sources.c) loads this object with dlopen() and calls
//! these functions through pointers, like every other source; the two loop
//! functions run a whole loop of draws natively instead (tools/surand/bench/bench_words.c),
//! which is what a Rust program's own loop costs.
// SPDX-License-Identifier: MIT

use rand::rngs::ThreadRng;
use rand::RngCore;
use std::os::raw::{c_char, c_int};
use std::time::Instant;

/// The calling thread's `thread_rng()` handle, boxed; used and freed only on
/// that thread (ThreadRng is not Send).
#[no_mangle]
pub extern "C" fn surand_peer_rust_new() -> *mut ThreadRng {
    Box::into_raw(Box::new(rand::thread_rng()))
}

/// Frees a handle of surand_peer_rust_new(), on the thread that made it.
///
/// # Safety
/// h is NULL or a handle of surand_peer_rust_new() on this thread, not used after.
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_free(h: *mut ThreadRng) {
    if !h.is_null() {
        drop(Box::from_raw(h));
    }
}

/// One 32-bit draw: `rng.next_u32()`.
///
/// # Safety
/// h is a live handle of surand_peer_rust_new() on this thread.
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_u32(h: *mut ThreadRng) -> u32 {
    (*h).next_u32()
}

/// One 64-bit draw: `rng.next_u64()`.
///
/// # Safety
/// h is a live handle of surand_peer_rust_new() on this thread.
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_u64(h: *mut ThreadRng) -> u64 {
    (*h).next_u64()
}

/// Fills buf[0..len) with `rng.try_fill_bytes()`: 0, or -1 on failure.
///
/// # Safety
/// h is a live handle of surand_peer_rust_new() on this thread; buf points to
/// len writable bytes (len 0: any pointer).
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_fill(h: *mut ThreadRng, buf: *mut u8, len: usize) -> c_int {
    if len == 0 {
        return 0;
    }
    if buf.is_null() {
        return -1;
    }
    let out = std::slice::from_raw_parts_mut(buf, len);
    match (*h).try_fill_bytes(out) {
        Ok(()) => 0,
        Err(_) => -1,
    }
}

/// The native loop: n draws of `rng.next_u32()` in one Rust loop, where the
/// draw is inlined as in any Rust program's loop (no call per draw); the
/// XOR of the draws goes to *sink so that none is optimised away.  Returns
/// the loop's elapsed time in ns (std::time::Instant, CLOCK_MONOTONIC).
///
/// # Safety
/// h is a live handle of surand_peer_rust_new() on this thread; sink is writable.
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_loop_u32(h: *mut ThreadRng, n: u64, sink: *mut u64) -> u64 {
    let rng = &mut *h;
    let mut acc: u64 = 0;
    let t0 = Instant::now();
    for _ in 0..n {
        acc ^= u64::from(rng.next_u32());
    }
    let ns = t0.elapsed().as_nanos() as u64;
    std::ptr::write_volatile(sink, acc);
    ns
}

/// The same loop of `rng.next_u64()`.
///
/// # Safety
/// h is a live handle of surand_peer_rust_new() on this thread; sink is writable.
#[no_mangle]
pub unsafe extern "C" fn surand_peer_rust_loop_u64(h: *mut ThreadRng, n: u64, sink: *mut u64) -> u64 {
    let rng = &mut *h;
    let mut acc: u64 = 0;
    let t0 = Instant::now();
    for _ in 0..n {
        acc ^= rng.next_u64();
    }
    let ns = t0.elapsed().as_nanos() as u64;
    std::ptr::write_volatile(sink, acc);
    ns
}

/// What this object is, one line (a static string).
#[no_mangle]
pub extern "C" fn surand_peer_rust_desc() -> *const c_char {
    concat!(
        "Rust rand 0.8 thread_rng() (ChaCha12, 64-word buffer per thread, reseeded from the OS \
         every 64 KiB), its handle held per thread as a Rust loop keeps it; next_u32 at 4 B, \
         next_u64 at 8 B, fill_bytes otherwise",
        "\0"
    )
    .as_ptr() as *const c_char
}
