use std::time::{Duration, Instant};

use crucible_agent::{AgentBackend, AgentError, AgentRequest, OpenAiBackend};
use serde_json::json;

use crate::stub_server::{Answer, StubServer};

fn backend(server: &StubServer, timeout: Duration) -> OpenAiBackend {
    OpenAiBackend {
        base_url: server.base_url.clone(),
        model: "test-model".into(),
        api_key: Some("sk-test-secret".into()),
        timeout,
    }
}

fn ask(b: &OpenAiBackend) -> Result<crucible_agent::AgentReply, AgentError> {
    let messages = vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Continue."}),
    ];
    b.complete(&AgentRequest {
        prompt: "unused by this backend",
        messages: &messages,
    })
}

#[test]
fn posts_the_messages_and_reads_reply_and_usage() {
    let server = StubServer::start(vec![Answer::Json(
        json!({
            "id": "c1", "object": "chat.completion", "model": "test-model-0001",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "Done: tests pass."}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        })
        .to_string(),
    )]);
    let reply = ask(&backend(&server, Duration::from_secs(5))).unwrap();
    assert_eq!(reply.text, "Done: tests pass.");
    assert_eq!(reply.usage.unwrap().total_tokens, 17);
    assert_eq!(reply.model.as_deref(), Some("test-model-0001"));

    let seen = server.seen.recv().unwrap();
    assert_eq!(seen.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(seen.header("authorization"), Some("Bearer sk-test-secret"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    let body: serde_json::Value = serde_json::from_str(&seen.body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][1]["content"], "Continue.");
}

#[test]
fn a_server_error_shows_its_message_and_never_the_key() {
    let server = StubServer::start(vec![Answer::Status(
        500,
        r#"{"error":{"message":"the model is overloaded","type":"server_error"}}"#.into(),
    )]);
    let e = ask(&backend(&server, Duration::from_secs(5))).unwrap_err();
    assert!(
        matches!(e, AgentError::HttpStatus { status: 500, .. }),
        "{e:?}"
    );
    let shown = e.to_string();
    assert!(
        shown.contains("HTTP 500: the model is overloaded"),
        "{shown}"
    );
    assert!(shown.contains("/v1/chat/completions"), "{shown}");
    assert!(!shown.contains("sk-test-secret"));
    assert!(!format!("{e:?}").contains("sk-test-secret"));
}

#[test]
fn an_error_body_that_echoes_the_key_is_shown_without_it() {
    let key = format!("sk-proj-{}", "Zx81kQ2mLp94TrW0aB3cD5eFgH7j");
    let server = StubServer::start(vec![Answer::Status(
        401,
        format!(
            r#"{{"error":{{"message":"Incorrect API key provided: {key}. Find yours at https://x/keys","type":"invalid_request_error"}}}}"#
        ),
    )]);
    let mut b = backend(&server, Duration::from_secs(5));
    b.api_key = Some(key.clone());
    let e = ask(&b).unwrap_err();
    let shown = format!("{e} {e:?}");
    assert!(shown.contains("Incorrect API key provided"), "{shown}");
    assert!(!shown.contains(&key[..16]), "{shown}");

    // A key the redactor has no pattern for is still taken out: it is the
    // one this backend sent.
    let odd_key = "plainlowercasekeyvalue";
    let server = StubServer::start(vec![Answer::Status(
        401,
        format!(r#"{{"error":"bad key {odd_key}"}}"#),
    )]);
    let mut b = backend(&server, Duration::from_secs(5));
    b.api_key = Some(odd_key.into());
    let shown = ask(&b).unwrap_err().to_string();
    assert!(!shown.contains(odd_key), "{shown}");
}

#[test]
fn a_base_url_with_credentials_is_never_shown_with_them() {
    let server = StubServer::start(vec![Answer::Status(500, "{}".into())]);
    let with_password = server
        .base_url
        .replacen("http://", "http://admin:Pa55w0rdZx81kQ@", 1);
    let b = OpenAiBackend {
        base_url: with_password,
        ..backend(&server, Duration::from_secs(5))
    };
    let e = ask(&b).unwrap_err();
    let shown = format!("{e} {e:?} {} {b:?}", b.describe());
    assert!(!shown.contains("Pa55w0rdZx81kQ"), "{shown}");
    assert!(shown.contains("[REDACTED:url-password]"), "{shown}");
}

#[test]
fn a_stalled_server_times_out() {
    let server = StubServer::start(vec![Answer::Stall(Duration::from_secs(3))]);
    let started = Instant::now();
    let e = ask(&backend(&server, Duration::from_millis(400))).unwrap_err();
    assert!(matches!(e, AgentError::HttpTimeout { .. }), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(e.to_string().contains("no reply within 0.4 s"), "{e}");
}

#[test]
fn malformed_json_is_an_error_that_says_so() {
    let server = StubServer::start(vec![
        Answer::Json("{\"choices\": [".into()),
        Answer::Json(r#"{"object":"list","data":[]}"#.into()),
    ]);
    let b = backend(&server, Duration::from_secs(5));
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::BadResponse { .. }), "{e:?}");
    assert!(e.to_string().contains("not a chat completion"), "{e}");
    let e = ask(&b).unwrap_err();
    assert!(e.to_string().contains("no choices[0].message"), "{e}");
}

#[test]
fn nothing_listening_is_a_connection_error() {
    // Bind then drop: the port is very likely free afterwards.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let b = OpenAiBackend {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(2),
    };
    let e = ask(&b).unwrap_err();
    assert!(matches!(e, AgentError::Http { .. }), "{e:?}");
}
