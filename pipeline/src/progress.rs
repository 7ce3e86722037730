//! How long work tells its caller how far it has come, without drawing anything: the
//! library calls a [`Progress`] the caller hands it, one phase at a time (reading a
//! trace, sorting it, merging sorted runs); the command-line tool turns the calls into
//! progress bars, the Python package and the tests pass [`Silent`].

use std::io::Read;

/// What a phase counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes of input read.
    Bytes,
    /// Steps of work, named (cells, engine runs).
    Steps(&'static str),
    /// Nothing counted: only time passes (a sort, a merge).
    Time,
}

/// Receives the progress of long work. Every method may be called from any thread;
/// phases do not nest (a new [`Progress::begin`] ends the one before).
pub trait Progress: Sync {
    /// A phase starts: `what` (e.g. "reading trace.csv"), over `total` units of `unit`
    /// where known (`None`: a spinner's work, of unknown length).
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// Position `at` of the current phase is reached (from any thread, in any order:
    /// the furthest counts).
    fn reach(&self, at: u64);
    /// The current phase ended.
    fn end(&self);
}

/// Progress that goes nowhere.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn begin(&self, _: &str, _: Option<u64>, _: Unit) {}
    fn advance(&self, _: u64) {}
    fn reach(&self, _: u64) {}
    fn end(&self) {}
}

/// A phase that ends when dropped (on every path out of the work, errors included).
pub struct Phase<'a>(&'a dyn Progress);

impl<'a> Phase<'a> {
    /// Begins the phase `what` on `progress` (see [`Progress::begin`]).
    pub fn begin(progress: &'a dyn Progress, what: &str, total: Option<u64>, unit: Unit) -> Phase<'a> {
        progress.begin(what, total, unit);
        Phase(progress)
    }

    /// The progress the phase reports to.
    pub fn progress(&self) -> &'a dyn Progress {
        self.0
    }

    /// `reader`, whose bytes read advance the phase.
    pub fn counting<R: Read>(&self, reader: R) -> Counting<'a, R> {
        Counting { inner: reader, progress: self.0 }
    }
}

impl Drop for Phase<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A reader that counts its bytes on a [`Progress`] ([`Phase::counting`]).
pub struct Counting<'a, R> {
    inner: R,
    progress: &'a dyn Progress,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[derive(Default)]
    struct Count {
        bytes: AtomicU64,
        ended: AtomicU64,
    }

    impl Progress for Count {
        fn begin(&self, _: &str, _: Option<u64>, _: Unit) {}
        fn advance(&self, n: u64) {
            self.bytes.fetch_add(n, Ordering::Relaxed);
        }
        fn reach(&self, _: u64) {}
        fn end(&self) {
            self.ended.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_counting_reader_passes_bytes_through_and_counts_them() {
        let count = Count::default();
        {
            let phase = Phase::begin(&count, "reading", Some(5), Unit::Bytes);
            let mut got = String::new();
            phase.counting("hello".as_bytes()).read_to_string(&mut got).unwrap();
            assert_eq!(got, "hello");
        }
        assert_eq!(count.bytes.load(Ordering::Relaxed), 5);
        assert_eq!(count.ended.load(Ordering::Relaxed), 1, "the phase ends when dropped");
    }
}
