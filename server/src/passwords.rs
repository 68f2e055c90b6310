//! Passwords: what one may be, and argon2id hashes of them (PHC strings,
//! the parameters inside, so stronger ones later still verify old hashes).
//! Hashing costs about 19 MiB and tens of milliseconds of one core by
//! design: callers run it on the blocking pool behind [`Hashing`], so a
//! flood of sign-ins waits for a slot instead of taking every core.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

/// Fewest characters of a password.
pub(crate) const MIN_CHARS: usize = 8;
/// Most bytes of a password: hashing reads every byte.
pub(crate) const MAX_BYTES: usize = 256;

/// Why a password is refused, for `bad-request`.
pub(crate) const RULES: &str = "a password is 8 characters or more and 256 bytes at most";

/// Whether `password` may be a password.
pub(crate) fn acceptable(password: &str) -> bool {
    password.chars().count() >= MIN_CHARS && password.len() <= MAX_BYTES
}

/// OWASP's argon2id minimum: 19 MiB, 2 passes, one lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string of `password` under a fresh random salt; `None` when
/// the OS has no randomness to give (no salt that could be guessed).
pub(crate) fn hash(password: &str) -> Option<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).ok()?;
    let salt = SaltString::encode_b64(&salt).ok()?;
    argon2().hash_password(password.as_bytes(), &salt).ok().map(|h| h.to_string())
}

/// Whether `password` is the one `phc` was made from.
pub(crate) fn verify(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|h| argon2().verify_password(password.as_bytes(), &h).is_ok())
}

/// A hash made when a name has no password, so that signing in as a name
/// nobody has (or one with no password) costs what a wrong password costs:
/// the time taken tells nothing about which of the two was wrong.
pub(crate) fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash("not anyone's password").unwrap_or_default())
}

/// The slots for hashing: at most one per core at once, server-wide.
pub(crate) struct Hashing {
    slots: Semaphore,
}

impl Hashing {
    /// `slots` hashes at once.
    pub(crate) fn new(slots: usize) -> Hashing {
        Hashing { slots: Semaphore::new(slots.max(1)) }
    }

    /// Runs `work` (a hash or a verification) on the blocking pool once a
    /// slot is free; `None` if none came free within a second (the caller
    /// answers `busy`) or the work panicked.
    pub(crate) async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let permit = tokio::time::timeout(std::time::Duration::from_secs(1), self.slots.acquire()).await.ok()?.ok()?;
        let out = tokio::task::spawn_blocking(work).await.ok();
        drop(permit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_verifies_against_its_own_hash_only() {
        let h = hash("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify("correct horse battery", &h));
        assert!(!verify("correct horse battery!", &h));
        assert_ne!(hash("correct horse battery").unwrap(), h, "a fresh salt each time");
        assert!(!verify("anything", "not a phc string"));
        assert!(!verify("not anyone's password!", decoy()));
    }

    #[test]
    fn short_and_huge_passwords_are_refused() {
        assert!(!acceptable("seven77"));
        assert!(acceptable("ocho8888"));
        assert!(acceptable("ñandú ñandú"));
        assert!(!acceptable(&"x".repeat(MAX_BYTES + 1)));
    }
}
