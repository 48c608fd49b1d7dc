//! A small bounded store of variable-length records, each tagged with an owner: the URIs
//! of resource subscriptions (server) and the params retained for MRTR retries (client).
//! It lives in the tail of [`Storage::info`](super::Storage::info).

/// Owner tag of resources subscribed with the legacy `resources/subscribe`.
pub(crate) const LEGACY_OWNER: u16 = u16::MAX;

const REC: usize = 4;

/// Records are `[owner u16 LE][len u16 LE][bytes]`, packed from the start.
pub(crate) struct Arena {
    start: usize,
    cap: usize,
    used: usize,
}

impl Arena {
    pub(crate) fn new(start: usize, cap: usize) -> Self {
        Arena {
            start,
            cap,
            used: 0,
        }
    }

    fn region<'b>(&self, info: &'b [u8]) -> &'b [u8] {
        &info[self.start..self.start + self.used]
    }

    /// Adds a record; false when it does not fit.
    pub(crate) fn add(&mut self, info: &mut [u8], owner: u16, bytes: &[u8]) -> bool {
        let need = REC + bytes.len();
        if bytes.len() > u16::MAX as usize || self.used + need > self.cap {
            return false;
        }
        let at = self.start + self.used;
        info[at..at + 2].copy_from_slice(&owner.to_le_bytes());
        info[at + 2..at + 4].copy_from_slice(&(bytes.len() as u16).to_le_bytes());
        info[at + 4..at + need].copy_from_slice(bytes);
        self.used += need;
        true
    }

    /// Iterates `(owner, bytes)` records.
    pub(crate) fn iter<'b>(&self, info: &'b [u8]) -> impl Iterator<Item = (u16, &'b [u8])> + 'b {
        let region = self.region(info);
        let mut pos = 0;
        core::iter::from_fn(move || {
            if pos + REC > region.len() {
                return None;
            }
            let owner = u16::from_le_bytes([region[pos], region[pos + 1]]);
            let len = u16::from_le_bytes([region[pos + 2], region[pos + 3]]) as usize;
            let bytes = region.get(pos + REC..pos + REC + len)?;
            pos += REC + len;
            Some((owner, bytes))
        })
    }

    /// Removes records matching `pred`; returns how many.
    pub(crate) fn remove_where(
        &mut self,
        info: &mut [u8],
        pred: impl Fn(u16, &[u8]) -> bool,
    ) -> usize {
        let mut removed = 0;
        let mut pos = 0;
        while pos + REC <= self.used {
            let at = self.start + pos;
            let owner = u16::from_le_bytes([info[at], info[at + 1]]);
            let len = u16::from_le_bytes([info[at + 2], info[at + 3]]) as usize;
            let end = pos + REC + len;
            if pred(owner, &info[at + REC..at + REC + len]) {
                info.copy_within(self.start + end..self.start + self.used, at);
                self.used -= REC + len;
                removed += 1;
            } else {
                pos = end;
            }
        }
        removed
    }

    /// The first record of `owner`.
    pub(crate) fn get<'b>(&self, info: &'b [u8], owner: u16) -> Option<&'b [u8]> {
        self.iter(info).find(|(o, _)| *o == owner).map(|(_, b)| b)
    }

    /// Bytes still free.
    pub(crate) fn free(&self) -> usize {
        self.cap - self.used
    }
}
