//! Ports on 127.0.0.1 for the servers tests start (a Ballista cluster's processes).

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Waits until something listens on `port` (1,200 tries 50 ms apart, about a minute: a
/// readiness wait, not a measure of time); `what` names it if nothing does.
pub fn wait_for(port: u16, what: &str) {
    let mut tries = 0;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        tries += 1;
        assert!(tries < 1_200, "{what} does not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
