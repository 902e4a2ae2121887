//! The one watcher of a server: it checks the sessions every `--poll`
//! seconds and tells every client still connected that their list
//! changed.
//!
//! One for the server, not one per client: over HTTP clients come and go,
//! and a loop per client would scan the directory once per client that
//! ever connected, for as long as the directory stays quiet (a loop only
//! learns that its client is gone when a notification fails to reach it).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::Peer;

use crate::Backend;

/// The clients to tell, shared by every session of the server.
#[derive(Debug, Default)]
pub(crate) struct Watcher {
    peers: Mutex<Vec<Peer<RoleServer>>>,
}

impl Watcher {
    /// `peer` is told of changes from now until it goes away.
    pub(crate) fn add(&self, peer: Peer<RoleServer>) {
        self.lock().push(peer);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        self.peers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The clients still connected; the others are forgotten.
    fn live(&self) -> Vec<Peer<RoleServer>> {
        let mut peers = self.lock();
        peers.retain(|p| !p.is_transport_closed());
        peers.clone()
    }

    /// Checks the sessions every `every` until the runtime stops. While no
    /// client listens nothing is read; a change made meanwhile is told to
    /// the next client at its first check (once too often is harmless, a
    /// change never told is not).
    pub(crate) async fn run<B: Backend>(self: Arc<Self>, backend: Arc<B>, every: Duration) {
        let fingerprint = |b: Arc<B>| tokio::task::spawn_blocking(move || b.fingerprint());
        let mut last = fingerprint(Arc::clone(&backend)).await.ok();
        loop {
            tokio::time::sleep(every).await;
            let peers = self.live();
            if peers.is_empty() {
                continue;
            }
            let Ok(now) = fingerprint(Arc::clone(&backend)).await else {
                continue;
            };
            tracing::debug!(clients = peers.len(), "checked the sessions for changes");
            if last.is_some_and(|l| l != now) {
                for peer in &peers {
                    // One that cannot be told has gone: the next check
                    // finds its transport closed and forgets it.
                    let _ = peer.notify_resource_list_changed().await;
                }
            }
            last = Some(now);
        }
    }
}
