//! Per-caller visibility without a session: at 2026-07-28 over HTTP (and on a stateless
//! HTTP server) the caller is its access token's subject. A handler's
//! `ctx.enable_components` changes what that subject sees on its next requests, whatever
//! connection they come on, and on every replica sharing a store (the memory hub and a real
//! Redis); its listen streams hear `list_changed`, another subject's do not.

use crate::common::*;
use crate::http_cluster::{backends, Backend};
use crate::http_resource_server::{now, publish, signer, Signer, ISSUER, RESOURCE};
use crate::http_util::{options, TestServer};
use hypermcp::auth::server::ResourceServerOptions;
use hypermcp::http::{HttpClientOptions, HttpOptions};
use hypermcp::{
    CallToolResult, Client, ClientMode, ClientOptions, Component, Filter, Server, SubscriptionFilter, Tool,
};
use serde_json::json;

fn server() -> Server {
    let server = Server::new("views", "1.0.0")
        .tool(Tool::new("status"), |_a, _c| async move { CallToolResult::text("ok") })
        .tool(Tool::new("report"), |_a, _c| async move { CallToolResult::text("premium report") })
        .tool(Tool::new("unlock"), |_a, ctx| async move {
            ctx.enable_components(Filter::tags(["premium"])).await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("unlocked"))
        })
        .tool(Tool::new("relock"), |_a, ctx| async move {
            ctx.reset_visibility().await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("relocked"))
        })
        .tags(Component::Tool, "report", ["premium"]);
    server.disable(Filter::tags(["premium"])).unwrap();
    server
}

async fn auth(s: &Signer) -> ResourceServerOptions {
    ResourceServerOptions {
        resource: RESOURCE.into(),
        authorization_servers: vec![ISSUER.into()],
        jwks_uri: Some(publish(s.jwks.clone()).await),
        ..Default::default()
    }
}

fn token(s: &Signer, subject: &str) -> String {
    s.token(json!({"iss": ISSUER, "aud": RESOURCE, "sub": subject, "client_id": "app", "exp": now() + 600}))
}

async fn client(ts: &TestServer, s: &Signer, subject: &str, mode: ClientMode) -> Client {
    let http = HttpClientOptions::default().bearer_token(token(s, subject));
    let url = format!("http://{}/mcp", ts.host());
    Client::http(&url, http, ClientOptions::new("t", "1").mode(mode)).await.unwrap()
}

async fn sees_report(c: &Client) -> bool {
    c.list_tools().await.unwrap().iter().any(|t| t.name == "report")
}

/// A listen stream of tool-list changes, acknowledged.
async fn listen(c: &Client) -> hypermcp::Subscription {
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let mut sub = c.listen(filter).await.unwrap();
    let (first, _) = tokio::time::timeout(std::time::Duration::from_secs(10), sub.next()).await.unwrap().unwrap();
    assert_eq!(first, "notifications/subscriptions/acknowledged");
    sub
}

async fn next_change(sub: &mut hypermcp::Subscription) -> String {
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), sub.next()).await;
    got.expect("a notification in time").expect("the stream open").0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subjects_own_rules_follow_its_token_at_2026_07_28() {
    bounded(async {
        let s = signer();
        let ts = TestServer::start(&server(), HttpOptions { auth: Some(auth(&s).await), ..options() }).await;
        let alice = client(&ts, &s, "alice", ClientMode::Modern).await;
        let bob = client(&ts, &s, "bob", ClientMode::Modern).await;
        let mut alice_hears = listen(&alice).await;
        let mut bob_hears = listen(&bob).await;
        assert!(!sees_report(&alice).await);

        assert_eq!(alice.call_tool("unlock", json!({})).await.unwrap().content[0].as_text(), Some("unlocked"));
        assert_eq!(next_change(&mut alice_hears).await, "notifications/tools/list_changed");
        assert!(sees_report(&alice).await);
        // Another connection with alice's token is alice too.
        let again = client(&ts, &s, "alice", ClientMode::Modern).await;
        assert!(sees_report(&again).await);
        assert_eq!(again.call_tool("report", json!({})).await.unwrap().content[0].as_text(), Some("premium report"));
        // Bob sees the server's view, was told nothing, and cannot call what is hidden.
        assert!(!sees_report(&bob).await);
        let e = bob.call_tool("report", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("Unknown tool"), "{e}");
        assert!(tokio::time::timeout(std::time::Duration::from_millis(100), bob_hears.next()).await.is_err());

        again.call_tool("relock", json!({})).await.unwrap();
        assert_eq!(next_change(&mut alice_hears).await, "notifications/tools/list_changed");
        assert!(!sees_report(&alice).await);
        for c in [alice, bob, again] {
            c.close().await.unwrap();
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_servers_caller_is_its_subject() {
    bounded(async {
        let s = signer();
        let http = HttpOptions { auth: Some(auth(&s).await), stateless: true, ..options() };
        let ts = TestServer::start(&server(), http).await;
        let alice = client(&ts, &s, "alice", ClientMode::Legacy).await;
        let bob = client(&ts, &s, "bob", ClientMode::Legacy).await;
        alice.call_tool("unlock", json!({})).await.unwrap();
        assert!(sees_report(&alice).await);
        assert!(!sees_report(&bob).await);
        // A change that is none is refused, not stored.
        let refused = server().tool(Tool::new("nothing"), |_a, ctx| async move {
            ctx.enable_components(Filter::default()).await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("changed"))
        });
        let ts2 =
            TestServer::start(&refused, HttpOptions { auth: Some(auth(&s).await), stateless: true, ..options() }).await;
        let c = client(&ts2, &s, "carol", ClientMode::Modern).await;
        let r = c.call_tool("nothing", json!({})).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{r:?}");
        for c in [alice, bob, c] {
            c.close().await.unwrap();
        }
    })
    .await;
}

async fn replica(s: &Signer, backend: &Backend) -> TestServer {
    let http = HttpOptions { auth: Some(auth(s).await), ..options() }.with_cluster(backend.store().await);
    TestServer::start(&server(), http).await
}

/// Replicas sharing a store: alice's change on A is what B serves her (B had her "no rules"
/// cached: the bus tells it), B's listen stream of hers hears it, and bob's view is the
/// server's on both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_a_subjects_rules() {
    bounded(async {
        let s = signer();
        for backend in backends() {
            let (a, b) = (replica(&s, &backend).await, replica(&s, &backend).await);
            let on_a = client(&a, &s, "alice", ClientMode::Modern).await;
            let on_b = client(&b, &s, "alice", ClientMode::Modern).await;
            let bob_b = client(&b, &s, "bob", ClientMode::Modern).await;
            assert!(!sees_report(&on_b).await);
            let mut hears_b = listen(&on_b).await;
            let mut hears_a = listen(&on_a).await;

            on_a.call_tool("unlock", json!({})).await.unwrap();
            assert_eq!(next_change(&mut hears_b).await, "notifications/tools/list_changed");
            assert!(sees_report(&on_b).await, "B serves alice's rules");
            assert!(sees_report(&on_a).await);
            assert!(!sees_report(&bob_b).await, "bob's view is the server's");
            assert_eq!(next_change(&mut hears_a).await, "notifications/tools/list_changed");
            on_b.call_tool("relock", json!({})).await.unwrap();
            assert_eq!(next_change(&mut hears_a).await, "notifications/tools/list_changed");
            assert!(!sees_report(&on_a).await, "A applies B's change");
            for c in [on_a, on_b, bob_b] {
                c.close().await.unwrap();
            }
        }
    })
    .await;
}

/// Changes of one subject's rules made at once through two replicas all survive (the store
/// applies each to what it holds), on the memory hub and in Redis; rules that end empty are
/// forgotten.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_of_a_subjects_rules_all_survive() {
    use hypermcp::catalogue::visibility::VisibilityChange;
    let ttl = std::time::Duration::from_secs(60);
    for backend in backends() {
        let (a, b) = (backend.store().await, backend.store().await);
        let mut all = Vec::new();
        for i in 0..32 {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            all.push(tokio::spawn(async move {
                let change = VisibilityChange::Enable(Filter::names([format!("tool{i}")]));
                store.change_view("alice", &change, ttl).await
            }));
        }
        for h in all {
            h.await.unwrap().expect("changed");
        }
        assert_eq!(a.load_view("alice").await.unwrap().rules().len(), 32);
        assert!(b.load_view("bob").await.unwrap().is_empty());
        let (old, new) = b.change_view("alice", &VisibilityChange::Reset, ttl).await.unwrap();
        assert_eq!((old.rules().len(), new.is_empty()), (32, true));
        assert!(a.load_view("alice").await.unwrap().is_empty());
        assert!(a.change_view("alice", &VisibilityChange::Disable(Filter::default()), ttl).await.is_err());
    }
}
