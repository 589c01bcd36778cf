//! `--progress`: how far a catalog run has got, on stderr while it runs. On
//! a terminal one line is redrawn in place at most ten times a second; to a
//! file or pipe a line is written every few seconds. Off, each bundle costs
//! one branch.

use std::io::Write as _;
use std::time::{Duration, Instant};

/// What a run has handed to its judges so far, and when it last said so.
pub(super) struct Progress {
    on: Option<Said>,
}

struct Said {
    started: Instant,
    last: Option<Instant>,
    terminal: bool,
    /// How many bundles the run will judge, when known before (`catalog judge`).
    total: Option<usize>,
    done: usize,
    drawn: bool,
}

impl Progress {
    /// Progress said on stderr when `on`, redrawn in place when stderr is a
    /// terminal; `total`: the bundles to judge, when known.
    pub(super) fn on_stderr(on: bool, total: Option<usize>) -> Progress {
        use std::io::IsTerminal as _;
        let terminal = std::io::stderr().is_terminal();
        let said = Said { started: Instant::now(), last: None, terminal, total, done: 0, drawn: false };
        Progress { on: on.then_some(said) }
    }

    /// One more bundle handed to a judge: `bundle` of `package`.
    pub(super) fn judging(&mut self, package: &str, bundle: &str) {
        let Some(said) = &mut self.on else { return };
        said.done += 1;
        let now = Instant::now();
        let every = if said.terminal { Duration::from_millis(100) } else { Duration::from_secs(5) };
        if said.last.is_some_and(|last| now.duration_since(last) < every) {
            return;
        }
        said.last = Some(now);
        let line = said.line(package, bundle, now);
        let mut stderr = std::io::stderr().lock();
        // Progress is a courtesy: a closed stderr does not stop the run.
        let _ = match said.terminal {
            true => write!(stderr, "\r\x1b[K{line}"),
            false => writeln!(stderr, "{line}"),
        };
        said.drawn = said.terminal;
    }

    /// The run is over: the line drawn in place is cleared, so that the
    /// report's lines start on a clean one.
    pub(super) fn done(&mut self) {
        if let Some(said) = self.on.as_mut().filter(|s| s.drawn) {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
            said.drawn = false;
        }
    }
}

impl Said {
    fn line(&self, package: &str, bundle: &str, now: Instant) -> String {
        let count = match self.total {
            Some(total) => format!("{}/{total}", self.done),
            None => self.done.to_string(),
        };
        let secs = now.duration_since(self.started).as_secs();
        let printable = crate::check::table::printable;
        format!("progress: judging bundle {count} ({}, package {}), {secs} s", printable(bundle), printable(package))
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_counts_against_the_total_when_known_and_never_prints_a_bundles_control_bytes() {
        let said = |total| Said { started: Instant::now(), last: None, terminal: false, total, done: 3, drawn: false };
        let now = Instant::now();
        assert_eq!(said(Some(10)).line("p", "p.v1", now), "progress: judging bundle 3/10 (p.v1, package p), 0 s");
        let line = said(None).line("p", "p.v1\r\x1b[2Jevil", now);
        assert!(line.starts_with("progress: judging bundle 3 ("), "{line}");
        assert!(!line.contains('\r') && !line.contains('\x1b'), "{line}");
    }

    #[test]
    fn off_says_nothing_and_counts_nothing() {
        let mut progress = Progress::on_stderr(false, None);
        progress.judging("p", "b");
        assert!(progress.on.is_none());
    }
}
