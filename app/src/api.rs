//! How pages reach the data: the JSON API of API.md from the browser, the [`Backend`] trait
//! while rendering on the server. Every page goes through [`Api`], so a page has one code path
//! and the server has no second API for it.

use crate::wire::{ErrorBody, Event};

#[cfg(feature = "ssr")]
use crate::backend::SharedBackend;

/// A handle for one page's data calls. Take it with [`Api::current`] while the component runs
/// (synchronously), then move it into async blocks.
#[derive(Clone)]
pub struct Api {
    #[cfg(feature = "ssr")]
    backend: Option<SharedBackend>,
}

impl Api {
    pub fn current() -> Self {
        Self {
            #[cfg(feature = "ssr")]
            backend: leptos::prelude::use_context::<SharedBackend>(),
        }
    }

    pub async fn events(&self) -> Result<Vec<Event>, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.events().await;
        #[cfg(not(feature = "ssr"))]
        return get_json("/api/events").await;
    }

    pub async fn event(&self, id: String) -> Result<Event, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.event(id).await;
        #[cfg(not(feature = "ssr"))]
        return get_json(&format!("/api/events/{id}")).await;
    }

    #[cfg(feature = "ssr")]
    fn backend(&self) -> Result<&SharedBackend, ErrorBody> {
        self.backend
            .as_ref()
            .ok_or_else(|| ErrorBody::new("internal", "no backend in the rendering context"))
    }
}

#[cfg(not(feature = "ssr"))]
fn network_error(e: impl std::fmt::Display) -> ErrorBody {
    ErrorBody::new("network", format!("Could not reach Anteroom: {e}"))
}

/// A GET of the JSON API; an error answer becomes its [`ErrorBody`].
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn get_json<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, ErrorBody> {
    let request = gloo_net::http::Request::get(path);
    // Browser futures are not `Send`; the page runs on one thread, which SendWrapper checks.
    send_wrapper::SendWrapper::new(async move {
        let resp = request.send().await.map_err(network_error)?;
        if resp.ok() {
            resp.json::<T>().await.map_err(network_error)
        } else {
            Err(resp.json::<ErrorBody>().await.map_err(network_error)?)
        }
    })
    .await
}

/// Neither rendering on the server nor running in a browser (a plain `cargo check`).
#[cfg(not(any(feature = "hydrate", feature = "ssr")))]
async fn get_json<T>(_path: &str) -> Result<T, ErrorBody> {
    Err(network_error("built without a transport"))
}
