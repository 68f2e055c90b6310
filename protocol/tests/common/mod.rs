//! A structural JSON Schema checker for the protocol's tests.
//!
//! It knows the part of draft 2020-12 that schemars emits (`$ref` into
//! `$defs`, `oneOf`, `anyOf`, `allOf`, `type`, `const`, `enum`,
//! `properties`, `required`, `additionalProperties`, `items`,
//! `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`) and is
//! stricter than the standard on one point: an object may carry only the
//! keys its schema declares, wherever the schema declares any. That is
//! what a client generated from the schema relies on, and what catches a
//! field added to the wire without the schema knowing. A schema that
//! declares nothing (`true`, `{}`, a description alone) accepts anything.

#![allow(dead_code)] // each test crate uses part of it

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::{Map, Value};

/// Checks values against one schema document (its `$ref`s resolve in it).
pub struct Checker<'a> {
    root: &'a Value,
    /// The shapes of each schema node already expanded, by address.
    memo: RefCell<HashMap<*const Value, Rc<Shapes<'a>>>>,
}

/// Every shape an object may take under a schema.
pub struct Shapes<'a> {
    /// The shapes; empty when no alternative of the schema is an object.
    pub all: Vec<Shape<'a>>,
    /// A `oneOf` was involved: exactly one shape may match.
    pub exclusive: bool,
}

/// One way an object may look: the union of every part of the schema that
/// applies to it on one path through its `oneOf`/`anyOf` choices.
#[derive(Clone, Default)]
pub struct Shape<'a> {
    /// Each declared key with every schema it must satisfy.
    pub properties: BTreeMap<String, Vec<&'a Value>>,
    /// Keys that must be present.
    pub required: BTreeSet<String>,
    /// Schemas every undeclared key must satisfy (`additionalProperties`).
    pub additional: Vec<&'a Value>,
    /// Some part declares its keys: others are refused.
    pub closed: bool,
}

impl<'a> Shape<'a> {
    fn merge(&self, other: &Shape<'a>) -> Shape<'a> {
        let mut m = self.clone();
        for (k, v) in &other.properties {
            m.properties.entry(k.clone()).or_default().extend(v.iter().copied());
        }
        m.required.extend(other.required.iter().cloned());
        m.additional.extend(other.additional.iter().copied());
        m.closed |= other.closed;
        m
    }

    /// The values a key is pinned to (`const` or a one-value `enum`), such as
    /// the `type` tag of a message or the `kind` of a move.
    pub fn tag(&self, key: &str) -> Option<&'a Value> {
        self.properties.get(key)?.iter().find_map(|s| {
            s.get("const").or_else(|| match s.get("enum")?.as_array()?.as_slice() {
                [one] => Some(one),
                _ => None,
            })
        })
    }
}

impl<'a> Checker<'a> {
    /// A checker for the schema document `root`.
    pub fn new(root: &'a Value) -> Checker<'a> {
        Checker { root, memo: RefCell::default() }
    }

    fn shapes_memo(&self, schema: &'a Value) -> Result<Rc<Shapes<'a>>, String> {
        if let Some(got) = self.memo.borrow().get(&(schema as *const Value)) {
            return Ok(got.clone());
        }
        let got = Rc::new(self.shapes(schema)?);
        self.memo.borrow_mut().insert(schema as *const Value, got.clone());
        Ok(got)
    }

    fn resolve(&self, reference: &str) -> Result<&'a Value, String> {
        let pointer = reference.strip_prefix('#').ok_or_else(|| format!("external $ref {reference}"))?;
        self.root.pointer(pointer).ok_or_else(|| format!("dangling $ref {reference}"))
    }

    /// Every shape an object may take under `schema`.
    pub fn shapes(&self, schema: &'a Value) -> Result<Shapes<'a>, String> {
        let (all, exclusive) = self.expand(schema)?;
        Ok(Shapes { all, exclusive })
    }

    fn expand(&self, schema: &'a Value) -> Result<(Vec<Shape<'a>>, bool), String> {
        let o = match schema {
            Value::Bool(true) => return Ok((vec![Shape::default()], false)),
            Value::Bool(false) => return Ok((vec![], false)),
            Value::Object(o) => o,
            other => return Err(format!("not a schema: {other}")),
        };
        if let Some(t) = o.get("type")
            && !type_names(t).contains(&"object")
        {
            return Ok((vec![], false));
        }
        if o.get("const").is_some_and(|c| !c.is_object())
            || o.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().all(|c| !c.is_object()))
        {
            return Ok((vec![], false));
        }
        let mut own = Shape::default();
        if let Some(Value::Object(props)) = o.get("properties") {
            own.closed = true;
            for (k, v) in props {
                own.properties.insert(k.clone(), vec![v]);
            }
        }
        if let Some(Value::Array(req)) = o.get("required") {
            own.required.extend(req.iter().filter_map(Value::as_str).map(String::from));
        }
        match o.get("additionalProperties") {
            Some(Value::Bool(false)) => own.closed = true,
            Some(s @ Value::Object(_)) => own.additional.push(s),
            _ => {}
        }
        let mut shapes = vec![own];
        let mut exclusive = false;
        let product = |shapes: &mut Vec<Shape<'a>>, with: Vec<Shape<'a>>| {
            *shapes = shapes.iter().flat_map(|a| with.iter().map(move |b| a.merge(b))).collect();
        };
        if let Some(Value::String(r)) = o.get("$ref") {
            let (with, ex) = self.expand(self.resolve(r)?)?;
            exclusive |= ex;
            product(&mut shapes, with);
        }
        if let Some(Value::Array(all)) = o.get("allOf") {
            for s in all {
                let (with, ex) = self.expand(s)?;
                exclusive |= ex;
                product(&mut shapes, with);
            }
        }
        for (key, ex) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(branches)) = o.get(key) {
                let mut with = vec![];
                for s in branches {
                    let (got, inner) = self.expand(s)?;
                    exclusive |= inner;
                    with.extend(got);
                }
                exclusive |= ex;
                product(&mut shapes, with);
            }
        }
        Ok((shapes, exclusive))
    }

    fn check_shape(&self, v: &Map<String, Value>, shape: &Shape<'a>, path: &str) -> Result<(), String> {
        for r in &shape.required {
            if !v.contains_key(r) {
                return Err(format!("{path}: required key `{r}` is missing"));
            }
        }
        for (k, x) in v {
            let at = format!("{path}.{k}");
            match shape.properties.get(k) {
                Some(schemas) => {
                    for s in schemas {
                        self.check(x, s, &at)?;
                    }
                }
                None if !shape.additional.is_empty() => {
                    for s in &shape.additional {
                        self.check(x, s, &at)?;
                    }
                }
                None if shape.closed => return Err(format!("{path}: key `{k}` is not declared by the schema")),
                None => {}
            }
        }
        Ok(())
    }

    /// Checks `v` against `schema`; the error names the path of the first
    /// mismatch (`$` is the value itself).
    pub fn check(&self, v: &Value, schema: &'a Value, path: &str) -> Result<(), String> {
        if let Value::Object(obj) = v {
            let memo = self.shapes_memo(schema)?;
            let (shapes, exclusive) = (&memo.all, memo.exclusive);
            if shapes.is_empty() {
                return Err(format!("{path}: an object where the schema allows none"));
            }
            let results: Vec<Result<(), String>> = shapes.iter().map(|s| self.check_shape(obj, s, path)).collect();
            let matched = results.iter().filter(|r| r.is_ok()).count();
            return match matched {
                0 => Err(closest_error(obj, shapes, results)),
                1 => Ok(()),
                n if exclusive => Err(format!("{path}: {n} alternatives of a oneOf match")),
                _ => Ok(()),
            };
        }
        let o = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(format!("{path}: the schema allows nothing here")),
            Value::Object(o) => o,
            other => return Err(format!("not a schema: {other}")),
        };
        if let Some(Value::String(r)) = o.get("$ref") {
            self.check(v, self.resolve(r)?, path)?;
        }
        if let Some(t) = o.get("type")
            && !type_names(t).iter().any(|name| has_type(v, name))
        {
            return Err(format!("{path}: {v} is not of type {t}"));
        }
        if let Some(c) = o.get("const")
            && c != v
        {
            return Err(format!("{path}: {v} is not {c}"));
        }
        if let Some(Value::Array(e)) = o.get("enum")
            && !e.contains(v)
        {
            return Err(format!("{path}: {v} is not one of {}", Value::Array(e.clone())));
        }
        if let Some(n) = v.as_f64() {
            if o.get("minimum").and_then(Value::as_f64).is_some_and(|min| n < min) {
                return Err(format!("{path}: {v} is below the minimum {}", o["minimum"]));
            }
            if o.get("maximum").and_then(Value::as_f64).is_some_and(|max| n > max) {
                return Err(format!("{path}: {v} is above the maximum {}", o["maximum"]));
            }
        }
        if let Value::Array(items) = v {
            let len = items.len() as u64;
            if o.get("minItems").and_then(Value::as_u64).is_some_and(|min| len < min) {
                return Err(format!("{path}: {len} items, fewer than {}", o["minItems"]));
            }
            if o.get("maxItems").and_then(Value::as_u64).is_some_and(|max| len > max) {
                return Err(format!("{path}: {len} items, more than {}", o["maxItems"]));
            }
            let prefix = o.get("prefixItems").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            for (i, x) in items.iter().enumerate() {
                let at = format!("{path}[{i}]");
                match (prefix.get(i), o.get("items")) {
                    (Some(s), _) | (None, Some(s)) => self.check(x, s, &at)?,
                    (None, None) => {}
                }
            }
        }
        if let Some(Value::Array(all)) = o.get("allOf") {
            for s in all {
                self.check(v, s, path)?;
            }
        }
        if let Some(Value::Array(any)) = o.get("anyOf") {
            let errors: Vec<String> = any.iter().filter_map(|s| self.check(v, s, path).err()).collect();
            if errors.len() == any.len() {
                return Err(format!("{path}: no alternative of anyOf matches: {}", errors.join("; ")));
            }
        }
        if let Some(Value::Array(one)) = o.get("oneOf") {
            let errors: Vec<String> = one.iter().filter_map(|s| self.check(v, s, path).err()).collect();
            match one.len() - errors.len() {
                1 => {}
                0 => return Err(format!("{path}: no alternative of oneOf matches: {}", errors.join("; "))),
                n => return Err(format!("{path}: {n} alternatives of a oneOf match {v}")),
            }
        }
        Ok(())
    }
}

/// For an object matching no shape: the error of the shape whose pinned
/// keys (its tags) the object carries, else every error.
fn closest_error(obj: &Map<String, Value>, shapes: &[Shape<'_>], results: Vec<Result<(), String>>) -> String {
    let tagged = |s: &Shape<'_>| {
        s.properties.keys().any(|k| s.tag(k).is_some())
            && s.properties.keys().all(|k| s.tag(k).is_none_or(|t| obj.get(k) == Some(t)))
    };
    let errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    match shapes.iter().position(tagged) {
        Some(i) => errors[i].clone(),
        None => format!("no shape matches: {}", errors.join(" | ")),
    }
}

fn type_names(t: &Value) -> Vec<&str> {
    match t {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

fn has_type(v: &Value, name: &str) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}
