//! `capicua-server tournament pairings` and `tournament show`: a
//! tournament's pairings and who is here, as the serving server's API
//! gives them, written for people (rounds, tables and seats from 1).

use serde_json::Value;

use super::reader::Reader;

/// Prints every round's pairings (or round `round`'s, from 1).
pub(crate) async fn print(from: &Reader, round: Option<u32>) -> anyhow::Result<()> {
    let path = match round {
        Some(0) => anyhow::bail!("--round counts from 1"),
        Some(n) => format!("/pairings?round={}", n - 1),
        None => "/pairings".to_string(),
    };
    let pairings = from.get_json(&path).await?;
    let lines = pairing_lines(&pairings);
    if lines.is_empty() {
        outln!("no rounds paired yet");
    }
    for line in lines {
        outln!("{line}");
    }
    Ok(())
}

/// Prints the tournament's status, who is here and its open tables' nodes.
pub(crate) async fn show(from: &Reader) -> anyhow::Result<()> {
    let detail = from.get_json("").await?;
    for line in show_lines(&detail) {
        outln!("{line}");
    }
    Ok(())
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `v` (a number from 0) as people count, from 1.
fn from_one(v: &Value) -> String {
    v.as_u64().map_or_else(|| text(v), |n| (n + 1).to_string())
}

/// The names of side `side`'s entrants at a table, each once.
fn side(seats: &[Value], side: &Value) -> String {
    let mut names: Vec<String> = Vec::new();
    for s in seats.iter().filter(|s| &s["side"] == side) {
        let n = text(&s["entrant-name"]);
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names.join(" & ")
}

/// "ana won" or "draw", and the seats' scores.
fn outcome(seats: &[Value], result: &Value) -> String {
    let scores: Vec<String> = result["seats"].as_array().into_iter().flatten().map(|s| text(&s["score"])).collect();
    let who = match &result["winner"] {
        Value::Null => "draw".to_string(),
        w => format!("{} won", side(seats, w)),
    };
    format!("{who}, scores {}", scores.join(" to "))
}

/// One table's line: its number and where it stands.
fn table_line(t: &Value) -> String {
    let seats = t["seats"].as_array().cloned().unwrap_or_default();
    let room = t["room"].as_i64().map(|r| format!(", room {r}")).unwrap_or_default();
    let state = match t["state"].as_str().unwrap_or("") {
        "finished" => {
            let mut s = outcome(&seats, &t["result"]);
            if let Some(g) = t["game"].as_i64() {
                s.push_str(&format!(", game {g}"));
            }
            if let Some(by) = t["corrected-by"].as_str() {
                s.push_str(&format!("; corrected by {by} (as played: {})", outcome(&seats, &t["played"])));
            }
            s
        }
        "in-play" => format!("in play{room}"),
        "waiting" => {
            let who: Vec<String> = t["waiting-for"].as_array().into_iter().flatten().map(text).collect();
            format!("waiting for {}{room}", who.join(", "))
        }
        "not-open" => "not open yet".to_string(),
        "unplayed" => "not played".to_string(),
        other => other.to_string(),
    };
    format!("  table {}: {state}", from_one(&t["table"]))
}

/// The pairings as lines: per round a header, per table its outcome and
/// seats, then the byes.
pub(crate) fn pairing_lines(p: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for r in p["rounds"].as_array().into_iter().flatten() {
        let open = if r["in-progress"] == Value::Bool(true) { ", in progress" } else { "" };
        out.push(format!(
            "round {} (stage {}, {}){open}",
            from_one(&r["round"]),
            from_one(&r["stage"]),
            text(&r["variant"])
        ));
        for t in r["tables"].as_array().into_iter().flatten() {
            out.push(table_line(t));
            for s in t["seats"].as_array().into_iter().flatten() {
                out.push(format!(
                    "    seat {}: {}, entrant {}",
                    from_one(&s["seat"]),
                    text(&s["player"]),
                    text(&s["entrant-name"])
                ));
            }
        }
        let byes: Vec<String> = r["byes"].as_array().into_iter().flatten().map(|b| text(&b["name"])).collect();
        if !byes.is_empty() {
            out.push(format!("  byes: {}", byes.join(", ")));
        }
    }
    out
}

/// The detail as lines: the status, each entrant's presence, the node of
/// each open table.
pub(crate) fn show_lines(d: &Value) -> Vec<String> {
    let mut out = vec![format!(
        "{} (tournament {}, {}, {} results)",
        text(&d["name"]),
        text(&d["id"]),
        text(&d["status"]),
        text(&d["results"])
    )];
    out.push("who is here:".to_string());
    for p in d["presence"].as_array().into_iter().flatten() {
        let mut line = format!("  {}: {}", text(&p["name"]), text(&p["state"]));
        if let Some(t) = p["table"].as_object() {
            line.push_str(&format!(" at round {} table {}", from_one(&t["round"]), from_one(&t["table"])));
        }
        let absent: Vec<String> = p["players"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|pl| pl["connected"] == Value::Bool(false))
            .map(|pl| text(&pl["name"]))
            .collect();
        if !absent.is_empty() {
            line.push_str(&format!("; not connected: {}", absent.join(", ")));
        }
        out.push(line);
    }
    let mut open = Vec::new();
    for r in d["rounds"].as_array().into_iter().flatten().filter(|r| r["in-progress"] == Value::Bool(true)) {
        for t in r["tables"].as_array().into_iter().flatten().filter(|t| t["result"].is_null()) {
            let node = match t["node"].as_object() {
                Some(n) => format!("node {} at {}", text(&n["id"]), text(&n["url"])),
                None => "no node yet".to_string(),
            };
            let waiting: Vec<String> = t["waiting"].as_array().into_iter().flatten().map(text).collect();
            let waits =
                if waiting.is_empty() { String::new() } else { format!(", waiting for {}", waiting.join(", ")) };
            open.push(format!("  round {} table {}: {node}{waits}", from_one(&r["number"]), from_one(&t["id"])));
        }
    }
    if !open.is_empty() {
        out.push("open tables:".to_string());
        out.extend(open);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_corrected_table_names_its_winner_the_corrector_and_the_result_as_played() {
        let p = json!({"tournament": 1, "rounds": [{
            "round": 0, "stage": 0, "variant": "block", "in-progress": false,
            "byes": [{"entrant": 2, "name": "cy"}],
            "tables": [{
                "table": 0, "state": "finished", "game": 7, "room": 3, "waiting-for": [],
                "seats": [
                    {"seat": 0, "side": 0, "player": "ana", "entrant": 0, "entrant-name": "ana"},
                    {"seat": 1, "side": 1, "player": "ben", "entrant": 1, "entrant-name": "ben"}
                ],
                "result": {"round": 0, "table": 0, "winner": 1, "seats": [{"score": 10}, {"score": 100}]},
                "played": {"round": 0, "table": 0, "winner": 0, "seats": [{"score": 100}, {"score": 10}]},
                "corrected-by": "referee", "corrected-at": 5
            }]
        }]});
        assert_eq!(
            pairing_lines(&p),
            [
                "round 1 (stage 1, block)",
                "  table 1: ben won, scores 10 to 100, game 7; corrected by referee (as played: ana won, scores 100 to 10)",
                "    seat 1: ana, entrant ana",
                "    seat 2: ben, entrant ben",
                "  byes: cy",
            ]
        );
    }

    #[test]
    fn an_open_table_says_whom_it_waits_for() {
        let t = json!({"table": 1, "state": "waiting", "room": 9, "waiting-for": ["ana"], "seats": []});
        assert_eq!(table_line(&t), "  table 2: waiting for ana, room 9");
    }
}
