//! `capicua-server schema`: the JSON Schema of every protocol message.

/// Prints the schema.
pub(crate) fn run() -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string_pretty(&capicua_protocol::json_schema())?);
    Ok(())
}
