//! `bench gate`: what the reverse proxy's gate (API.md "The gate") costs a ticketer's site.
//! The same nginx, one worker, in front of the same example site (`verify/examples/origin.rs`)
//! twice: once straight to the site, once with `ops/nginx/gate.conf`, which asks Anteroom's
//! `GET /api/gate/check` (`auth_request`) before each request to `/shop/`. Measured in
//! alternating rounds: a page straight through, a page through the gate with an admission
//! cookie (200), without one (302 to the room), and the check alone, asked of Anteroom
//! directly with the headers nginx sends.
//!
//! Before the clock starts, each path is asked once and must answer what it should (the
//! site's page naming the event; the room with the way back), so the figures are of the right
//! thing. nginx and the site run as child processes, stopped (and nginx's folder removed) when
//! the bench ends or panics.

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anteroom::tokens::cookies::admission_cookie_name;
use app::wire::RoomUpdate;
use http_body_util::Empty;
use hyper::header::HeaderValue;
use loadtest::{BareRequest, Budget, Sample, budget_line, create_event, measure_http};
use testkit::procs::free_port;

use super::{admitted_buyers, bench_event, start};

/// The gate's nginx configuration, with `{{DIR}}`, `{{LISTEN}}`, `{{HOST}}`, `{{ANTEROOM}}`,
/// `{{ORIGIN}}`.
const GATE_CONF: &str = include_str!("../../ops/nginx/gate.conf");

/// The baseline: the gate's nginx settings, its origin upstream and its site location, without
/// the question to Anteroom.
const DIRECT_CONF: &str = "worker_processes 1;
pid {{DIR}}/nginx.pid;
error_log {{DIR}}/error.log warn;
events { worker_connections 4096; }

http {
    access_log off;
    client_body_temp_path {{DIR}}/client_body;
    proxy_temp_path {{DIR}}/proxy;
    fastcgi_temp_path {{DIR}}/fastcgi;
    uwsgi_temp_path {{DIR}}/uwsgi;
    scgi_temp_path {{DIR}}/scgi;

    upstream origin {
        server {{ORIGIN}};
        keepalive 64;
    }

    server {
        listen {{LISTEN}};

        location / {
            proxy_set_header Host $http_host;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_pass http://origin;
        }
    }
}
";

/// The temporary folders both configurations name under `{{DIR}}`: nginx fails to start when
/// one is missing.
const TEMP_DIRS: [&str; 5] = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"];

/// The page every measurement asks for, on the protected prefix.
const PAGE: &str = "/shop/x";

/// A child process of the bench (nginx, the site), stopped when dropped, even by a panic:
/// SIGTERM first (nginx's master then stops its workers, which a SIGKILL of the master would
/// leave running on the port), SIGKILL if it has not exited within 5 s; then its folder, if it
/// has one, is removed.
struct Process {
    name: &'static str,
    child: std::process::Child,
    dir: Option<PathBuf>,
}

impl Process {
    /// Panics with `why` and the process's error log (if it has a folder) when it has exited.
    fn assert_running(&mut self, why: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            let log = self
                .dir
                .as_ref()
                .and_then(|d| std::fs::read_to_string(d.join("error.log")).ok())
                .unwrap_or_default();
            panic!("{} exited ({status}) {why}\n{log}", self.name);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let asked = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        let deadline = Instant::now() + Duration::from_secs(5);
        while asked && Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.child.kill().ok();
        self.child.wait().ok();
        if let Some(dir) = &self.dir {
            std::fs::remove_dir_all(dir).ok();
        }
    }
}

/// The nginx binary: on the `PATH`, or where Debian puts it (`/usr/sbin` is on root's `PATH`
/// only).
fn nginx_binary() -> Option<PathBuf> {
    ["nginx", "/usr/sbin/nginx"]
        .into_iter()
        .map(PathBuf::from)
        .find(|bin| {
            Command::new(bin)
                .arg("-v")
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
}

/// Starts the example site on a port of its own; its address, as it printed it.
async fn start_origin(binary: &Path) -> (Process, String) {
    let mut child = Command::new(binary)
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "the example site {} does not start ({e}): build it with `cargo build --release \
                 -p anteroom-verify --example origin`",
                binary.display()
            )
        });
    let stdout = child.stdout.take().expect("piped");
    let process = Process {
        name: "the example site",
        child,
        dir: None,
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    // Reads stdout to its end, so that the site never writes to a closed pipe, and hands over
    // the address it prints once bound.
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("listening on http://")
                && let Some(tx) = tx.take()
            {
                tx.send(addr.trim().to_owned()).ok();
            }
        }
    });
    let addr = tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .expect("the example site listens within 10 s")
        .expect("the example site printed its address");
    (process, addr)
}

/// Starts nginx on `conf` (a template of `{{DIR}}`, `{{LISTEN}}`, `{{ANTEROOM}}`, `{{ORIGIN}}`)
/// listening on 127.0.0.1:`port`, in a folder of its own, and waits until it accepts.
async fn start_nginx(
    binary: &Path,
    name: &'static str,
    conf: &str,
    port: u16,
    anteroom: &str,
    origin: &str,
) -> Process {
    let dir = std::env::temp_dir().join(format!(
        "anteroom-bench-{name}-{port}-{}",
        std::process::id()
    ));
    let listen = format!("127.0.0.1:{port}");
    // Each client keeps one connection for every request of the run, and nginx closes a
    // client's connection after 1,000 requests by default: here it never does, as a browser
    // never asks that many (nginx's own connections to the site and to Anteroom keep their
    // default, the same in both configurations).
    assert!(conf.contains("\nhttp {\n"), "{name}: no http block");
    let filled = conf
        .replacen(
            "\nhttp {\n",
            "\nhttp {\n    keepalive_requests 1000000000;\n",
            1,
        )
        .replace("{{DIR}}", &dir.to_string_lossy())
        .replace("{{LISTEN}}", &listen)
        .replace("{{HOST}}", "127.0.0.1")
        .replace("{{ANTEROOM}}", anteroom)
        .replace("{{ORIGIN}}", origin);
    // Outside comments (whose header names the placeholders).
    let left = filled
        .lines()
        .find(|line| line.split('#').next().is_some_and(|c| c.contains("{{")));
    assert!(
        left.is_none(),
        "the {name} nginx configuration has a placeholder the bench does not fill: {left:?}"
    );
    for sub in TEMP_DIRS {
        std::fs::create_dir_all(dir.join(sub)).expect("nginx's folder is made");
    }
    let path = dir.join("nginx.conf");
    std::fs::write(&path, filled).expect("nginx's configuration is written");
    let child = Command::new(binary)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&path)
        // The error log from the start, before the configuration names it: the compiled-in one
        // may not be writable.
        .arg("-e")
        .arg(dir.join("error.log"))
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .spawn();
    let child = child.unwrap_or_else(|e| {
        std::fs::remove_dir_all(&dir).ok();
        panic!("{name} does not start: {e}")
    });
    let mut nginx = Process {
        name,
        child,
        dir: Some(dir),
    };
    for _ in 0..250 {
        nginx.assert_running("at its start");
        if tokio::net::TcpStream::connect(&listen).await.is_ok() {
            return nginx;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{name} does not listen on {listen} after 5 s");
}

/// The four things measured, in the order of the even rounds (the odd ones go backwards).
#[derive(Clone, Copy)]
enum Measured {
    Direct,
    Admitted,
    Refused,
    Check,
}

impl Measured {
    const ALL: [Measured; 4] = [Self::Direct, Self::Admitted, Self::Refused, Self::Check];

    fn label(self) -> &'static str {
        match self {
            Self::Direct => "direct (nginx -> site)",
            Self::Admitted => "gated, admitted (200)",
            Self::Refused => "gated, refused (302)",
            Self::Check => "gate check alone",
        }
    }

    fn expect(self) -> u16 {
        match self {
            Self::Refused => 302,
            _ => 200,
        }
    }
}

/// The measured requests: their addresses, hosts and headers, ready to clone.
struct Targets {
    direct: (String, HeaderValue),
    /// The gate's nginx: its `Host` is also the `X-Forwarded-Host` nginx sends Anteroom, the
    /// host the room protects.
    gate: (String, HeaderValue),
    anteroom: (String, HeaderValue),
    /// One admission cookie per admitted buyer, taken in turn.
    cookies: Vec<HeaderValue>,
}

impl Targets {
    fn addr(&self, path: Measured) -> &str {
        match path {
            Measured::Direct => &self.direct.0,
            Measured::Admitted | Measured::Refused => &self.gate.0,
            Measured::Check => &self.anteroom.0,
        }
    }

    fn request(&self, path: Measured, i: usize) -> BareRequest {
        let cookie = &self.cookies[i % self.cookies.len()];
        let builder = hyper::Request::builder();
        let builder = match path {
            Measured::Direct => builder.uri(PAGE).header("host", &self.direct.1),
            Measured::Admitted => builder
                .uri(PAGE)
                .header("host", &self.gate.1)
                .header("cookie", cookie),
            Measured::Refused => builder.uri(PAGE).header("host", &self.gate.1),
            Measured::Check => builder
                .uri("/api/gate/check")
                .header("host", &self.anteroom.1)
                .header("x-original-uri", PAGE)
                .header("x-forwarded-host", &self.gate.1)
                .header("cookie", cookie),
        };
        builder.body(Empty::new()).expect("a valid request")
    }
}

/// `host:port` and the same as a `Host` header.
fn target(addr: String) -> (String, HeaderValue) {
    let host = HeaderValue::from_str(&addr).expect("an address is a valid header");
    (addr, host)
}

/// Asks each path once and panics unless it answers what the figures are supposed to be of.
async fn sanity_checks(targets: &Targets, event: &str) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let cookie = targets.cookies[0].to_str().expect("ASCII");
    let gate = &targets.gate.0;
    let site_page = |body: &str| {
        body.contains("<h1>The ticketer's shop</h1>")
            && body.contains(&format!("<p id=\"event\">{event}</p>"))
    };

    // The room reaches this instance's memory of rooms within half a second or so: until then
    // nothing is protected and the check passes everyone, naming no event.
    let mut asked = 0;
    loop {
        let r = client
            .get(format!("http://{}/api/gate/check", targets.anteroom.0))
            .header("x-original-uri", PAGE)
            .header("x-forwarded-host", &targets.gate.1)
            .header("cookie", cookie)
            .send()
            .await
            .expect("Anteroom answers");
        let named = r.headers().get("anteroom-event").cloned();
        if r.status() == 200 && named.as_ref().is_some_and(|e| e == event) {
            break;
        }
        asked += 1;
        assert!(
            asked < 100,
            "the gate check of an admitted buyer on {PAGE} answered {} naming {named:?}, not \
             200 naming event {event}",
            r.status()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let r = client
        .get(format!("http://{gate}{PAGE}"))
        .header("cookie", cookie)
        .send()
        .await
        .expect("the gate's nginx answers");
    let status = r.status();
    let body = r.text().await.unwrap_or_default();
    assert!(
        status == 200 && site_page(&body),
        "through the gate with an admission cookie, {PAGE} must be the site's page naming event \
         {event}; it answered {status}:\n{body}"
    );

    let r = client
        .get(format!("http://{gate}{PAGE}"))
        .send()
        .await
        .expect("the gate's nginx answers");
    let room = format!("/events/{event}?return=%2Fshop%2Fx");
    let location = r.headers().get("location").cloned();
    // nginx makes a redirect to a path absolute, on its own host (`absolute_redirect`).
    let to_room = |l: &HeaderValue| {
        l.to_str()
            .is_ok_and(|l| l.strip_prefix(&format!("http://{gate}")).unwrap_or(l) == room)
    };
    assert!(
        r.status() == 302 && location.as_ref().is_some_and(to_room),
        "through the gate without an admission, {PAGE} must be a 302 to {room}; it answered {} \
         with Location {location:?}",
        r.status()
    );

    let r = client
        .get(format!("http://{}{PAGE}", targets.direct.0))
        .send()
        .await
        .expect("the direct nginx answers");
    let status = r.status();
    let body = r.text().await.unwrap_or_default();
    assert!(
        status == 200 && body.contains("<h1>The ticketer's shop</h1>"),
        "straight through nginx, {PAGE} must be the site's page; it answered {status}:\n{body}"
    );
}

/// `bench gate`: `rounds` alternating rounds of `requests` on each path, from `concurrency`
/// clients, each on one kept-alive connection.
pub async fn bench_gate(concurrency: usize, requests: usize, rounds: usize, origin_bin: &Path) {
    let Some(nginx_bin) = nginx_binary() else {
        println!("nginx not found: no gate figures");
        return;
    };
    let run = start().await;
    let anteroom_addr = run.servers[0].base.trim_start_matches("http://").to_owned();
    let (_site, origin) = start_origin(origin_bin).await;
    let (direct_port, gate_port) = (free_port(), free_port());
    let gate_host = format!("127.0.0.1:{gate_port}");

    let client = reqwest::Client::new();
    // As many buyers as clients, each request carrying one of their tokens in turn; seats to
    // spare, as the ticker admits nobody while no seat is free.
    let buyers = concurrency.max(1);
    let room = RoomUpdate {
        admit_rate_per_second: Some(100_000),
        target_url: Some(Some(format!("http://{gate_host}/shop/"))),
        protect: Some(vec!["/shop".into()]),
        ..RoomUpdate::default()
    };
    let event = create_event(
        &client,
        &run.servers[0].base,
        run.admin_key(),
        &bench_event(buyers.div_ceil(200) as u32 + 1, 200, room),
    )
    .await
    .expect("the event is created")
    .id;
    let buyers = admitted_buyers(&run, &client, &event, false, buyers).await;
    assert!(
        run.state().config.dev,
        "the bench's deployment runs in --dev, where the admission cookie has no __Host- prefix"
    );
    let cookie_name = admission_cookie_name(&event);
    let cookies = buyers
        .iter()
        .map(|(_, token, _)| {
            HeaderValue::from_str(&format!("{cookie_name}={token}")).expect("a valid cookie")
        })
        .collect();

    let mut direct_nginx = start_nginx(
        &nginx_bin,
        "direct-nginx",
        DIRECT_CONF,
        direct_port,
        &anteroom_addr,
        &origin,
    )
    .await;
    let mut gate_nginx = start_nginx(
        &nginx_bin,
        "gate-nginx",
        GATE_CONF,
        gate_port,
        &anteroom_addr,
        &origin,
    )
    .await;
    let targets = Targets {
        direct: target(format!("127.0.0.1:{direct_port}")),
        gate: target(gate_host),
        anteroom: target(anteroom_addr),
        cookies,
    };
    sanity_checks(&targets, &event).await;

    // Unmeasured first: every upstream keep-alive connection is opened, every code path warm.
    for path in Measured::ALL {
        let warm = measure_http(
            targets.addr(path),
            requests.min(2_000),
            concurrency,
            path.expect(),
            |i| targets.request(path, i),
        );
        assert_eq!(warm.errors, 0, "{}: errors while warming up", path.label());
    }
    let mut samples: [Vec<Sample>; 4] = Default::default();
    for round in 0..rounds {
        let mut order = Measured::ALL;
        if round % 2 == 1 {
            order.reverse();
        }
        for path in order {
            let sample = measure_http(
                targets.addr(path),
                requests,
                concurrency,
                path.expect(),
                |i| targets.request(path, i),
            );
            samples[path as usize].push(sample);
        }
    }
    // The check one at a time: the server's own time per check, without a queue before it.
    let alone = measure_http(
        targets.addr(Measured::Check),
        requests.min(5_000),
        1,
        200,
        |i| targets.request(Measured::Check, i),
    );
    direct_nginx.assert_running("during the measurements");
    gate_nginx.assert_running("during the measurements");

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "\nThe gate (nginx auth_request to Anteroom's /api/gate/check), GET {PAGE}, \
         {concurrency} concurrent clients, {rounds} alternating rounds of {requests} requests \
         on each path"
    );
    println!(
        "(nginx with 1 worker, Anteroom, the site and the clients share this machine's {cores} \
         cores)"
    );
    let pooled = samples.map(|s| Sample::pooled(&s));
    for path in Measured::ALL {
        println!("{}", pooled[path as usize].line(path.label()));
    }
    println!("{}", alone.line("gate check, one at a time"));
    let [direct, admitted, refused, check] = &pooled;
    println!(
        "gated / direct: throughput {:.2}x   added latency p50 +{:.2} ms   p99 +{:.2} ms",
        admitted.per_second() / direct.per_second(),
        admitted.quantile_ms(0.5) - direct.quantile_ms(0.5),
        admitted.quantile_ms(0.99) - direct.quantile_ms(0.99)
    );
    println!(
        "refused / direct: throughput {:.2}x   (a refusal is the check and nginx's redirect, no \
         site)",
        refused.per_second() / direct.per_second()
    );
    println!(
        "gate check alone / gated: throughput {:.2}x   (one at a time, a check takes p50 {:.3} \
         ms: Anteroom's own time and the loopback's)",
        check.per_second() / admitted.per_second(),
        alone.quantile_ms(0.5)
    );
    // Issue 66's budget is Anteroom's own time a check (15 µs); one check at a time, its
    // median also carries two loopback crossings, so this figure is an upper bound of it.
    let what = "gate check alone, p50 (with loopback)";
    let micros = alone.quantile_ms(0.5) * 1000.0;
    println!("{}", budget_line(what, micros, "µs", Budget::AtMost(15.0)));
    drop((direct_nginx, gate_nginx));
    run.stop().await;
}
