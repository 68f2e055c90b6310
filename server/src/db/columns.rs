//! Protocol enums in TEXT columns, stored by their wire names.
//!
//! `capicua-protocol` does not depend on sqlx, so its enums cannot implement
//! sqlx's traits themselves (nor can this crate, for a foreign type):
//! [`Text`] carries one to and from a column instead. The database's own
//! enums ([`super::tournaments::SpecFormat`], [`super::tournaments::EntrantKind`])
//! derive `sqlx::Type`.

use capicua_protocol::{OccupantKind, TournamentStatus};
use serde::de::value::{Error as NameError, StrDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{SqliteArgumentValue, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Sqlite, Type};

/// A protocol enum whose variants have wire names.
pub trait WireName: Copy + DeserializeOwned {
    /// The variant's wire name (what serde writes).
    fn wire_name(self) -> &'static str;
}

/// A protocol enum as a TEXT column: written by [`WireName::wire_name`],
/// read back through its serde names, so the stored strings are the wire's.
#[derive(Clone, Copy, Debug)]
pub struct Text<T>(pub T);

impl<T: WireName> Type<Sqlite> for Text<T> {
    fn type_info() -> SqliteTypeInfo {
        <str as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <&str as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q, T: WireName> Encode<'q, Sqlite> for Text<T> {
    fn encode_by_ref(&self, buf: &mut Vec<SqliteArgumentValue<'q>>) -> Result<IsNull, BoxDynError> {
        <&str as Encode<'q, Sqlite>>::encode(self.0.wire_name(), buf)
    }
}

impl<'r, T: WireName> Decode<'r, Sqlite> for Text<T> {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let name = <&str as Decode<'r, Sqlite>>::decode(value)?;
        let de: StrDeserializer<'_, NameError> = name.into_deserializer();
        Ok(Text(T::deserialize(de)?))
    }
}

/// Implements [`WireName`] by the enum's `as_str`, and lets a `FromRow`
/// field of the enum read a [`Text`] (`#[sqlx(try_from = "Text<...>")]`).
macro_rules! wire_names {
    ($($t:ty),*) => {$(
        impl WireName for $t {
            fn wire_name(self) -> &'static str {
                self.as_str()
            }
        }

        impl From<Text<$t>> for $t {
            fn from(t: Text<$t>) -> $t {
                t.0
            }
        }
    )*};
}

wire_names!(OccupantKind, TournamentStatus);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn wire_names_round_trip_through_a_column_and_unknown_names_are_errors() {
        use sqlx::{Connection, Row};
        let mut conn = sqlx::SqliteConnection::connect("sqlite::memory:").await.unwrap();
        for k in [OccupantKind::Player, OccupantKind::Guest, OccupantKind::HostedBot] {
            let row = sqlx::query("SELECT ? AS kind").bind(Text(k)).fetch_one(&mut conn).await.unwrap();
            assert_eq!(row.try_get::<&str, _>("kind").unwrap(), k.as_str());
            assert_eq!(row.try_get::<Text<OccupantKind>, _>("kind").unwrap().0, k);
        }
        let row = sqlx::query("SELECT 'over' AS status").fetch_one(&mut conn).await.unwrap();
        assert!(row.try_get::<Text<TournamentStatus>, _>("status").is_err());
        let row = sqlx::query("SELECT 'failed' AS status").fetch_one(&mut conn).await.unwrap();
        assert_eq!(row.try_get::<Text<TournamentStatus>, _>("status").unwrap().0, TournamentStatus::Failed);
    }
}
