//! Postgres columns that hold one of the app's wire enums as text (a hold's `status`, an audit
//! entry's `action`). The words are the enum's serde names, so the JSON and the column can never
//! spell a state differently, and a word the enum does not know fails to decode instead of
//! passing as a string. (`app` knows nothing of sqlx, and sqlx's derived enums name a Postgres
//! enum type, not `text`: hence this wrapper.)

use serde::{Serialize, de::DeserializeOwned};
use sqlx::{
    Decode, Encode, Postgres, Type,
    encode::IsNull,
    error::BoxDynError,
    postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef},
};

/// A wire enum stored as its serde name in a `text` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Text<T>(pub T);

impl<T> Type<Postgres> for Text<T> {
    fn type_info() -> PgTypeInfo {
        <&str as Type<Postgres>>::type_info()
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        <&str as Type<Postgres>>::compatible(ty)
    }
}

impl<'r, T: DeserializeOwned> Decode<'r, Postgres> for Text<T> {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        let word = <&str as Decode<Postgres>>::decode(value)?;
        let deserializer = serde::de::value::StrDeserializer::<serde::de::value::Error>::new(word);
        Ok(Text(T::deserialize(deserializer)?))
    }
}

impl<T: Serialize> Encode<'_, Postgres> for Text<T> {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        match serde_json::to_value(&self.0)? {
            serde_json::Value::String(word) => {
                <&str as Encode<Postgres>>::encode_by_ref(&word.as_str(), buf)
            }
            other => Err(format!("{other} is not a unit variant's name").into()),
        }
    }
}
