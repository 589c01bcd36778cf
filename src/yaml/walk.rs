//! The walk: one pass over the parser's events, keeping the path from the
//! root to the current node, which every other part of [`super`] reads.

use std::borrow::Cow;

use granit_parser::Event;

pub(super) fn parser_options() -> granit_parser::Options {
    let mut options = granit_parser::Options::default();
    options.block_nesting_limit = 1024;
    // Kubernetes' stream reader cuts a directive (`%YAML`, `%TAG`) off from
    // the document after its `---`, and go-yaml then refuses both: a directive
    // is never read as the cluster reads it (`text::scan_error` says so).
    options.disallow_directives = true;
    options
}

#[derive(Debug, Default)]
pub(super) struct Frame<'a> {
    pub(super) is_map: bool,
    pub(super) expect_key: bool,
    pub(super) key: Option<Cow<'a, str>>,
    pub(super) index: usize,
}

impl Frame<'_> {
    pub(super) fn key_is(&self, k: &str) -> bool {
        self.key.as_deref() == Some(k)
    }

    pub(super) fn segment(&self) -> Option<String> {
        if self.is_map {
            self.key.as_ref().map(|k| k.to_string())
        } else {
            Some(format!("[{}]", self.index))
        }
    }
}

/// What one event meant for the structure.
#[derive(Debug)]
pub(super) enum Step<'a> {
    Key(Cow<'a, str>),
    /// A scalar (or alias, `None`) in value position.
    Value(Option<Cow<'a, str>>),
    Open,
    /// A collection closed; the walker is back at its parent.
    Close,
    Other,
}

/// Tracks the path from the root to the current event.
#[derive(Debug, Default)]
pub(super) struct Walker<'a> {
    pub(super) frames: Vec<Frame<'a>>,
}

impl<'a> Walker<'a> {
    pub(super) fn step(&mut self, event: &Event<'a>) -> Step<'a> {
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let is_map = matches!(event, Event::MappingStart(..));
                self.frames.push(Frame { is_map, expect_key: is_map, key: None, index: 0 });
                Step::Open
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.frames.pop();
                self.after_value();
                Step::Close
            }
            Event::Scalar(value, ..) => {
                if let Some(top) = self.frames.last_mut() {
                    if top.is_map && top.expect_key {
                        top.expect_key = false;
                        top.key = Some(value.clone());
                        return Step::Key(value.clone());
                    }
                }
                let step = Step::Value(Some(value.clone()));
                self.after_value();
                step
            }
            Event::Alias(..) | Event::UnresolvedAlias(..) => {
                if let Some(top) = self.frames.last_mut() {
                    if top.is_map && top.expect_key {
                        top.expect_key = false;
                        top.key = None;
                        return Step::Key(Cow::Borrowed(""));
                    }
                }
                self.after_value();
                Step::Value(None)
            }
            _ => Step::Other,
        }
    }

    fn after_value(&mut self) {
        if let Some(top) = self.frames.last_mut() {
            if top.is_map {
                top.expect_key = true;
            } else {
                top.index += 1;
            }
        }
    }
}
