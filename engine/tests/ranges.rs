//! Validation accepts exactly the ranges the rule catalog advertises: every
//! whole-number parameter of every option, just inside and just outside its
//! range, in every preset that can hold it.

use capicua_engine::poly::{POLY_PRESETS, PolyVariant, poly_preset};
use capicua_engine::{PRESETS, ParamKind, RuleOption, Variant, catalog, preset};
use serde_json::{Value, json};

/// The option's value with `param` set to `n` and the other parameters at
/// their defaults.
fn option_value(o: &RuleOption, param: &str, n: i64) -> Option<Value> {
    let mut args = serde_json::Map::new();
    for p in &o.params {
        let v = if p.name == param {
            json!(n)
        } else {
            match p.kind {
                ParamKind::Integer { .. } => json!(p.default.parse::<i64>().ok()?),
                ParamKind::Bool => json!(p.default == "true"),
                ParamKind::Fraction => json!(p.default.parse::<f64>().ok()?),
                // Options with tiles or nested rules are checked through
                // their integer siblings elsewhere.
                _ => return None,
            }
        };
        args.insert(p.name.to_string(), v);
    }
    Some(json!({ o.option: args }))
}

/// Puts `value` at the option's field in a variant's JSON.
fn set_field(variant: &mut Value, field: &str, value: Value) {
    match field {
        "end" => variant["end"] = json!([value]),
        "when.if" => variant["when"] = json!([{"if": value, "use": {"matching": "zero-wild"}}]),
        _ => {
            let mut at = variant;
            let keys: Vec<&str> = field.split('.').collect();
            for k in &keys[..keys.len() - 1] {
                at = &mut at[*k];
            }
            at[keys[keys.len() - 1]] = value;
        }
    }
}

/// Why a variant was refused, if it was (`Some("")`: it was accepted).
fn verdict(o: &RuleOption, base: &Value, param: &str, n: i64) -> Option<String> {
    let mut v = base.clone();
    let field = o.field.strip_prefix("poly.").unwrap_or(o.field);
    set_field(&mut v, field, option_value(o, param, n)?);
    Some(if o.field.starts_with("poly.") {
        match serde_json::from_value::<PolyVariant>(v) {
            Err(e) => format!("parse: {e}"),
            Ok(p) => p.validate().err().map(|e| e.to_string()).unwrap_or_default(),
        }
    } else {
        match serde_json::from_value::<Variant>(v) {
            Err(e) => format!("parse: {e}"),
            Ok(p) => p.validate().err().map(|e| e.to_string()).unwrap_or_default(),
        }
    })
}

#[test]
fn every_integer_parameter_is_held_to_the_catalogs_range() {
    let two: Vec<Value> = PRESETS.iter().map(|p| serde_json::to_value(preset(p).unwrap()).unwrap()).collect();
    let poly: Vec<Value> =
        POLY_PRESETS.iter().map(|p| serde_json::to_value(poly_preset(p).unwrap()).unwrap()).collect();
    let mut checked = 0;
    for o in catalog() {
        let bases = if o.field.starts_with("poly.") { &poly } else { &two };
        for p in &o.params {
            let ParamKind::Integer { min, max } = p.kind else { continue };
            for base in bases {
                for n in [min, max] {
                    let Some(why) = verdict(&o, base, p.name, n) else { continue };
                    assert!(!why.contains("outside"), "{} {}={n} is in range but refused: {why}", o.id, p.name);
                }
                for n in [min - 1, max + 1] {
                    let Some(why) = verdict(&o, base, p.name, n) else { continue };
                    assert!(!why.is_empty(), "{} {}={n} is out of range but accepted", o.id, p.name);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} out-of-range cases were built");
}

#[test]
fn the_win_bonus_and_points_cannot_wrap_a_score() {
    let mut v = preset("latin").unwrap();
    v.scoring.win_bonus = i32::MAX;
    assert_eq!(v.validate().unwrap_err().field, "scoring.win-bonus");
    let mut v = serde_json::to_value(preset("latin").unwrap()).unwrap();
    v["target"] = json!({"points": {"points": 4_000_000_000u64, "exact": false, "immediate": false}});
    let refused = match serde_json::from_value::<Variant>(v) {
        Err(_) => true,
        Ok(v) => v.validate().is_err(),
    };
    assert!(refused, "a target beyond i32 is refused");
}
