//! The byte stream under a [`crate::Client`]: a TCP connection, plain or inside TLS (rustls,
//! the server's certificate checked against a given certificate authority and the host name).

use bytes::BytesMut;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;

/// A connection to the server.
pub(crate) enum Transport {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Transport {
    /// The TCP connection under it.
    pub(crate) fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Plain(s) => s,
            Transport::Tls(s) => &s.sock,
        }
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Transport::Plain(s) => s.read(buf),
            Transport::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            Transport::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Transport::Plain(s) => s.flush(),
            Transport::Tls(s) => s.flush(),
        }
    }
}

/// Asks the server for TLS (PostgreSQL's SSLRequest) on `socket` and makes the handshake,
/// trusting the certificates of the PEM file `root`, checking the server's for `host`.
pub(crate) fn tls(mut socket: TcpStream, host: &str, root: &Path) -> std::io::Result<Transport> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    let mut roots = rustls::RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(root)
        .map_err(|e| invalid(format!("cannot read {}: {e}", root.display())))?;
    for cert in certs {
        let cert = cert.map_err(|e| invalid(format!("cannot read {}: {e}", root.display())))?;
        roots
            .add(cert)
            .map_err(|e| invalid(format!("{}: {e}", root.display())))?;
    }
    if roots.is_empty() {
        return Err(invalid(format!("{} holds no certificate", root.display())));
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(std::io::Error::other)?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| invalid(format!("{host} is not a server name: {e}")))?;
    let mut request = BytesMut::new();
    postgres_protocol::message::frontend::ssl_request(&mut request);
    socket.write_all(&request)?;
    let mut answer = [0u8; 1];
    socket.read_exact(&mut answer)?;
    if answer[0] != b'S' {
        return Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "the server does not offer TLS",
        ));
    }
    let connection =
        rustls::ClientConnection::new(Arc::new(config), name).map_err(std::io::Error::other)?;
    let mut stream = rustls::StreamOwned::new(connection, socket);
    // the handshake now, so that a bad certificate is the connect's error
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock)?;
    }
    Ok(Transport::Tls(Box::new(stream)))
}
