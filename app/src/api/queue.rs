//! The line: join (with the proof of work a room may ask), poll, and moving a place to another
//! device. Every answer of the line goes through [`remembered`], so that a room that binds
//! tokens keeps the latest admission token for the gated calls.

use super::{
    Api,
    binding::{device_headers, remembered},
    call,
};
use crate::{
    pow,
    presence::Standing,
    wire::{ClaimRequest, ErrorBody, MoveCode, Progress, ProofChallenge, QueueStatus},
};

impl Api {
    /// Joins the line (or finds one's place). Where the room asks a proof of work for a new
    /// place, the browser makes it and joins again with it.
    pub async fn join(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        self.join_proving(event_id, None).await
    }

    /// [`Api::join`], starting from the challenge `asked` when the page already has one. In a
    /// room that binds tokens, a browser that cannot make a device key still joins once
    /// without a proof (the server counts that refusal, for the operator), and gets
    /// `no_device_key`.
    pub async fn join_proving(
        &self,
        event_id: &str,
        asked: Option<ProofChallenge>,
    ) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue");
        let device = match device_headers(event_id, "POST", &path, false).await {
            Ok(device) => device,
            Err(no_key) => {
                let _ = call::<_, QueueStatus>("POST", &path, Some(&()), &[]).await;
                return Err(no_key);
            }
        };
        let asked = match asked {
            Some(asked) => asked,
            None => match call("POST", &path, Some(&()), &device).await {
                Err(ErrorBody {
                    proof: Some(asked), ..
                }) => *asked,
                answer => return remembered(event_id, answer),
            },
        };
        let nonce = solve(asked.challenge.clone(), asked.bits).await;
        let work = format!("{}:{nonce}", asked.challenge);
        // A device proof is good for one request: the second join makes its own.
        let mut headers = device_headers(event_id, "POST", &path, false).await?;
        headers.push((JOIN_PROOF, work));
        remembered(event_id, call("POST", &path, Some(&()), &headers).await)
    }

    pub async fn poll(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue");
        let device = device_headers(event_id, "GET", &path, false).await?;
        remembered(event_id, call("GET", &path, None::<&()>, &device).await)
    }

    /// Where the place with `arrival` stands by the line's public progress (API.md "Progress",
    /// served by any cache): what a page far from the front shows between asks for its place.
    /// `None` when the progress places it nowhere or cannot be read: the page asks.
    pub async fn standing(&self, event_id: &str, arrival: u64) -> Option<Standing> {
        standing(event_id.to_owned(), arrival).await
    }

    /// Asks for a one-time code that moves this buyer's place to another device (API.md
    /// "Moving a place to another device").
    /// In a room that binds tokens the ask carries a proof of this device's key: only the
    /// place's device moves it.
    pub async fn move_place(&self, event_id: &str) -> Result<MoveCode, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue/move");
        let device = device_headers(event_id, "POST", &path, false).await?;
        call("POST", &path, Some(&serde_json::json!({})), &device).await
    }

    /// Where the place another device moves with `code` stands, without taking it.
    pub async fn claim_preview(
        &self,
        event_id: &str,
        code: &str,
    ) -> Result<crate::wire::ClaimPreview, ErrorBody> {
        let code: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        call(
            "GET",
            &format!("/api/events/{event_id}/queue/claim?code={code}"),
            None::<&()>,
            &[],
        )
        .await
    }

    /// Takes the place another device moved with `code`: answered like a join.
    pub async fn claim(&self, event_id: &str, code: &str) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue/claim");
        let device = device_headers(event_id, "POST", &path, false).await?;
        let body = ClaimRequest {
            code: code.trim().to_owned(),
        };
        remembered(event_id, call("POST", &path, Some(&body), &device).await)
    }
}

const JOIN_PROOF: &str = "Join-Proof";

/// [`Api::standing`]'s work, split out of the buyer's main WASM like [`solve`]: the progress's
/// reader and the estimate's model come only to a page far from the front.
#[leptos::lazy]
async fn standing(event_id: String, arrival: u64) -> Option<Standing> {
    let path = format!("/api/events/{event_id}/progress");
    let progress: Progress = call("GET", &path, None::<&()>, &[]).await.ok()?;
    Standing::of(&progress, arrival)
}

/// The nonce that proves `bits` of work for `challenge`, found in steps of the shared search
/// (`pow`), the page painting between steps (it says "getting your place…" meanwhile). Split
/// out of the buyer's main WASM (`cargo leptos build --split`): only a page in a room that asks
/// for work fetches it, at its first join.
#[leptos::lazy]
async fn solve(challenge: String, bits: u32) -> u64 {
    const STEP: u64 = 1 << 16;
    let mut from = 0;
    loop {
        if let Some(nonce) = pow::search(&challenge, bits, from, STEP) {
            return nonce;
        }
        from += STEP;
        // Browser timers are not `Send`; the page runs on one thread, which SendWrapper checks.
        #[cfg(feature = "hydrate")]
        send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(0)).await;
    }
}
