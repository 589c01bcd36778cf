//! What a command gives back: what it prints and how the process exits
//! ([`Outcome`]). Every command, the runners and the access checks alike,
//! returns one; the binary writes it ([`Outcome::emit`]) and exits with
//! [`Outcome::exit_status`].

use std::io::Write as _;

/// How a command exits, one meaning per code, for every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done; the answer is yes; every bundle passed.
    Ok = 0,
    /// 1: an error result, a policy's refusal, a "no", a bundle that failed
    /// or could not be judged.
    Refused = 1,
    /// 2: the command could not read its input or could not start (a
    /// missing file, unreadable manifests for the access checks, a usage
    /// error, as clap's).
    Input = 2,
    /// 3: `can-install` cannot tell.
    CannotTell = 3,
}

impl Exit {
    /// The process's exit code.
    pub const fn code(self) -> i32 {
        self as i32
    }
}

/// Exit code when a command is run so that it cannot work (nothing to read),
/// as for clap's usage errors.
pub const USAGE_ERROR: Exit = Exit::Input;

impl Exit {
    /// 0 when nothing said otherwise, else 1: a command's refusal.
    pub const fn refused_if(refused: bool) -> Exit {
        if refused {
            Exit::Refused
        } else {
            Exit::Ok
        }
    }
}

/// An exit read as its number, as tests and scripts compare it.
impl PartialEq<i32> for Exit {
    fn eq(&self, code: &i32) -> bool {
        self.code() == *code
    }
}

/// What a run prints and how it exits. Errors never leave partial output:
/// KRM mode returns the items unchanged, render mode prints nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// What goes to stdout: the command's answer, or nothing when it failed.
    pub stdout: String,
    /// What goes to stderr: results, warnings and errors, each on its line.
    pub stderr: String,
    /// How it asks to exit; [`Outcome::exit_status`] decides the process's.
    pub code: Exit,
}

impl Outcome {
    /// A failure: `error: {message}` on stderr, nothing on stdout.
    pub fn failure(message: impl std::fmt::Display, code: Exit) -> Outcome {
        Outcome { stdout: String::new(), stderr: format!("error: {message}\n"), code }
    }

    /// The outcome as `-q` writes it: only the errors on stderr (its lines
    /// that start `error:`), no warnings, infos or summary line.
    pub fn quieted(mut self, quiet: bool) -> Outcome {
        if quiet {
            self.stderr = self.stderr.lines().filter(|l| l.starts_with("error:")).map(|l| format!("{l}\n")).collect();
        }
        self
    }

    /// Writes the outcome, stderr first; the result of writing stdout, which
    /// [`Outcome::exit_status`] turns into the exit status.
    /// Standard error is written as a terminal shows it faithfully: every
    /// message may name what the input holds, and no name from the input
    /// may move the cursor or hide text ([`printable`], line by line).
    pub fn emit(&self) -> std::io::Result<()> {
        let mut err = std::io::stderr().lock();
        let said: Vec<String> = self.stderr.split('\n').map(printable).collect();
        let _ = err.write_all(said.join("\n").as_bytes());
        let mut out = std::io::stdout().lock();
        out.write_all(self.stdout.as_bytes()).and_then(|()| out.flush())
    }

    /// The process's exit status once the outcome is written (`written` is
    /// how writing stdout went): the outcome's code, or 1 for a code outside
    /// 0 to 255. A reader that closed the pipe early (`olm-rbac render ... |
    /// head -1`) took what it wanted, so that is no failure, as with ripgrep;
    /// any other error writing stdout fails with 1.
    pub fn exit_status(&self, written: std::io::Result<()>) -> u8 {
        match written {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => 1,
            _ => self.code as u8,
        }
    }
}

/// `s` safe to print on a terminal: a control character from the input (an
/// escape sequence could move the cursor and overwrite what was printed) is
/// written as `\u{…}`.
pub(crate) fn printable(s: &str) -> String {
    if !s.chars().any(hidden) {
        return s.to_string();
    }
    s.chars().map(|c| if hidden(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect()
}

/// A character a terminal does not show as itself: a control character, or
/// a format character that reorders or hides text (bidirectional overrides
/// and isolates, zero-width characters, the byte order mark, the soft hyphen).
pub(crate) fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_status_is_the_outcome_code_unless_stdout_failed() {
        use std::io::{Error, ErrorKind};
        let outcome = |code: Exit| Outcome { stdout: String::new(), stderr: String::new(), code };
        assert_eq!(outcome(Exit::Ok).exit_status(Ok(())), 0);
        assert_eq!(outcome(Exit::Input).exit_status(Ok(())), 2);
        assert_eq!(outcome(Exit::CannotTell).exit_status(Ok(())), 3);
        // `| head -1`: the reader has what it wanted.
        assert_eq!(outcome(Exit::Ok).exit_status(Err(Error::from(ErrorKind::BrokenPipe))), 0);
        assert_eq!(
            outcome(Exit::Refused).exit_status(Err(Error::from(ErrorKind::BrokenPipe))),
            1,
            "an error stays one"
        );
        assert_eq!(outcome(Exit::Ok).exit_status(Err(Error::from(ErrorKind::StorageFull))), 1, "a full disk is not");
    }

    #[test]
    fn a_failure_is_one_error_line_and_no_output() {
        let failed = Outcome::failure("no input", USAGE_ERROR);
        assert_eq!(
            failed,
            Outcome { stdout: String::new(), stderr: "error: no input\n".into(), code: crate::outcome::Exit::Input }
        );
    }
}
