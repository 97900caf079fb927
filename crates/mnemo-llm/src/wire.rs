//! JSON as requests carry it. `serde_json::Value` keeps an object's keys sorted, and a JSON
//! schema's `properties` in sorted order is the order a grammar-constrained server (llama.cpp)
//! makes the model write them: `fact` before `topic`, the answer before the thinking. Here an
//! object that has `properties` and `required` has its properties written in the order
//! `required` lists them (the others after, sorted); everything else is as `serde_json` writes
//! it.

use serde_json::Value;

/// `v` as compact JSON, a schema's required properties in their listed order.
#[must_use]
pub fn to_wire(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            out.push('{');
            let mut first = true;
            for (k, val) in map {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                match (k.as_str(), val, map.get("required")) {
                    ("properties", Value::Object(props), Some(Value::Array(required))) => {
                        write_props(props, required, out);
                    }
                    _ => write(val, out),
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn write_props(props: &serde_json::Map<String, Value>, required: &[Value], out: &mut String) {
    let listed: Vec<&str> = required
        .iter()
        .filter_map(Value::as_str)
        .filter(|k| props.contains_key(*k))
        .collect();
    let rest = props
        .keys()
        .map(String::as_str)
        .filter(|k| !listed.contains(k));
    out.push('{');
    for (i, k) in listed.iter().copied().chain(rest).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(k.to_owned()).to_string());
        out.push(':');
        if let Some(v) = props.get(k) {
            write(v, out);
        }
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn required_properties_keep_their_listed_order_and_the_rest_is_as_serde_writes_it() {
        let schema = json!({"type": "object", "required": ["source", "type", "topic", "fact"],
            "properties": {"fact": {"type": "string"}, "why": {"type": "string"},
                "topic": {"type": "string", "maxLength": 60}, "type": {"enum": ["a\"b", "c"]},
                "source": {"type": "integer"}}});
        let wire = to_wire(&json!({"messages": [{"content": "é \n"}], "schema": schema, "n": 1.5}));
        let at = |k: &str| wire.find(&format!("\"{k}\":{{")).unwrap();
        assert!(at("source") < at("type") && at("type") < at("topic") && at("topic") < at("fact"));
        assert!(at("fact") < at("why"), "the optional ones after: {wire}");
        // The same value, key order aside.
        let back: Value = serde_json::from_str(&wire).unwrap();
        assert_eq!(
            back,
            json!({"messages": [{"content": "é \n"}], "schema": schema, "n": 1.5})
        );
        let plain = json!({"b": [1, null, true], "a": {"x": "y"}});
        assert_eq!(to_wire(&plain), plain.to_string());
    }
}
