//! A tiny broadcast channel (for [`MemoryChanged`] events, and the API's chat events): every
//! subscriber gets every event;
//! subscribers that went away are dropped on the next send. Plain std channels, so the store
//! needs no async runtime; transports bridge it to theirs.

use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

use mnemo_core::MemoryChanged;

/// Fan-out of events.
pub struct EventBus<T = MemoryChanged> {
    subscribers: Mutex<Vec<Sender<T>>>,
}

impl<T> Default for EventBus<T> {
    fn default() -> Self {
        Self {
            subscribers: Mutex::new(Vec::new()),
        }
    }
}

impl<T: Clone> EventBus<T> {
    /// A new receiver of every event emitted from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        let (tx, rx) = channel();
        self.lock().push(tx);
        rx
    }

    /// Send an event to every live subscriber.
    pub fn emit(&self, event: &T) {
        self.lock().retain(|tx| tx.send(event.clone()).is_ok());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Sender<T>>> {
        self.subscribers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mnemo_core::ChangeSource;

    #[test]
    fn every_subscriber_gets_every_event_and_dropped_ones_are_pruned() {
        let bus = EventBus::default();
        let a = bus.subscribe();
        let b = bus.subscribe();
        drop(b);
        let ev = MemoryChanged {
            workspace: "w".into(),
            paths: vec!["a.md".into()],
            source: ChangeSource::User,
        };
        bus.emit(&ev);
        assert_eq!(a.recv().unwrap(), ev);
        assert_eq!(bus.lock().len(), 1);
    }
}
