//! Where and how `export --to otlp` sends: the flags, else the standard
//! `OTEL_EXPORTER_OTLP_*` variables (the traces-specific one before the
//! general one, as the OpenTelemetry specification orders them), else
//! OTLP/HTTP's defaults. The library never reads the environment; this does.

use std::time::Duration;

use crucible_otel::{Compression, Endpoint, Protocol, Resource};

use super::otlp::OtlpArgs;
use crate::error::CliError;

/// OTLP/HTTP's default: a collector on this machine.
const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
const TRACES_PATH: &str = "/v1/traces";
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Attribute values are cut at this many characters unless
/// `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` says otherwise: far above any
/// prompt or summary worth reading in an engine, far below what makes a
/// request too large.
pub const DEFAULT_VALUE_LIMIT: usize = 64 * 1024;

/// Everything a send needs to know besides the sessions.
#[derive(Debug, Clone)]
pub struct Settings {
    pub endpoint: Endpoint,
    pub resource: Resource,
    /// Attribute values longer than this many characters are cut.
    pub value_limit: usize,
}

/// The settings from `args` and the variables `env` reads; every one
/// checked here, before anything is read or sent.
pub fn settings(
    args: &OtlpArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, CliError> {
    // An empty variable is an unset one (a shell's `VAR=` to turn it off).
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    // The variable that is set, traces-specific first, with its name.
    let var = |name: &str| {
        [
            format!("OTEL_EXPORTER_OTLP_TRACES_{name}"),
            format!("OTEL_EXPORTER_OTLP_{name}"),
        ]
        .into_iter()
        .find_map(|n| set(&n).map(|v| (n, v.trim().to_owned())))
    };
    let url = match (&args.endpoint, set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
        (Some(flag), _) => checked_url(&traces_url(flag), "--endpoint")?,
        // The traces-specific variable is the whole URL, used as given.
        (None, Some(url)) => checked_url(url.trim(), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")?,
        (None, None) => match set("OTEL_EXPORTER_OTLP_ENDPOINT") {
            Some(base) => checked_url(&traces_url(&base), "OTEL_EXPORTER_OTLP_ENDPOINT")?,
            None => traces_url(DEFAULT_ENDPOINT),
        },
    };
    let protocol = match (&args.protocol, var("PROTOCOL")) {
        (Some(p), _) => protocol(p, "--protocol")?,
        (None, Some((name, p))) => protocol(&p, &name)?,
        (None, None) => Protocol::Protobuf,
    };
    let compression = match var("COMPRESSION") {
        None => Compression::Gzip,
        Some((_, v)) if v == "gzip" => Compression::Gzip,
        Some((_, v)) if v == "none" => Compression::None,
        Some((name, other)) => {
            return Err(CliError::usage(format!(
                "{name} `{other}` is not one of gzip, none"
            )));
        }
    };
    let timeout_ms = match var("TIMEOUT") {
        None => DEFAULT_TIMEOUT_MS,
        Some((name, t)) => t.parse().map_err(|_| {
            CliError::usage(format!("{name} `{t}` is not a number of milliseconds"))
        })?,
    };
    let headers = headers(args, var("HEADERS"))?;
    let value_limit = value_limit(&set)?;
    let ca_pem = match var("CERTIFICATE") {
        Some((name, path)) => Some(ca_pem(&name, &path)?),
        None => None,
    };
    let endpoint = Endpoint {
        url,
        headers,
        protocol,
        compression,
        timeout: Duration::from_millis(timeout_ms.max(1)),
        ca_pem,
    };
    Ok(Settings {
        endpoint,
        resource: resource(env)?,
        value_limit,
    })
}

/// The variable's headers, then the flags', a flag replacing a header of
/// the same name (HTTP names are case-insensitive): flags override the
/// environment, as `--endpoint` and `--protocol` do.
fn headers(
    args: &OtlpArgs,
    from_env: Option<(String, String)>,
) -> Result<Vec<(String, String)>, CliError> {
    let mut headers = match from_env {
        Some((name, h)) => header_list(&h, &name)?,
        None => Vec::new(),
    };
    for h in &args.header {
        let (k, v) = header(h, "--header")?;
        headers.retain(|(old, _)| !old.eq_ignore_ascii_case(&k));
        headers.push((k, v));
    }
    Ok(headers)
}

/// The PEM file `OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE` names, read and
/// checked now: a missing or wrong file is a usage error, not a refused
/// connection at the first request.
fn ca_pem(name: &str, path: &str) -> Result<Vec<u8>, CliError> {
    let pem = std::fs::read(path)
        .map_err(|e| CliError::usage(format!("{name}: {path}: cannot read: {e}")))?;
    crucible_otel::certificates(&pem)
        .map_err(|e| CliError::usage(format!("{name}: {path}: not a PEM certificate file: {e}")))?;
    Ok(pem)
}

/// `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else
/// `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else [`DEFAULT_VALUE_LIMIT`].
fn value_limit(set: &dyn Fn(&str) -> Option<String>) -> Result<usize, CliError> {
    let names = [
        "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
        "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    ];
    let Some((name, v)) = names.iter().find_map(|n| set(n).map(|v| (n, v))) else {
        return Ok(DEFAULT_VALUE_LIMIT);
    };
    match v.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(CliError::usage(format!(
            "{name} `{v}` is not a positive number of characters"
        ))),
    }
}

/// `url` when it is an http or https URL; a usage error naming `from`
/// otherwise (a URL without a scheme would fail only when sent, looking
/// like an engine that is down).
fn checked_url(url: &str, from: &str) -> Result<String, CliError> {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(url.to_owned()),
        _ => Err(CliError::usage(format!(
            "{from}: `{url}` is not an http:// or https:// URL with a host"
        ))
        .with_hint(
            "for example http://localhost:4318 (a collector) or http://localhost:6006 (Phoenix)",
        )),
    }
}

/// A base URL with the traces path added to its path (before a query or
/// fragment), unless the path ends with it already.
fn traces_url(base: &str) -> String {
    let base = base.trim();
    let (url, tail) = match base.find(['?', '#']) {
        Some(i) => base.split_at(i),
        None => (base, ""),
    };
    let url = url.trim_end_matches('/');
    if url.ends_with(TRACES_PATH) {
        format!("{url}{tail}")
    } else {
        format!("{url}{TRACES_PATH}{tail}")
    }
}

fn protocol(p: &str, from: &str) -> Result<Protocol, CliError> {
    match p.trim() {
        "http/protobuf" => Ok(Protocol::Protobuf),
        "http/json" => Ok(Protocol::Json),
        "grpc" => Err(CliError::usage(format!(
            "{from}: the OTLP protocol `grpc` is not supported: cru sends OTLP over HTTP"
        ))
        .with_hint("use http/protobuf (port 4318 on most collectors)")),
        other => Err(CliError::usage(format!(
            "{from}: the OTLP protocol `{other}` is not one of http/protobuf, http/json"
        ))),
    }
}

/// `key=value,key2=value2`, values percent-decoded (the W3C Baggage form
/// the specification gives `OTEL_EXPORTER_OTLP_HEADERS`).
fn header_list(list: &str, from: &str) -> Result<Vec<(String, String)>, CliError> {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = pair(p, from, "a header")?;
            checked_header(k, percent_decode(&v), from)
        })
        .collect()
}

fn header(p: &str, from: &str) -> Result<(String, String), CliError> {
    let (k, v) = pair(p, from, "a header")?;
    checked_header(k, v, from)
}

/// `KEY=VALUE`, both trimmed; `what` names the thing expected.
fn pair(p: &str, from: &str, what: &str) -> Result<(String, String), CliError> {
    match p.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
        _ => Err(CliError::usage(format!(
            "{from}: `{p}` is not {what} (expected KEY=VALUE)"
        ))),
    }
}

/// A header HTTP can carry: a name of token characters (RFC 9110), a
/// value without line breaks or other control characters. Checked here,
/// since the HTTP library would refuse it only at the first request.
fn checked_header(k: String, v: String, from: &str) -> Result<(String, String), CliError> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if !k.chars().all(token) {
        return Err(CliError::usage(format!(
            "{from}: `{k}` is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)"
        )));
    }
    if v.chars().any(|c| c.is_control() && c != '\t') {
        return Err(CliError::usage(format!(
            "{from}: the value of header `{k}` holds a line break or another control character"
        )));
    }
    Ok((k, v))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `service.name` (`OTEL_SERVICE_NAME`, else `cru`) and
/// `OTEL_RESOURCE_ATTRIBUTES`' `key=value` pairs.
fn resource(env: &dyn Fn(&str) -> Option<String>) -> Result<Resource, CliError> {
    let mut attributes: Vec<(String, String)> = match env("OTEL_RESOURCE_ATTRIBUTES") {
        Some(list) => list
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                pair(p, "OTEL_RESOURCE_ATTRIBUTES", "a resource attribute")
                    .map(|(k, v)| (k, percent_decode(&v)))
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let service = env("OTEL_SERVICE_NAME").filter(|s| !s.trim().is_empty());
    attributes.retain(|(k, _)| k != "service.name" || service.is_none());
    if !attributes.iter().any(|(k, _)| k == "service.name") {
        attributes.insert(
            0,
            (
                "service.name".to_owned(),
                service.unwrap_or_else(|| "cru".to_owned()),
            ),
        );
    }
    Ok(Resource { attributes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn the_traces_variables_come_before_the_general_ones_and_flags_before_both() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Basic%20abc,x-tenant=t1",
            ),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=dev,service.name=x",
            ),
            ("OTEL_SERVICE_NAME", "team-agents"),
        ]);
        let Settings {
            endpoint: e,
            resource: r,
            ..
        } = settings(&OtlpArgs::default(), &env).unwrap();
        assert_eq!(e.url, "http://collector:4318/v1/traces");
        assert_eq!(e.protocol, Protocol::Protobuf);
        assert_eq!(e.compression, Compression::Gzip);
        assert_eq!(e.timeout, Duration::from_millis(2500));
        assert_eq!(
            e.headers,
            [
                ("Authorization".to_owned(), "Basic abc".to_owned()),
                ("x-tenant".to_owned(), "t1".to_owned())
            ]
        );
        assert_eq!(
            r.attributes,
            [
                ("service.name".to_owned(), "team-agents".to_owned()),
                ("deployment.environment".to_owned(), "dev".to_owned())
            ]
        );
        let args = OtlpArgs {
            endpoint: Some("https://cloud.langfuse.com/api/public/otel".to_owned()),
            protocol: Some("http/json".to_owned()),
            ..OtlpArgs::default()
        };
        let e = settings(&args, &env).unwrap().endpoint;
        assert_eq!(
            e.url,
            "https://cloud.langfuse.com/api/public/otel/v1/traces"
        );
        assert_eq!(e.protocol, Protocol::Json);
        let traces = env_of(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://h:1/custom")]);
        assert_eq!(
            settings(&OtlpArgs::default(), &traces)
                .unwrap()
                .endpoint
                .url,
            "http://h:1/custom"
        );
        let none = env_of(&[]);
        assert_eq!(
            settings(&OtlpArgs::default(), &none).unwrap().endpoint.url,
            "http://localhost:4318/v1/traces"
        );
    }

    #[test]
    fn grpc_and_bad_headers_are_usage_errors() {
        let env = env_of(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        let e = settings(&OtlpArgs::default(), &env).unwrap_err();
        assert!(e.to_string().contains("grpc"), "{e}");
        let args = OtlpArgs {
            header: vec!["novalue".to_owned()],
            ..OtlpArgs::default()
        };
        let e = settings(&args, &env_of(&[])).unwrap_err();
        assert!(e.to_string().contains("expected KEY=VALUE"), "{e}");
    }

    #[test]
    fn a_flag_header_replaces_the_variables_of_the_same_name() {
        let env = env_of(&[(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "Authorization=Bearer%20old,x-tenant=t1",
        )]);
        let args = OtlpArgs {
            header: vec!["authorization=Bearer new".to_owned()],
            ..OtlpArgs::default()
        };
        let e = settings(&args, &env).unwrap().endpoint;
        assert_eq!(
            e.headers,
            [
                ("x-tenant".to_owned(), "t1".to_owned()),
                ("authorization".to_owned(), "Bearer new".to_owned())
            ]
        );
    }

    #[test]
    fn bad_urls_and_headers_are_usage_errors_naming_their_source() {
        let err = |args: &OtlpArgs, pairs: &[(&str, &str)]| {
            let e = settings(args, &env_of(pairs)).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::Usage, "{e}");
            e.to_string()
        };
        // An empty variable is unset.
        let empty = env_of(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "")]);
        let url = settings(&OtlpArgs::default(), &empty).unwrap().endpoint.url;
        assert_eq!(url, "http://localhost:4318/v1/traces");
        let flag = |url: &str| OtlpArgs {
            endpoint: Some(url.to_owned()),
            ..OtlpArgs::default()
        };
        assert!(
            err(&flag("localhost:6006"), &[]).starts_with("--endpoint: `localhost:6006/v1/traces`")
        );
        let e = err(
            &OtlpArgs::default(),
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")],
        );
        assert!(e.starts_with("OTEL_EXPORTER_OTLP_ENDPOINT"), "{e}");
        let bad = |h: &str| OtlpArgs {
            header: vec![h.to_owned()],
            ..OtlpArgs::default()
        };
        assert!(err(&bad("X-Bad Header=v"), &[]).contains("not a header name"));
        assert!(err(&bad("X-Ok=a\nb"), &[]).contains("line break"));
        let e = err(
            &OtlpArgs::default(),
            &[("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "br")],
        );
        assert!(
            e.starts_with("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION `br`"),
            "{e}"
        );
        let e = err(
            &OtlpArgs::default(),
            &[("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "10s")],
        );
        assert!(
            e.starts_with("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT `10s`"),
            "{e}"
        );
        let e = err(
            &OtlpArgs::default(),
            &[("OTEL_RESOURCE_ATTRIBUTES", "a=b,bad")],
        );
        assert!(e.contains("is not a resource attribute"), "{e}");
        let e = err(
            &OtlpArgs::default(),
            &[("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "big")],
        );
        assert!(e.starts_with("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"), "{e}");
    }

    #[test]
    fn the_traces_path_goes_before_a_query() {
        assert_eq!(
            traces_url("http://h:1/api?key=1"),
            "http://h:1/api/v1/traces?key=1"
        );
        assert_eq!(traces_url("http://h:1/v1/traces/"), "http://h:1/v1/traces");
        assert_eq!(traces_url("http://h:1/"), "http://h:1/v1/traces");
    }
}
