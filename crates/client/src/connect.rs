//! Making a connection: TCP (and TLS), the startup message with the session settings, the
//! login (none, or SCRAM-SHA-256 with the server's proof checked), and the cancel key; cancel
//! requests ([`CancelToken`]); reading the server's error responses.
//!
//! Invariant: a password never leaves this process (SCRAM proves it; a server asking for it in
//! clear or as MD5, which tdlite's never does, is refused), and a login that hangs ends with
//! the connect timeout.

use crate::transport::{self, Transport};
use crate::{Client, Config, Error};
use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256, SCRAM_SHA_256};
use postgres_protocol::message::{backend, frontend};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Cancels a client's running request from anywhere: a waiting consume ends with 9905,
/// having taken nothing (PostgreSQL's cancel request, on a connection of its own).
#[derive(Debug, Clone)]
pub struct CancelToken {
    addr: SocketAddr,
    pub(crate) process_id: i32,
    secret: i32,
}

impl CancelToken {
    /// Sends the cancel request. The server answers nothing; the cancelled request's own
    /// reply says what happened to it.
    ///
    /// # Errors
    /// When the server cannot be reached.
    pub fn cancel(&self) -> std::io::Result<()> {
        let mut socket = TcpStream::connect_timeout(&self.addr, Duration::from_secs(10))?;
        let mut out = BytesMut::new();
        frontend::cancel_request(self.process_id, self.secret, &mut out);
        socket.write_all(&out)?;
        // the server closes the connection once it has acted on the request
        socket.set_read_timeout(Some(Duration::from_secs(10)))?;
        let _ = socket.read(&mut [0u8; 1]);
        Ok(())
    }
}

pub(crate) fn connect(config: &Config) -> Result<Client, Error> {
    let mut last = None;
    let mut socket = None;
    for addr in (config.host.as_str(), config.port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, config.connect_timeout) {
            Ok(s) => {
                socket = Some((s, addr));
                break;
            }
            Err(e) => last = Some(e),
        }
    }
    let (socket, addr) = socket.ok_or_else(|| {
        last.unwrap_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} has no address", config.host),
            )
        })
    })?;
    socket.set_nodelay(true)?;
    // the TLS handshake and the login are bounded too; requests are not (a consume waits)
    socket.set_read_timeout(Some(config.connect_timeout))?;
    socket.set_write_timeout(Some(config.connect_timeout))?;
    let stream = match &config.tls_root {
        Some(root) => transport::tls(socket, &config.host, root)?,
        None => Transport::Plain(socket),
    };
    let mut client = Client {
        stream,
        input: BytesMut::new(),
        status: b'I',
        cancel: CancelToken {
            addr,
            process_id: 0,
            secret: 0,
        },
        broken: false,
        tmode: None,
    };
    let mut out = BytesMut::new();
    let mut parameters: Vec<(&str, &str)> =
        vec![("user", &config.user), ("client_encoding", "UTF8")];
    parameters.extend(
        config
            .settings
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    frontend::startup_message(parameters, &mut out).map_err(|e| Error::Protocol(e.to_string()))?;
    client.send(&out)?;
    login(&mut client, config)?;
    client.stream.tcp().set_read_timeout(None)?;
    client.stream.tcp().set_write_timeout(None)?;
    Ok(client)
}

/// Answers the server's authentication requests until it is ready for queries.
fn login(client: &mut Client, config: &Config) -> Result<(), Error> {
    let password = || {
        config
            .password
            .as_deref()
            .ok_or_else(|| Error::Protocol("the server asks for a password; none was given".into()))
    };
    let mut scram: Option<ScramSha256> = None;
    // SCRAM's last step checks the server's proof: a login is only done after it
    let mut proved = false;
    loop {
        let mut out = BytesMut::new();
        let protocol = |e: std::io::Error| Error::Protocol(e.to_string());
        match client.message()? {
            backend::Message::AuthenticationOk if scram.is_some() && !proved => {
                return Err(client.fail(Error::Protocol(
                    "the server ended SCRAM without proving it knows the password".into(),
                )));
            }
            backend::Message::AuthenticationOk
            | backend::Message::ParameterStatus(_)
            | backend::Message::NoticeResponse(_) => {}
            backend::Message::AuthenticationCleartextPassword
            | backend::Message::AuthenticationMd5Password(_) => {
                return Err(client.fail(Error::Protocol(
                    "the server asks for the password in clear or as MD5; this client only \
                     proves it by SCRAM-SHA-256 (tdlite serve's way)"
                        .into(),
                )));
            }
            backend::Message::AuthenticationSasl(body) => {
                let offered: Vec<String> = body
                    .mechanisms()
                    .map(|m| Ok(m.to_string()))
                    .collect()
                    .map_err(protocol)?;
                if !offered.iter().any(|m| m == SCRAM_SHA_256) {
                    return Err(Error::Protocol(format!(
                        "the server offers {offered:?}; this client speaks {SCRAM_SHA_256}"
                    )));
                }
                let s = ScramSha256::new(password()?.as_bytes(), ChannelBinding::unsupported());
                frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut out)
                    .map_err(protocol)?;
                scram = Some(s);
            }
            backend::Message::AuthenticationSaslContinue(body) => {
                let s = scram
                    .as_mut()
                    .ok_or_else(|| Error::Protocol("SCRAM out of order".into()))?;
                s.update(body.data()).map_err(protocol)?;
                frontend::sasl_response(s.message(), &mut out).map_err(protocol)?;
            }
            backend::Message::AuthenticationSaslFinal(body) => {
                let s = scram
                    .as_mut()
                    .ok_or_else(|| Error::Protocol("SCRAM out of order".into()))?;
                // checks that the server knew the password too
                s.finish(body.data()).map_err(protocol)?;
                proved = true;
            }
            backend::Message::BackendKeyData(body) => {
                client.cancel.process_id = body.process_id();
                client.cancel.secret = body.secret_key();
            }
            backend::Message::ErrorResponse(body) => {
                let e = server_error(body.fields())?;
                return Err(client.fail(e));
            }
            backend::Message::ReadyForQuery(body) => {
                client.status = body.status();
                return Ok(());
            }
            _ => {
                return Err(client.fail(Error::Protocol(
                    "the server sent an unexpected message while logging in".into(),
                )))
            }
        }
        if !out.is_empty() {
            client.send(&out)?;
        }
    }
}

/// An error response as [`Error::Server`]: the Teradata code read from its `[Error NNNN]`.
pub(crate) fn server_error(mut fields: backend::ErrorFields<'_>) -> Result<Error, Error> {
    let mut sqlstate = String::new();
    let mut message = String::new();
    let mut fatal = false;
    while let Some(field) = fields.next().map_err(|e| Error::Protocol(e.to_string()))? {
        match field.type_() {
            b'C' => sqlstate = String::from_utf8_lossy(field.value_bytes()).into_owned(),
            b'M' => message = String::from_utf8_lossy(field.value_bytes()).into_owned(),
            // the severity, not localized (V) or as sent (S)
            b'V' | b'S' => {
                fatal |= matches!(field.value_bytes(), b"FATAL" | b"PANIC");
            }
            _ => {}
        }
    }
    let (code, message) = match message
        .strip_prefix("[Error ")
        .and_then(|rest| rest.split_once("] "))
        .and_then(|(n, text)| n.parse::<u32>().ok().map(|n| (n, text.to_string())))
    {
        Some((code, text)) => (code, text),
        None => (0, message),
    };
    Ok(Error::Server {
        code,
        sqlstate,
        message,
        fatal,
    })
}
