//! Protocol enums in TEXT columns, stored by their wire names.
//!
//! `capicua-protocol` does not depend on sqlx, so its enums cannot implement
//! sqlx's traits themselves (nor can this crate, for a foreign type):
//! [`Text`] carries one to and from a column instead. The database's own
//! enums ([`super::tournaments::SpecFormat`], [`super::tournaments::EntrantKind`],
//! [`super::SeatKind`]) name their stored values with [`text_column!`].

use capicua_protocol::{OccupantKind, TournamentStatus};
use serde::de::value::{Error as NameError, StrDeserializer};
use serde::de::{DeserializeOwned, IntoDeserializer};
use sqlx::any::{AnyTypeInfo, AnyTypeInfoKind, AnyValueRef};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Any, Database, Decode, Encode, Type, ValueRef};

/// A protocol enum whose variants have wire names.
pub trait WireName: Copy + DeserializeOwned {
    /// The variant's wire name (what serde writes).
    fn wire_name(self) -> &'static str;
}

/// A protocol enum as a TEXT column: written by [`WireName::wire_name`],
/// read back through its serde names, so the stored strings are the wire's.
#[derive(Clone, Copy, Debug)]
pub struct Text<T>(pub T);

impl<T: WireName> Type<Any> for Text<T> {
    fn type_info() -> AnyTypeInfo {
        <str as Type<Any>>::type_info()
    }

    fn compatible(ty: &AnyTypeInfo) -> bool {
        <&str as Type<Any>>::compatible(ty)
    }
}

impl<'q, T: WireName> Encode<'q, Any> for Text<T> {
    fn encode_by_ref(&self, buf: &mut <Any as Database>::ArgumentBuffer<'q>) -> Result<IsNull, BoxDynError> {
        <&str as Encode<'q, Any>>::encode(self.0.wire_name(), buf)
    }
}

impl<'r, T: WireName> Decode<'r, Any> for Text<T> {
    fn decode(value: AnyValueRef<'r>) -> Result<Self, BoxDynError> {
        let name = <&str as Decode<'r, Any>>::decode(value)?;
        let de: StrDeserializer<'_, NameError> = name.into_deserializer();
        Ok(Text(T::deserialize(de)?))
    }
}

/// A yes/no column. capicua's flags are integer columns (0 or 1) on both
/// backends, so one statement binds them alike; sqlx's own migration table
/// has a real boolean on PostgreSQL. `Flag` reads either, and a `FromRow`
/// field reads one with `#[sqlx(try_from = "Flag")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag(pub bool);

impl Type<Any> for Flag {
    fn type_info() -> AnyTypeInfo {
        <i64 as Type<Any>>::type_info()
    }

    fn compatible(ty: &AnyTypeInfo) -> bool {
        ty.kind().is_integer() || ty.kind() == AnyTypeInfoKind::Bool
    }
}

impl<'r> Decode<'r, Any> for Flag {
    fn decode(value: AnyValueRef<'r>) -> Result<Self, BoxDynError> {
        if value.type_info().kind() == AnyTypeInfoKind::Bool {
            Ok(Flag(<bool as Decode<'r, Any>>::decode(value)?))
        } else {
            Ok(Flag(<i64 as Decode<'r, Any>>::decode(value)? != 0))
        }
    }
}

impl From<Flag> for bool {
    fn from(f: Flag) -> bool {
        f.0
    }
}

/// Stores a fieldless enum of this crate in a TEXT column under the names
/// given, through sqlx's `Any` driver (whose `derive(sqlx::Type)` does not
/// reach `Any`); an unknown stored name is a decode error.
macro_rules! text_column {
    ($t:ty { $($v:ident => $name:literal),* $(,)? }) => {
        impl $t {
            /// The name it is stored under.
            pub fn column_name(self) -> &'static str {
                match self {
                    $(Self::$v => $name),*
                }
            }
        }

        impl sqlx::Type<sqlx::Any> for $t {
            fn type_info() -> sqlx::any::AnyTypeInfo {
                <str as sqlx::Type<sqlx::Any>>::type_info()
            }

            fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
                <&str as sqlx::Type<sqlx::Any>>::compatible(ty)
            }
        }

        impl<'q> sqlx::Encode<'q, sqlx::Any> for $t {
            fn encode_by_ref(
                &self,
                buf: &mut <sqlx::Any as sqlx::Database>::ArgumentBuffer<'q>,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<'q, sqlx::Any>>::encode(self.column_name(), buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Any> for $t {
            fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
                match <&str as sqlx::Decode<'r, sqlx::Any>>::decode(value)? {
                    $($name => Ok(Self::$v),)*
                    other => Err(format!("{other:?} is not a stored {}", stringify!($t)).into()),
                }
            }
        }
    };
}
pub(crate) use text_column;

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
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect("sqlite::memory:").await.unwrap();
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
