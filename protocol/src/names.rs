//! Player names: what a person may call themselves, and the key that
//! decides whether two names are one.
//!
//! A name is shown as its owner wrote it (in Unicode's composed form, NFC),
//! but two names are the same player's when their *keys* agree: the key
//! folds compatibility forms (NFKC), case, and look-alike letters (the
//! confusable skeleton of Unicode Technical Standard #39), so `Ana`, `ANA`
//! and `аna` (a Cyrillic `а`) are one name, and `Admin` or `Guest-1` are
//! the server's own.

use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 32;

/// Words the server uses for its own: no player is called so.
const RESERVED: [&str; 7] = ["admin", "administrator", "server", "capicua", "system", "moderator", "guest"];

/// The prefix of the names the server gives to guests.
const GUEST_PREFIX: &str = "guest-";

/// The rules, as the error says them to people.
const RULES: &str = "names are 1 to 32 letters (any alphabet, accents too), digits, '-', '_', '.' or \
                     apostrophes, with single spaces between words; not 'admin', the server's own \
                     words nor 'guest-*', and not a name already taken in another case or with \
                     look-alike letters";

/// Checks a name a player asks to register, by the rules every way of
/// registering applies (`register` over the wire and the command line):
/// 1 to [`MAX_NAME_CHARS`] letters of any script (with their accents),
/// digits, `-`, `_`, `.` or `'`, words parted by single spaces; whose
/// [`name_key`] is none of the server's own words and does not start as a
/// guest's name does. Returns the name as it is stored and shown (NFC);
/// the error says the rules, for people.
pub fn check_name(name: &str) -> Result<String, &'static str> {
    let name: String = name.nfc().collect();
    let chars = name.chars().count();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '\'' | ' ') || is_mark(c);
    let spaced = !name.starts_with(' ') && !name.ends_with(' ') && !name.contains("  ");
    // A name needs one letter or digit: "..." or "'" name nobody.
    let something = name.chars().any(char::is_alphanumeric);
    if !(1..=MAX_NAME_CHARS).contains(&chars) || !name.chars().all(allowed) || !spaced || !something {
        return Err(RULES);
    }
    let key = name_key(&name);
    if RESERVED.iter().any(|r| name_key(r) == key) || key.starts_with(&name_key(GUEST_PREFIX)) {
        return Err(RULES);
    }
    Ok(name)
}

/// The key two names share when they are one player's: NFKC, then case
/// folded, then the confusable skeleton (which maps look-alikes across
/// scripts to one letter, and decomposes), case folded again (a skeleton
/// may map to capitals) and composed. Not for showing: `1` and `l` have
/// one key.
pub fn name_key(name: &str) -> String {
    let folded: String = name.nfkc().collect::<String>().to_lowercase();
    let skeleton: String = skeleton(&folded).collect();
    skeleton.to_lowercase().nfc().collect()
}

/// Combining marks (accents written after their letter): a name in
/// decomposed form, or with a mark no precomposed letter has.
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn people_keep_the_names_they_have() {
        for name in ["José", "María José", "José Pérez", "Ñandú", "Zoë", "O'Brien", "李小龍", "Владимир", "ana_1.x"]
        {
            assert_eq!(check_name(name).as_deref(), Ok(name), "{name}");
        }
        // A decomposed accent is stored composed.
        assert_eq!(check_name("Jose\u{301}").as_deref(), Ok("José"));
    }

    #[test]
    fn what_is_not_a_name_is_refused_with_the_rules() {
        let long = "a".repeat(MAX_NAME_CHARS + 1);
        for name in ["", " ana", "ana ", "ana  b", "ana\tb", "ana\u{200b}", "a<b>", "bot:pimc", "...", "'", &long] {
            assert_eq!(check_name(name), Err(RULES), "{name:?}");
        }
        assert!(check_name(&"é".repeat(MAX_NAME_CHARS)).is_ok(), "32 characters, whatever their bytes");
    }

    #[test]
    fn the_servers_names_are_refused_in_every_case_and_look_alike() {
        for name in ["admin", "Admin", "ADMIN", "аdmin", "Server", "guest-1", "Guest-1", "GUEST-7", "guest-x", "Guest"]
        {
            assert_eq!(check_name(name), Err(RULES), "{name}");
        }
        assert!(check_name("guestroom").is_ok() && check_name("Admiral").is_ok());
    }

    #[test]
    fn one_name_in_another_case_or_with_look_alike_letters_has_one_key() {
        let ana = name_key("ana");
        for same in ["Ana", "ANA", "аna", "ａｎａ", "AnA"] {
            assert_eq!(name_key(same), ana, "{same}");
        }
        for other in ["anna", "ana2", "ána", "an a"] {
            assert_ne!(name_key(other), ana, "{other}");
        }
        assert_eq!(name_key("José"), name_key("JOSÉ"));
        assert_eq!(name_key("Jose\u{301}"), name_key("José"));
    }
}
