//! Who may connect, and over what: SCRAM-SHA-256 password authentication against a list of
//! users, and TLS with a certificate and key given on the command line.
//!
//! Users come from `--user NAME:PASSWORD` flags or a `--users FILE` of `NAME:PASSWORD` lines
//! (blank lines and `#` comments ignored). Each password is kept only as SCRAM's salted
//! hash (random salt, 4,096 iterations), made when the server starts. A login that names no
//! such user, or gives a wrong password, is refused (SQLSTATE 28P01, the same for both) and
//! logged.
//!
//! Invariant: with a user list, no connection reaches a session without passing SCRAM.

use async_trait::async_trait;
use pgwire::api::auth::sasl::scram::{gen_salted_password, random_nonce, ScramAuth};
use pgwire::api::auth::sasl::SASLAuthStartupHandler;
use pgwire::api::auth::{AuthSource, DefaultServerParameterProvider, LoginInfo, Password};
use pgwire::error::{PgWireError, PgWireResult};
use std::collections::HashMap;
use std::sync::Arc;

const ITERATIONS: usize = 4096;

/// The users who may log in, each with SCRAM's salted hash of their password.
#[derive(Debug, Default)]
pub struct Users {
    salted: HashMap<String, (Vec<u8>, Vec<u8>)>,
}

impl Users {
    /// Adds `name` with `password`.
    pub fn add(&mut self, name: &str, password: &str) {
        let salt = random_nonce().into_bytes();
        let hash = gen_salted_password(password, &salt, ITERATIONS);
        self.salted.insert(name.to_string(), (salt, hash));
    }

    /// Adds a `NAME:PASSWORD` entry.
    ///
    /// # Errors
    /// A line without a `:` or with an empty name.
    pub fn add_entry(&mut self, entry: &str) -> Result<(), String> {
        match entry.split_once(':') {
            Some((name, password)) if !name.trim().is_empty() => {
                self.add(name.trim(), password);
                Ok(())
            }
            _ => Err(format!("'{entry}' is not NAME:PASSWORD")),
        }
    }

    /// Adds the `NAME:PASSWORD` lines of `text` (blank lines and `#` comments skipped).
    ///
    /// # Errors
    /// The first line that is no such entry, with its number.
    pub fn add_lines(&mut self, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            self.add_entry(line)
                .map_err(|e| format!("line {}: {e}", i + 1))?;
        }
        Ok(())
    }

    /// Whether no user is listed.
    pub fn is_empty(&self) -> bool {
        self.salted.is_empty()
    }
}

#[async_trait]
impl AuthSource for Users {
    async fn get_password(&self, login: &LoginInfo) -> PgWireResult<Password> {
        let user = login.user().unwrap_or_default();
        match self.salted.get(user) {
            Some((salt, hash)) => Ok(Password::new(Some(salt.clone()), hash.clone())),
            // logged with a wrong password (handler.rs LoginLog): a client is not told which
            None => Err(PgWireError::InvalidPassword(user.to_string())),
        }
    }
}

/// The startup handler that asks for SCRAM-SHA-256 (without channel binding: pgwire would
/// offer SCRAM-SHA-256-PLUS on plain connections too, which clients refuse).
pub fn scram(users: Arc<Users>) -> SASLAuthStartupHandler<DefaultServerParameterProvider> {
    let mut auth = ScramAuth::new(users);
    auth.set_iterations(ITERATIONS);
    SASLAuthStartupHandler::new(Arc::new(DefaultServerParameterProvider::default()))
        .with_scram(auth)
}

/// The TLS acceptor for a PEM certificate chain and private key.
///
/// # Errors
/// Unreadable files, no certificate or key in them, or a key that does not fit.
pub fn tls(cert_pem: &[u8], key_pem: &[u8]) -> std::io::Result<pgwire::tokio::TlsAcceptor> {
    use pgwire::tokio::tokio_rustls::rustls;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
    let certs = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("the certificate: {e}")))?;
    if certs.is_empty() {
        return Err(bad("the certificate file holds no certificate".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| bad(format!("the key: {e}")))?;
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| bad(format!("the certificate and key: {e}")))?;
    Ok(pgwire::tokio::TlsAcceptor::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_lines_skip_comments_and_refuse_nonsense() {
        let mut u = Users::default();
        u.add_lines("# who may log in\nalice:s3cret\n\nbob:with:colon\n")
            .expect("two users");
        assert_eq!(u.salted.len(), 2);
        assert!(u.salted.contains_key("bob"));
        let err = u.add_lines("carol\n").expect_err("no password");
        assert!(err.starts_with("line 1:"), "{err}");
    }
}
