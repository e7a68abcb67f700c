//! Message buffers: 8-byte aligned, viewable as bytes or as `f32` elements.

/// A zero-initialised buffer of `len` bytes, aligned for `f32`/`f64` access.
pub struct Buffer {
    words: Vec<u64>,
    len: usize,
}

impl Buffer {
    /// Allocates `len` bytes (at least one word, so pointers are never dangling).
    pub fn try_new(len: usize) -> Result<Buffer, std::collections::TryReserveError> {
        let n = len.div_ceil(8).max(1);
        let mut words = Vec::new();
        words.try_reserve_exact(n)?;
        words.resize(n, 0u64);
        Ok(Buffer { words, len })
    }

    pub fn ptr(&self) -> *const u8 {
        self.words.as_ptr() as *const u8
    }

    pub fn mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }

    pub fn fptr(&self) -> *const f32 {
        self.words.as_ptr() as *const f32
    }

    pub fn mut_fptr(&mut self) -> *mut f32 {
        self.words.as_mut_ptr() as *mut f32
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the vector holds at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.len) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.mut_ptr(), self.len) }
    }

    pub fn floats(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.fptr(), self.len / 4) }
    }

    pub fn floats_mut(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.mut_fptr(), self.len / 4) }
    }
}
