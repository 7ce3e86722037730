//! Progress bars on standard error, for work that can take more than a moment (reading
//! a large trace, the cycle engine, a capture, a sweep). They are drawn only when
//! standard error is a terminal and `--quiet` was not given, so pipes, logs and tests
//! see nothing of them; a bar is cleared when its work ends. [`Bars`] draws the phases
//! the library reports ([`pipeline::Progress`]).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pipeline::progress::Unit;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

static QUIET: AtomicBool = AtomicBool::new(false);

/// Hides every progress bar from now on (`--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether bars are drawn: standard error is a terminal and `--quiet` was not given.
pub fn shown() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A progress bar (hidden where [`shown`] says no), cleared when dropped.
pub struct Progress {
    bar: ProgressBar,
    /// The furthest position reported by [`Progress::reached`].
    furthest: AtomicU64,
}

fn make(len: Option<u64>, template: &str, what: &str) -> Progress {
    let bar = if shown() {
        let bar = match len {
            Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr_with_hz(8)),
            None => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(8));
                bar.enable_steady_tick(Duration::from_millis(125));
                bar
            }
        };
        bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
        bar.set_message(what.to_string());
        bar
    } else {
        ProgressBar::hidden()
    };
    Progress { bar, furthest: AtomicU64::new(0) }
}

/// A bar over `len` bytes of input (a spinner with the bytes read when the length is
/// not known: a pipe), labelled `what`.
pub fn bytes(len: Option<u64>, what: &str) -> Progress {
    match len {
        Some(_) => make(len, "{msg} {wide_bar} {bytes}/{total_bytes} ETA {eta}", what),
        None => make(None, "{spinner} {msg} {bytes} {bytes_per_sec}", what),
    }
}

/// A bar over `n` steps of work, each a `unit`, labelled `what`.
pub fn steps(n: u64, unit: &str, what: &str) -> Progress {
    make(Some(n), &format!("{{msg}} {{wide_bar}} {{pos}}/{{len}} {unit} ETA {{eta}}"), what)
}

/// A spinner with the time elapsed, for work whose length is not known, labelled `what`.
pub fn spinner(what: &str) -> Progress {
    make(None, "{spinner} {msg} ({elapsed})", what)
}

impl Progress {
    /// Counts `n` more bytes or steps done.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Marks position `at` as reached (from any thread: the bar keeps the furthest).
    pub fn reached(&self, at: u64) {
        if self.furthest.fetch_max(at, Ordering::Relaxed) < at {
            self.bar.set_position(at);
        }
    }

    /// Changes the label.
    pub fn say(&self, what: impl Into<std::borrow::Cow<'static, str>>) {
        self.bar.set_message(what);
    }

    /// `reader`, counting its bytes on the bar.
    pub fn wrap_read<R: std::io::Read>(&self, reader: R) -> impl std::io::Read {
        self.bar.wrap_read(reader)
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The library's phases of work drawn as bars, one at a time: a bar over the bytes of a
/// trace being read, a spinner for a sort, a bar over steps.
#[derive(Default)]
pub struct Bars {
    current: Mutex<Option<Progress>>,
}

impl Bars {
    /// No phase yet.
    pub fn new() -> Bars {
        Bars::default()
    }

    fn with(&self, f: impl FnOnce(&Progress)) {
        if let Some(p) = self.current.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            f(p);
        }
    }
}

impl pipeline::Progress for Bars {
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        let bar = match unit {
            Unit::Bytes => bytes(total, what),
            Unit::Steps(name) => match total {
                Some(n) => steps(n, name, what),
                None => spinner(what),
            },
            Unit::Time => spinner(what),
        };
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn advance(&self, n: u64) {
        self.with(|p| p.inc(n));
    }

    fn reach(&self, at: u64) {
        self.with(|p| p.reached(at));
    }

    fn end(&self) {
        self.current.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_bar_keeps_the_furthest_position() {
        set_quiet(true);
        assert!(!shown());
        let p = bytes(Some(5), "reading");
        p.reached(3);
        p.reached(2);
        assert_eq!(p.furthest.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn bars_hold_one_phase_at_a_time() {
        use pipeline::Progress as _;
        set_quiet(true);
        let bars = Bars::new();
        bars.begin("reading", Some(10), Unit::Bytes);
        bars.reach(4);
        let at = |b: &Bars| b.current.lock().unwrap().as_ref().map(|p| p.furthest.load(Ordering::Relaxed));
        assert_eq!(at(&bars), Some(4));
        bars.begin("sorting", None, Unit::Time);
        assert_eq!(at(&bars), Some(0), "a new phase replaces the last");
        bars.end();
        assert_eq!(at(&bars), None);
    }
}
