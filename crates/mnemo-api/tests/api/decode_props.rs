//! HTTP argument decoding (`Api::call`, what `POST /api/<command>` runs) never panics
//! on any JSON: every command answers a value or a clear error with a known code.

use crate::common;

use mnemo_api::COMMANDS;
use mnemo_core::ErrorCode;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Commands that reach a model server, the network or a long job: their decoding is the same
/// code path, exercised here through every other command.
const SKIP: &[&str] = &[
    "chat_send",
    "test_model",
    "set_model_settings",
    "remember",
    "dream",
    "embed",
    "add_folder",
    "bind_workspace",
    "set_settings",
];

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<String>().prop_map(Value::String),
        prop_oneof![
            Just("personal"),
            Just("a.md"),
            Just("../x.md"),
            Just("/etc/passwd"),
            Just("user"),
            Just(""),
            Just("x\u{202e}y"),
            Just("🙂"),
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Arguments shaped like a command's own (its argument names, camelCase) with any values, or
/// anything at all.
fn args_for(names: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let named = prop::collection::vec(
        (
            prop::sample::select(names.to_vec()).prop_map(mnemo_api::wire_name),
            json(),
        ),
        0..4,
    )
    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>()));
    prop_oneof![json(), named]
}

fn command() -> impl Strategy<Value = (&'static str, &'static [&'static str])> {
    let usable: Vec<(&'static str, &'static [&'static str])> = COMMANDS
        .iter()
        .filter(|c| !SKIP.contains(&c.name) && !c.desktop_only && !c.args.is_empty())
        .map(|c| (c.name, c.args))
        .collect();
    prop::sample::select(usable)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_json_gets_an_answer_or_a_clear_error(
        (name, args) in command().prop_flat_map(|(n, a)| (Just(n), args_for(a))),
    ) {
        let (_d, api) = common::api();
        match api.call(name, args) {
            Ok(_) => {}
            Err(e) => {
                prop_assert!(!e.message.trim().is_empty());
                prop_assert!(e.code != ErrorCode::UnknownCommand, "{name} is a command");
            }
        }
    }

    #[test]
    fn unknown_commands_are_refused_by_name(name in "[a-z_]{1,20}", args in json()) {
        prop_assume!(!COMMANDS.iter().any(|c| c.name == name));
        let (_d, api) = common::api();
        prop_assert_eq!(api.call(&name, args).unwrap_err().code, ErrorCode::UnknownCommand);
    }
}
