//! The process's allocator: the C library's, except that a small allocation
//! the C library cannot serve ends the process with one line and exit code
//! 5 (the environment), instead of Rust's "memory allocation of 69 bytes
//! failed" and an abort (exit 134). Under a tight address-space limit
//! (`ulimit -v 60000`) a self-launching parent ran out in 4 to 10 of 20
//! MPICH runs. Large requests still return null, so that the callers that
//! ask with `try_reserve` (message buffers, samples) keep their own message.

use std::alloc::{GlobalAlloc, Layout, System};

/// Below this many bytes a failed allocation is the address space running
/// out, not a buffer too large: nothing asks for it fallibly.
const SMALL: usize = 1 << 20;

/// The global allocator ([`System`], with the rule above).
pub struct ExitWhenExhausted;

/// Writes the line and exits, without allocating.
fn exhausted() -> ! {
    const LINE: &[u8] =
        b"error: out of memory: a small allocation failed (is the address-space limit, ulimit -v, too tight?)\n";
    // SAFETY: a write of a static buffer to stderr, then _exit: neither allocates.
    unsafe {
        libc::write(2, LINE.as_ptr().cast(), LINE.len());
        libc::_exit(5)
    }
}

// SAFETY: every call is passed to `System` unchanged; only a null result
// for a small size ends the process instead of being returned.
unsafe impl GlobalAlloc for ExitWhenExhausted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if p.is_null() && layout.size() < SMALL {
            exhausted()
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() && layout.size() < SMALL {
            exhausted()
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() && new_size < SMALL {
            exhausted()
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_requests_fail_softly() {
        let a = ExitWhenExhausted;
        // An impossible size returns null (the caller's try_reserve reports it).
        let l = Layout::from_size_align(isize::MAX as usize - 4095, 4096).unwrap();
        assert!(unsafe { a.alloc(l) }.is_null());
        let l = Layout::from_size_align(64, 8).unwrap();
        let p = unsafe { a.alloc(l) };
        assert!(!p.is_null());
        unsafe { a.dealloc(p, l) };
    }
}
