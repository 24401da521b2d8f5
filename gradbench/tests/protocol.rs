//! The protocol loop against malformed and unexpected messages: every line gets one answer
//! with its id, nothing crashes, and failures carry an error text.

use gradtape_gradbench::{Failure, evaluate, guarded, respond, serve};
use serde_json::{Value, json};

fn session(lines: &[&str]) -> Vec<Value> {
    let input = lines.join("\n");
    let mut output = Vec::new();
    serve(input.as_bytes(), &mut output).unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_whole_session_is_answered_in_order_with_the_same_ids() {
    let responses = session(&[
        r#"{"id":0,"kind":"start","eval":"lse"}"#,
        r#"{"id":1,"kind":"define","module":"lse"}"#,
        r#"{"id":2,"kind":"evaluate","module":"lse","function":"primal","input":{"x":[0.0,0.0],"min_runs":3,"min_seconds":0}}"#,
        r#"{"id":3,"kind":"analysis","of":2,"valid":true}"#,
        "",
        r#"{"id":4,"kind":"evaluate","module":"lse","function":"gradient","input":{"x":[1.0],"min_runs":1,"min_seconds":0}}"#,
    ]);
    let ids: Vec<u64> = responses
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0, 1, 2, 3, 4], "the empty line gets no answer");
    assert_eq!(responses[0]["tool"], "gradtape");
    assert_eq!(responses[1], json!({ "id": 1, "success": true }));
    assert!((responses[2]["output"].as_f64().unwrap() - 2f64.ln()).abs() < 1e-15);
    assert_eq!(responses[2]["timings"].as_array().unwrap().len(), 3);
    assert_eq!(responses[3], json!({ "id": 3 }));
    assert_eq!(responses[4]["output"], json!([1.0]));
}

#[test]
fn an_unknown_module_is_declined_at_define_with_an_error() {
    let response = respond(r#"{"id":5,"kind":"define","module":"nonesuch"}"#);
    assert_eq!(response["id"], 5);
    assert_eq!(response["success"], false);
    assert!(response["error"].as_str().unwrap().contains("nonesuch"));
}

#[test]
fn every_kind_of_bad_message_gets_a_failure_not_a_crash() {
    let cases = [
        ("{not json", "not a JSON message"),
        (r#"{"id":1,"kind":"define"}"#, "needs a `module`"),
        (
            r#"{"id":1,"kind":"evaluate","module":"lse"}"#,
            "needs `module` and `function`",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"lse","function":"hessian","input":{"x":[1.0],"min_runs":1,"min_seconds":0}}"#,
            "has no function `hessian`",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"lse","function":"primal","input":{"x":"three","min_runs":1,"min_seconds":0}}"#,
            "bad input for `lse`",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"lse","function":"primal","input":{"x":[1.0]}}"#,
            "missing field `min_runs`",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"lse","function":"primal","input":{"x":[],"min_runs":1,"min_seconds":0}}"#,
            "x is empty",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"llsq","function":"primal","input":{"x":[1.0],"n":1,"min_runs":1,"min_seconds":0}}"#,
            "need n ≥ 2",
        ),
        (
            r#"{"id":1,"kind":"evaluate","module":"nonesuch","function":"f","input":1}"#,
            "no implementation of the module `nonesuch`",
        ),
    ];
    for (line, expected) in cases {
        let response = respond(line);
        assert_eq!(response["success"], false, "{line}");
        let error = response["error"].as_str().unwrap();
        assert!(error.contains(expected), "{line}: {error}");
        assert!(
            response.get("output").is_none(),
            "{line}: no output with a failure"
        );
    }
}

#[test]
fn messages_of_other_kinds_are_acknowledged() {
    assert_eq!(respond(r#"{"id":9,"kind":"shutdown"}"#), json!({ "id": 9 }));
    assert_eq!(respond(r#"{"id":9}"#), json!({ "id": 9 }));
}

/// A panic inside an evaluation (a gradtape shape check, here) becomes a failure naming the
/// function, and the next evaluation works.
#[test]
fn a_panic_inside_an_evaluation_is_a_failure_and_the_loop_goes_on() {
    let failure = guarded("lse", "primal", || {
        let x = gradtape::Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
        let y = gradtape::Tensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3]);
        let _ = &x + &y;
        unreachable!("shapes [2] and [3] do not broadcast")
    });
    match failure {
        Err(Failure::Panicked {
            module,
            function,
            message,
        }) => {
            assert_eq!((module.as_str(), function.as_str()), ("lse", "primal"));
            assert!(
                message.contains("[2]") && message.contains("[3]"),
                "{message}"
            );
        }
        other => panic!("expected a caught panic, got {other:?}"),
    }
    assert!(evaluate("hello", "square", json!(3.0)).is_ok());
}

#[test]
fn runs_honour_both_the_count_and_the_time() {
    let many = evaluate("hello", "square", json!(2.0)).unwrap();
    assert_eq!(many.timings.len(), 1, "hello has no Runs: one run");
    let input = json!({ "x": [1.0, 2.0], "min_runs": 7, "min_seconds": 0 });
    assert_eq!(evaluate("lse", "primal", input).unwrap().timings.len(), 7);
    let input = json!({ "x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0.01 });
    let timed = evaluate("lse", "primal", input).unwrap();
    let total: u64 = timed.timings.iter().map(|t| t.nanoseconds).sum();
    assert!(total >= 10_000_000 && timed.timings.len() > 1);
}

/// The binary takes GradBench's `--multithreaded` and nothing else: an unknown argument
/// is refused with a message on stderr, before any message is read.
#[test]
fn the_binary_takes_multithreaded_and_refuses_other_arguments() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let tool = env!("CARGO_BIN_EXE_gradtape-gradbench");
    for (args, ok) in [
        (&[][..], true),
        (&["--multithreaded"][..], true),
        (&["-j2"][..], false),
    ] {
        let mut child = Command::new(tool)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the tool starts");
        // a closed stdin after one message: the tool answers it and ends
        let start = "{\"id\":0,\"kind\":\"start\",\"eval\":\"hello\"}\n";
        let _ = child
            .stdin
            .take()
            .expect("piped")
            .write_all(start.as_bytes());
        let out = child.wait_with_output().expect("the tool ends");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.success(), ok, "{args:?}: {stderr}");
        if ok {
            assert!(
                stdout.contains("\"tool\":\"gradtape\""),
                "{args:?}: {stdout}"
            );
        } else {
            assert!(stdout.is_empty(), "{args:?}: {stdout}");
            assert!(stderr.contains("unknown argument `-j2`"), "{stderr}");
        }
    }
}
