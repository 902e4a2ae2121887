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

/// The endpoint and the resource, from `args` and the variables `env` reads.
pub fn settings(
    args: &OtlpArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Endpoint, Resource), CliError> {
    let var = |name: &str| {
        env(&format!("OTEL_EXPORTER_OTLP_TRACES_{name}"))
            .or_else(|| env(&format!("OTEL_EXPORTER_OTLP_{name}")))
            .filter(|v| !v.trim().is_empty())
    };
    let url = match (&args.endpoint, env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
        (Some(flag), _) => traces_url(flag),
        // The traces-specific variable is the whole URL, used as given.
        (None, Some(url)) if !url.trim().is_empty() => url.trim().to_owned(),
        _ => traces_url(
            &env("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned()),
        ),
    };
    let protocol = match args.protocol.clone().or_else(|| var("PROTOCOL")) {
        None => Protocol::Protobuf,
        Some(p) => protocol(&p)?,
    };
    let compression = match var("COMPRESSION").as_deref().map(str::trim) {
        None | Some("gzip") => Compression::Gzip,
        Some("none") => Compression::None,
        Some(other) => {
            return Err(CliError::usage(format!(
                "OTEL_EXPORTER_OTLP_COMPRESSION `{other}` is not one of gzip, none"
            )));
        }
    };
    let timeout_ms = match var("TIMEOUT") {
        None => DEFAULT_TIMEOUT_MS,
        Some(t) => t.trim().parse().map_err(|_| {
            CliError::usage(format!(
                "OTEL_EXPORTER_OTLP_TIMEOUT `{t}` is not a number of milliseconds"
            ))
        })?,
    };
    let mut headers = match var("HEADERS") {
        Some(h) => header_list(&h)?,
        None => Vec::new(),
    };
    for h in &args.header {
        headers.push(header(h, "--header")?);
    }
    let endpoint = Endpoint {
        url,
        headers,
        protocol,
        compression,
        timeout: Duration::from_millis(timeout_ms.max(1)),
    };
    Ok((endpoint, resource(env)?))
}

/// A base URL with the traces path, unless it has it already.
fn traces_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with(TRACES_PATH) {
        base.to_owned()
    } else {
        format!("{base}{TRACES_PATH}")
    }
}

fn protocol(p: &str) -> Result<Protocol, CliError> {
    match p.trim() {
        "http/protobuf" => Ok(Protocol::Protobuf),
        "http/json" => Ok(Protocol::Json),
        "grpc" => Err(CliError::usage(
            "the OTLP protocol `grpc` is not supported: cru sends OTLP over HTTP",
        )
        .with_hint("use http/protobuf (port 4318 on most collectors)")),
        other => Err(CliError::usage(format!(
            "the OTLP protocol `{other}` is not one of http/protobuf, http/json"
        ))),
    }
}

/// `key=value,key2=value2`, values percent-decoded (the W3C Baggage form
/// the specification gives `OTEL_EXPORTER_OTLP_HEADERS`).
fn header_list(list: &str) -> Result<Vec<(String, String)>, CliError> {
    list.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = header(p, "OTEL_EXPORTER_OTLP_HEADERS")?;
            Ok((k, percent_decode(&v)))
        })
        .collect()
}

fn header(pair: &str, from: &str) -> Result<(String, String), CliError> {
    match pair.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
        _ => Err(CliError::usage(format!(
            "{from}: `{pair}` is not a header (expected KEY=VALUE)"
        ))),
    }
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
            .map(|p| header(p, "OTEL_RESOURCE_ATTRIBUTES").map(|(k, v)| (k, percent_decode(&v))))
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
        let (e, r) = settings(&OtlpArgs::default(), &env).unwrap();
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
        let (e, _) = settings(&args, &env).unwrap();
        assert_eq!(
            e.url,
            "https://cloud.langfuse.com/api/public/otel/v1/traces"
        );
        assert_eq!(e.protocol, Protocol::Json);
        let traces = env_of(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://h:1/custom")]);
        assert_eq!(
            settings(&OtlpArgs::default(), &traces).unwrap().0.url,
            "http://h:1/custom"
        );
        let none = env_of(&[]);
        assert_eq!(
            settings(&OtlpArgs::default(), &none).unwrap().0.url,
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
}
