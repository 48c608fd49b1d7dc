//! JSON-RPC batches (MCP 2025-03-26 only): the elements of one array line are handled one
//! by one, and their responses are staged in a bounded area (the tail of
//! [`Storage::info`](super::Storage::info)) until every request of the batch is answered;
//! then they leave as one array line. A batch of only notifications or responses gets no
//! reply. One batch is open at a time; a second batch line waits (backpressure) until the
//! first is answered.

use super::events::EventQueue;
use super::route::Core;
use super::types::Violation;
use crate::error::{ErrorCode, InsufficientSize};
use crate::json::JsonWriter;
use crate::jsonrpc::{Batch, Message};
use crate::protocol::ProtocolVersion;

/// The staging area and the state of the open batch.
pub(crate) struct BatchState {
    pub(crate) start: usize,
    pub(crate) cap: usize,
    pub(crate) len: usize,
    /// Responses staged.
    pub(crate) count: u16,
    /// Requests of the batch not answered yet.
    pub(crate) pending: u16,
    /// A batch line is being processed or waits for answers.
    pub(crate) open: bool,
    /// Replies of the core go to the staging area (while the line is processed).
    pub(crate) staging: bool,
    /// Every member is answered but the array did not fit in the outbox yet.
    pub(crate) ready: bool,
}

impl BatchState {
    pub(crate) fn new(start: usize, cap: usize) -> Self {
        BatchState {
            start,
            cap,
            len: 0,
            count: 0,
            pending: 0,
            open: false,
            staging: false,
            ready: false,
        }
    }
}

impl Core<'_> {
    /// True when batches are allowed now (2025-03-26 negotiated).
    fn batches_allowed(&self) -> bool {
        cfg!(feature = "legacy")
            && self.life.version() == Some(ProtocolVersion::V2025_03_26)
            && self.batch.cap > 0
    }

    pub(crate) fn on_batch(&mut self, ev: &mut EventQueue<'_>, now: u64, b: Batch<'_>) {
        if !self.batches_allowed() || b.is_empty() || b.len() > self.limits.max_batch {
            let msg = if b.is_empty() {
                "Invalid Request: empty batch"
            } else if self.batches_allowed() {
                "Invalid Request: batch too large"
            } else if self.life.version() == Some(ProtocolVersion::V2025_03_26) {
                "Invalid Request: this server does not accept batches"
            } else {
                "Invalid Request: batches are allowed only in protocol version 2025-03-26"
            };
            self.refuse(
                ev,
                None,
                ErrorCode::INVALID_REQUEST,
                msg,
                Violation::BatchNotAllowed,
            );
            return;
        }
        self.batch.open = true;
        self.batch.staging = true;
        self.batch.len = 0;
        self.batch.count = 0;
        self.batch.pending = 0;
        for (k, element) in b.iter().enumerate() {
            // An id used by an earlier request of the same batch is still in flight, even
            // when the core answered that one itself (its response is staged, not sent).
            if let Ok(Message::Request(r)) = element
                && b.iter()
                    .take(k)
                    .any(|e| matches!(e, Ok(Message::Request(p)) if p.id.same(&r.id)))
            {
                self.refuse(
                    ev,
                    Some(r.id),
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: duplicate id of a request in flight",
                    Violation::DuplicateRequestId,
                );
                continue;
            }
            match element {
                Ok(Message::Request(r)) if r.method.eq_str("initialize") => {
                    self.refuse(
                        ev,
                        Some(r.id),
                        ErrorCode::INVALID_REQUEST,
                        "Invalid Request: initialize must not be batched",
                        Violation::DuplicateInitialize,
                    );
                }
                Ok(Message::Request(r)) => {
                    let (before, _) = self.inbound.opened();
                    self.on_request(ev, r.id, r.method, r.params);
                    let (after, last) = self.inbound.opened();
                    if after != before {
                        // The host owes this one: its reply joins the batch's array.
                        self.inbound.slot_mut(last).in_batch = true;
                        self.batch.pending += 1;
                    }
                }
                Ok(m) => self.on_message(ev, now, m),
                Err(e) => self.on_parse_error(ev, e),
            }
        }
        self.batch.staging = false;
        self.batch_maybe_finish();
    }

    /// Writes one response into the staging area; falls back to a normal line when it
    /// does not fit (documented degradation: the response is never lost).
    pub(crate) fn stage(
        &mut self,
        f: &impl Fn(&mut JsonWriter<'_>),
    ) -> Result<(), InsufficientSize> {
        let (start, cap, len) = (self.batch.start, self.batch.cap, self.batch.len);
        let region = &mut self.info[start + len..start + cap];
        let mut w = JsonWriter::new(region);
        if self.batch.count > 0 {
            w.put(b",");
        }
        f(&mut w);
        match w.finish() {
            Ok(n) => {
                self.batch.len += n;
                self.batch.count += 1;
                Ok(())
            }
            Err(_) => {
                self.outbox.push_with(f)?;
                self.stats.messages_out += 1;
                Ok(())
            }
        }
    }

    /// A batch member was answered (or cancelled).
    pub(crate) fn batch_member_done(&mut self) {
        self.batch.pending = self.batch.pending.saturating_sub(1);
        self.batch_maybe_finish();
    }

    /// Emits the array once every member is answered (retried on later calls when the
    /// outbox is full).
    pub(crate) fn batch_maybe_finish(&mut self) {
        if !self.batch.open || self.batch.staging || self.batch.pending > 0 {
            return;
        }
        if self.batch.count == 0 {
            self.batch.open = false;
            return;
        }
        let (start, len) = (self.batch.start, self.batch.len);
        let staged = &self.info[start..start + len];
        let r = self.outbox.push_with(|w| {
            w.put(b"[");
            w.put(staged);
            w.put(b"]");
        });
        if r.is_ok() {
            self.stats.messages_out += 1;
            self.batch.open = false;
            self.batch.ready = false;
        } else {
            self.batch.ready = true;
        }
    }
}
