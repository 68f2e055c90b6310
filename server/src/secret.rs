//! Comparing a secret a client sent with the server's (the admin token):
//! in constant time, so the time an answer takes says nothing about how
//! much of a guess was right.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Whether `given` is `secret`. Both are hashed first, so neither their
/// lengths nor where they differ shows in the time taken.
pub(crate) fn same(given: &str, secret: &str) -> bool {
    let (a, b) = (Sha256::digest(given.as_bytes()), Sha256::digest(secret.as_bytes()));
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// Whether `given` is the admin token, if there is one.
pub(crate) fn is_admin(given: &str, admin: Option<&str>) -> bool {
    admin.is_some_and(|a| same(given, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_secret_is_the_same() {
        assert!(same("a-long-enough-secret", "a-long-enough-secret"));
        assert!(!same("a-long-enough-secreT", "a-long-enough-secret"));
        assert!(!same("a-long-enough", "a-long-enough-secret"), "a prefix");
        assert!(!same("", "a-long-enough-secret"));
        assert!(!is_admin("anything", None), "no admin token: nobody is the admin");
        assert!(is_admin("x".repeat(16).as_str(), Some(&"x".repeat(16))));
    }
}
