//! Schema-driven input: arguments for a tool from its JSON Schema, and URIs from
//! RFC 6570 templates.

use picomcp::json::{Json, JsonKind};

use crate::text::{json_text, raw_object};

/// A URI from an RFC 6570 template with every expression (`{id}`, `{+path}`, `{?q}`...)
/// replaced by `value`; a query or fragment expression becomes nothing.
pub(crate) fn expand_template(template: &str, value: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let expr = &rest[open + 1..open + close];
        if !matches!(expr.chars().next(), Some('?' | '&' | '#')) {
            out.push_str(value);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Generates arguments for the required parameters of an input schema: the `const` or
/// first `enum` value when there is one, else "hello" for strings, 1 for numbers (moved
/// into `minimum..maximum`) and `true` for booleans. When those do not satisfy the schema
/// (the core's validator, `picomcp::schema`, says so: an `anyOf` of `required` sets, an
/// `if`/`then`), a value for every property it can generate is tried too, and used when
/// the validator accepts it.
pub(crate) fn generate_arguments(schema: Json<'_>) -> Result<String, String> {
    let required = generate_required(schema)?;
    let Ok(checked) = picomcp::schema::Schema::from_json(schema) else {
        return Ok(required);
    };
    let accepts = |text: &str| Json::new(text).is_ok_and(|v| checked.validate(v).is_ok());
    if accepts(&required) {
        return Ok(required);
    }
    let mut values = Vec::new();
    for (name, prop) in schema
        .get("properties")
        .into_iter()
        .flat_map(|p| p.members())
    {
        if let Some(value) = generate_value(prop) {
            values.push((name.to_string(), value));
        }
    }
    let all = raw_object(&values);
    Ok(if accepts(&all) { all } else { required })
}

/// Arguments for the required parameters only.
fn generate_required(schema: Json<'_>) -> Result<String, String> {
    let props = schema.get("properties");
    let mut values = Vec::new();
    for name in required_names(schema) {
        let prop = props
            .and_then(|p| p.get(&name))
            .ok_or_else(|| format!("required `{name}` has no schema"))?;
        let value =
            generate_value(prop).ok_or_else(|| format!("cannot generate a value for `{name}`"))?;
        values.push((name, value));
    }
    Ok(raw_object(&values))
}

/// One generated value as JSON text.
pub(crate) fn generate_value(prop: Json<'_>) -> Option<String> {
    if let Some(c) = prop.get("const") {
        return Some(c.as_raw().to_owned());
    }
    if let Some(first) = prop.get("enum").and_then(|e| e.elements().next()) {
        return Some(first.as_raw().to_owned());
    }
    let ty = match prop.get("type") {
        Some(t) if t.kind() == JsonKind::Array => t
            .elements()
            .find(|t| !t.as_str().is_some_and(|s| s.eq_str("null")))?,
        Some(t) => t,
        None => return prop.get("default").map(|d| d.as_raw().to_owned()),
    };
    let ty = ty.as_str()?.to_string();
    let bound = |key: &str| prop.get(key).and_then(|v| v.as_f64());
    match ty.as_str() {
        "string" => Some("\"hello\"".into()),
        "boolean" => Some("true".into()),
        "number" | "integer" => {
            let mut n = 1.0_f64;
            if let Some(min) = bound("minimum").filter(|m| n < *m) {
                n = if ty == "integer" { min.ceil() } else { min };
            }
            if let Some(max) = bound("maximum").filter(|m| n > *m) {
                n = if ty == "integer" { max.floor() } else { max };
            }
            Some(json_text(|w| w.f64(n)))
        }
        _ => prop.get("default").map(|d| d.as_raw().to_owned()),
    }
}

/// The names in a schema's `required` array.
pub(crate) fn required_names(schema: Json<'_>) -> Vec<String> {
    schema
        .get("required")
        .map(|r| {
            r.elements()
                .filter_map(|n| n.as_str())
                .map(|n| n.to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// `name*` when `name` is required, else `name`: for the lists in the report.
pub(crate) fn mark_required(name: &str, required: &[String]) -> String {
    if required.iter().any(|r| r == name) {
        format!("{name}*")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::json;

    #[test]
    fn template_expansion() {
        assert_eq!(
            expand_template("test://template/{id}/data", "1"),
            "test://template/1/data"
        );
        assert_eq!(expand_template("file:///{+path}{?q,r}", "1"), "file:///1");
        assert_eq!(expand_template("a/{x}/{y}{#frag}", "1"), "a/1/1");
        assert_eq!(expand_template("no-vars", "1"), "no-vars");
        assert_eq!(expand_template("broken/{id", "1"), "broken/{id");
    }

    #[test]
    fn generated_arguments() {
        let schema = json(
            r#"{"type":"object","properties":{
                "s":{"type":"string"},
                "e":{"type":"string","enum":["b","a"]},
                "c":{"const":7},
                "i":{"type":"integer","minimum":5},
                "n":{"type":"number","maximum":0.5},
                "b":{"type":"boolean"},
                "o":{"type":["null","string"]},
                "optional":{"type":"object"}},
              "required":["s","e","c","i","n","b","o"]}"#,
        );
        assert_eq!(
            generate_arguments(schema).unwrap(),
            r#"{"s":"hello","e":"b","c":7,"i":5,"n":0.5,"b":true,"o":"hello"}"#
        );
        assert_eq!(
            generate_arguments(json(r#"{"type":"object"}"#)).unwrap(),
            "{}"
        );
        let nested = json(r#"{"properties":{"cfg":{"type":"object"}},"required":["cfg"]}"#);
        assert!(generate_arguments(nested).unwrap_err().contains("cfg"));
        let undescribed = json(r#"{"properties":{},"required":["x"]}"#);
        assert!(generate_arguments(undescribed).is_err());
    }
}
