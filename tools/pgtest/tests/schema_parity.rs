//! The PostgreSQL migrations (`migrations/postgres/`) keep in step with the
//! SQLite ones (`migrations/`): the same migrations, and once applied the
//! same tables and views, the same columns in the same order with the same
//! type family, nullability and default, the same keys, foreign keys and
//! indexes.
//!
//! A new SQLite migration without its PostgreSQL twin (or the other way
//! round), or a twin that leaves a column out, fails here. The comparison
//! needs a PostgreSQL server (see `capicua-pgtest`); the migration lists are
//! compared without one.

use std::collections::BTreeMap;
use std::fmt::Debug;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{Connection, PgConnection, Row};

static SQLITE: Migrator = sqlx::migrate!("../../migrations");
static POSTGRES: Migrator = sqlx::migrate!("../../migrations/postgres");

/// What both sides are compared on: everything the server's queries can see.
#[derive(Debug, Default, PartialEq)]
struct Schema {
    /// Tables and views by name.
    relations: BTreeMap<String, Relation>,
    /// Indexes made by `CREATE INDEX`, by name: table and columns (with
    /// `DESC` where it applies).
    indexes: BTreeMap<String, (String, Vec<String>)>,
}

#[derive(Debug, PartialEq)]
struct Relation {
    view: bool,
    columns: Vec<Column>,
    /// Primary key columns, in key order.
    primary_key: Vec<String>,
    /// Column lists of UNIQUE constraints, sorted.
    unique: Vec<Vec<String>>,
    /// (column, referenced table, referenced column), sorted.
    foreign_keys: Vec<(String, String, String)>,
}

#[derive(Debug, PartialEq)]
struct Column {
    name: String,
    family: &'static str,
    /// Unknown (`None`) for a view's columns: PostgreSQL does not say.
    not_null: Option<bool>,
    /// The default's literal, without PostgreSQL's `::type` cast.
    default: Option<String>,
}

#[test]
fn the_same_migrations_on_both_sides() {
    let list = |m: &Migrator| -> Vec<(i64, String)> {
        m.iter().map(|m| (m.version, m.description.to_string())).collect::<Vec<_>>()
    };
    let sqlite = list(&SQLITE);
    assert!(!sqlite.is_empty());
    assert_eq!(sqlite, list(&POSTGRES), "migrations/ and migrations/postgres/ must hold the same files");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_schemas_agree() {
    let Some(server) = capicua_pgtest::require("both_schemas_agree") else { return };

    let dir = std::env::temp_dir().join(format!("capicua-schema-parity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let options = SqliteConnectOptions::new().filename(dir.join("parity.db")).create_if_missing(true);
    let mut lite = SqliteConnection::connect_with(&options).await.unwrap();
    SQLITE.run(&mut lite).await.unwrap();
    let lite_schema = sqlite_schema(&mut lite).await;
    // Both recorded every migration.
    let applied = "SELECT version, description FROM _sqlx_migrations WHERE success ORDER BY version";
    let lite_applied: Vec<(i64, String)> = sqlx::query_as(applied).fetch_all(&mut lite).await.unwrap();
    lite.close().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let url = server.fresh_database();
    let mut pg = PgConnection::connect(&url).await.unwrap();
    POSTGRES.run(&mut pg).await.unwrap();
    let pg_schema = pg_schema(&mut pg).await;
    let pg_applied: Vec<(i64, String)> = sqlx::query_as(applied).fetch_all(&mut pg).await.unwrap();
    pg.close().await.unwrap();
    assert_eq!(lite_applied, pg_applied);

    // The SQLite schema was read at all (tables, keys, indexes), so that
    // agreeing means something.
    let games = &lite_schema.relations["games"];
    assert!(games.columns.iter().any(|c| c.name == "poly") && games.primary_key == ["id"], "{games:#?}");
    assert_eq!(lite_schema.indexes["ratings_board"].1, ["variant", "ordinal DESC"]);
    assert!(lite_schema.relations["tournament_standings"].view);
    compare("relations", &lite_schema.relations, &pg_schema.relations);
    compare("indexes", &lite_schema.indexes, &pg_schema.indexes);
    assert_eq!(lite_schema, pg_schema);
}

/// Fails with the first entry that differs, named, rather than two whole
/// schemas to diff by eye.
fn compare<V: Debug + PartialEq>(what: &str, lite: &BTreeMap<String, V>, pg: &BTreeMap<String, V>) {
    let lite_names: Vec<&String> = lite.keys().collect();
    let pg_names: Vec<&String> = pg.keys().collect();
    assert_eq!(lite_names, pg_names, "{what}: SQLite (left) and PostgreSQL (right) differ");
    for (name, l) in lite {
        assert_eq!(l, &pg[name], "{what}: {name}: SQLite (left) and PostgreSQL (right) differ");
    }
}

/// SQLite's type affinity rules (section 3.1 of its "Datatypes" page).
fn sqlite_family(declared: &str) -> &'static str {
    let t = declared.to_ascii_uppercase();
    if t.contains("INT") {
        "integer"
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        "text"
    } else if t.is_empty() || t.contains("BLOB") {
        "blob"
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        "real"
    } else {
        "numeric"
    }
}

/// PostgreSQL's types by the family of the SQLite type they stand for. Only
/// BIGINT counts as integer: the server reads and binds i64, which a
/// PostgreSQL INTEGER (i32) column refuses.
fn pg_family(data_type: &str) -> &'static str {
    match data_type {
        "bigint" => "integer",
        "integer" | "smallint" => "int4/int2 (use BIGINT)",
        "double precision" => "real",
        "real" => "float4 (use DOUBLE PRECISION)",
        "text" => "text",
        "bytea" => "blob",
        "numeric" => "numeric",
        _ => "other",
    }
}

async fn sqlite_schema(conn: &mut SqliteConnection) -> Schema {
    let mut schema = Schema::default();
    let objects: Vec<(String, String)> = sqlx::query_as(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') \
         AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    for (kind, name) in objects {
        let view = kind == "view";
        let info = sqlx::query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid")
            .bind(&name)
            .fetch_all(&mut *conn)
            .await
            .unwrap();
        let mut pk: Vec<(i64, String)> = Vec::new();
        let mut columns = Vec::new();
        for row in &info {
            let column: String = row.get(0);
            let declared: String = row.get(1);
            let not_null: bool = row.get::<i64, _>(2) != 0;
            let default: Option<String> = row.get(3);
            let pk_pos: i64 = row.get(4);
            if pk_pos > 0 {
                pk.push((pk_pos, column.clone()));
            }
            columns.push(Column {
                name: column,
                family: sqlite_family(&declared),
                // A key column holds no NULL (PostgreSQL's rule; SQLite's
                // rowid alias too).
                not_null: (!view).then_some(not_null || pk_pos > 0),
                default,
            });
        }
        pk.sort();
        let mut unique = Vec::new();
        let indexes = sqlx::query("SELECT name, \"unique\", origin FROM pragma_index_list(?)")
            .bind(&name)
            .fetch_all(&mut *conn)
            .await
            .unwrap();
        for index in &indexes {
            let index_name: String = index.get(0);
            let is_unique: bool = index.get::<i64, _>(1) != 0;
            let origin: String = index.get(2);
            let cols = sqlite_index_columns(conn, &index_name).await;
            match origin.as_str() {
                "u" if is_unique => unique.push(cols.into_iter().map(|(c, _)| c).collect()),
                "c" => {
                    let cols = cols.into_iter().map(|(c, desc)| if desc { format!("{c} DESC") } else { c }).collect();
                    schema.indexes.insert(index_name, (name.clone(), cols));
                }
                // "pk": the primary key, compared above.
                _ => {}
            }
        }
        unique.sort();
        let mut foreign_keys: Vec<(String, String, String)> =
            sqlx::query_as("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?)")
                .bind(&name)
                .fetch_all(&mut *conn)
                .await
                .unwrap();
        foreign_keys.sort();
        schema.relations.insert(
            name,
            Relation { view, columns, primary_key: pk.into_iter().map(|(_, c)| c).collect(), unique, foreign_keys },
        );
    }
    schema
}

/// An index's key columns in order, each with whether it sorts descending.
async fn sqlite_index_columns(conn: &mut SqliteConnection, index: &str) -> Vec<(String, bool)> {
    sqlx::query("SELECT name, \"desc\" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno")
        .bind(index)
        .fetch_all(&mut *conn)
        .await
        .unwrap()
        .iter()
        .map(|row| (row.get::<String, _>(0), row.get::<i64, _>(1) != 0))
        .collect()
}

/// A row of `pg_constraint`: kind, columns, referenced table and columns.
type Constraint = (String, Vec<String>, Option<String>, Vec<String>);

async fn pg_schema(conn: &mut PgConnection) -> Schema {
    let mut schema = Schema::default();
    let objects: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_type::text, table_name::text FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    for (kind, name) in objects {
        let view = kind == "VIEW";
        let rows = sqlx::query(
            "SELECT column_name::text, data_type::text, is_nullable::text, column_default::text \
             FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 \
             ORDER BY ordinal_position",
        )
        .bind(&name)
        .fetch_all(&mut *conn)
        .await
        .unwrap();
        let columns = rows
            .iter()
            .map(|row| {
                let default: Option<String> = row.get(3);
                Column {
                    name: row.get(0),
                    family: pg_family(row.get::<String, _>(1).as_str()),
                    not_null: (!view).then(|| row.get::<String, _>(2) == "NO"),
                    // `'player'::text` is SQLite's `'player'`.
                    default: default.map(|d| match d.find("::") {
                        Some(cast) if d.starts_with('\'') => d[..cast].to_owned(),
                        _ => d,
                    }),
                }
            })
            .collect();
        // Constraints: contype p (primary key), u (unique), f (foreign key),
        // each with its columns in key order.
        let constraints: Vec<Constraint> = sqlx::query_as(
            "SELECT c.contype::text, \
                    ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) \
                          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), \
                    c.confrelid::regclass::text, \
                    ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) \
                          JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) \
             FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u', 'f')",
        )
        .bind(&name)
        .fetch_all(&mut *conn)
        .await
        .unwrap();
        let mut primary_key = Vec::new();
        let mut unique = Vec::new();
        let mut foreign_keys = Vec::new();
        for (kind, cols, referenced, referenced_cols) in constraints {
            match kind.as_str() {
                "p" => primary_key = cols,
                "u" => unique.push(cols),
                "f" => {
                    assert_eq!(cols.len(), 1, "{name}: a foreign key of several columns");
                    foreign_keys.push((cols[0].clone(), referenced.unwrap(), referenced_cols[0].clone()));
                }
                _ => unreachable!(),
            }
        }
        unique.sort();
        foreign_keys.sort();
        schema.relations.insert(name, Relation { view, columns, primary_key, unique, foreign_keys });
    }
    // Indexes of their own, not those behind a key or UNIQUE constraint.
    let indexes: Vec<(String, String, Vec<String>)> = sqlx::query_as(
        "SELECT ic.relname::text, tc.relname::text, \
                ARRAY(SELECT a.attname::text || CASE WHEN i.indoption[k.i - 1] & 1 = 1 THEN ' DESC' ELSE '' END \
                      FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, i) \
                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.i) \
         FROM pg_index i \
         JOIN pg_class ic ON ic.oid = i.indexrelid \
         JOIN pg_class tc ON tc.oid = i.indrelid \
         JOIN pg_namespace n ON n.oid = tc.relnamespace \
         WHERE n.nspname = 'public' AND tc.relname <> '_sqlx_migrations' \
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    for (index, table, cols) in indexes {
        schema.indexes.insert(index, (table, cols));
    }
    schema
}
