//! Message buffers: 8-byte aligned, viewable as bytes or as typed elements.

/// Plain element types a buffer can be viewed as (every bit pattern is valid).
pub trait Pod: Copy + 'static {}
impl Pod for u8 {}
impl Pod for i32 {}
impl Pod for f32 {}
impl Pod for f64 {}

/// A zero-initialised buffer of `len` bytes, aligned for any [`Pod`] element.
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

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn ptr(&self) -> *const u8 {
        self.words.as_ptr() as *const u8
    }

    pub fn mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }

    pub fn bytes(&self) -> &[u8] {
        self.typed()
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.typed_mut()
    }

    /// The buffer as elements of `T` (a trailing partial element is left out).
    pub fn typed<T: Pod>(&self) -> &[T] {
        // SAFETY: the words are initialised, 8-byte aligned (enough for every
        // Pod type) and hold at least `len` bytes; every bit pattern is a valid T.
        unsafe {
            std::slice::from_raw_parts(self.ptr() as *const T, self.len / std::mem::size_of::<T>())
        }
    }

    pub fn typed_mut<T: Pod>(&mut self) -> &mut [T] {
        let n = self.len / std::mem::size_of::<T>();
        unsafe { std::slice::from_raw_parts_mut(self.mut_ptr() as *mut T, n) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_views_share_the_bytes() {
        let mut b = Buffer::try_new(12).unwrap();
        assert_eq!(b.len(), 12);
        b.typed_mut::<i32>()[1] = 0x01020304;
        assert_eq!(&b.bytes()[4..8], &0x01020304i32.to_ne_bytes());
        assert_eq!(b.typed::<f64>().len(), 1);
        assert_eq!(b.typed::<f32>().len(), 3);
        assert_eq!(Buffer::try_new(0).unwrap().bytes().len(), 0);
    }
}
