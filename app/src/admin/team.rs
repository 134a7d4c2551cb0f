//! The team, on `/admin` for admins: the operators (add one, and hand them a one-time link to
//! enrol a passkey), the sessions signed in now (end one), the API keys (add one: its secret is
//! shown this once; revoke one), and the audit, filtered by person or key and by event. Every
//! change goes through the admin API, which checks the role and the step-up and audits it; a
//! refusal is shown as the API words it.

use leptos::prelude::*;

use crate::{
    api::Api,
    wire::{
        ApiKey, AuditEntry, ErrorBody, Events, NewApiKey, NewOperator, OperatorAccount,
        OperatorSession, Role, Scope,
    },
};

/// The team's section: reads everything once, and again after each change.
#[component]
pub(super) fn Team() -> impl IntoView {
    let operators = RwSignal::new(Vec::<OperatorAccount>::new());
    let sessions = RwSignal::new(Vec::<OperatorSession>::new());
    let keys = RwSignal::new(Vec::<ApiKey>::new());
    let message = RwSignal::new(None::<String>);
    // A link or a key's secret, shown once.
    let shown = RwSignal::new(None::<String>);
    let reload = move || {
        leptos::task::spawn_local(async move {
            let api = Api::current();
            match api.operators().await {
                Ok(list) => operators.set(list),
                Err(e) => message.set(Some(e.message)),
            }
            if let Ok(list) = api.operator_sessions().await {
                sessions.set(list);
            }
            if let Ok(list) = api.api_keys().await {
                keys.set(list);
            }
        });
    };
    Effect::new(move |_| reload());
    let outcome = Callback::new(
        move |result: Result<Option<String>, ErrorBody>| match result {
            Ok(show) => {
                message.set(None);
                shown.set(show);
                reload();
            }
            Err(e) => message.set(Some(e.message)),
        },
    );
    view! {
        <section class="card team">
            <h2>"Team"</h2>
            {move || message.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}
            {move || shown.get().map(|s| view! {
                <p class="shown-once" role="status">"Shown this once: " <code>{s}</code></p>
            })}
            <h3>"Operators"</h3>
            <table class="team-table">
                <thead><tr>
                    <th scope="col">"Name"</th><th scope="col">"Email"</th>
                    <th scope="col">"Role"</th><th scope="col">"Events"</th>
                    <th scope="col">"Passkeys"</th><th scope="col">"Enrol"</th>
                </tr></thead>
                <tbody>
                    <For each=move || operators.get() key=|o| o.id.clone() let:o>
                        <OperatorRow operator=o outcome/>
                    </For>
                </tbody>
            </table>
            <AddOperator outcome/>
            <h3>"Signed in now"</h3>
            <ul class="team-list">
                <For each=move || sessions.get() key=|s| s.id.clone() let:s>
                    <SessionRow session=s outcome/>
                </For>
            </ul>
            <h3>"API keys"</h3>
            <ul class="team-list">
                <For each=move || keys.get() key=|k| k.id.clone() let:k>
                    <KeyRow key=k outcome/>
                </For>
            </ul>
            <AddKey outcome/>
            <Audit operators/>
        </section>
    }
}

/// What a change answered: something to show once (a link, a secret), or a refusal.
type Outcome = Callback<Result<Option<String>, ErrorBody>>;

#[component]
fn OperatorRow(operator: OperatorAccount, outcome: Outcome) -> impl IntoView {
    let id = StoredValue::new(operator.id.clone());
    let enrol = move |_| {
        leptos::task::spawn_local(async move {
            outcome.run(
                Api::current()
                    .enrolment(&id.get_value())
                    .await
                    .map(|link| Some(link.url)),
            );
        });
    };
    view! {
        <tr>
            <td>{operator.name.clone()}</td>
            <td>{operator.email.clone()}</td>
            <td>{operator.role.as_str()}</td>
            <td>{events_text(&operator.events)}</td>
            <td>{operator.passkeys}</td>
            <td><button class="button secondary" on:click=enrol>"New enrolment link"</button></td>
        </tr>
    }
}

fn events_text(events: &Events) -> String {
    match events {
        Events::All => "all".into(),
        Events::Only(ids) => ids.join(", "),
    }
}

#[component]
fn AddOperator(outcome: Outcome) -> impl IntoView {
    let email = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let role = RwSignal::new(Role::Viewer);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let new = NewOperator {
            email: email.get_untracked(),
            name: name.get_untracked(),
            role: role.get_untracked(),
            events: Events::All,
        };
        leptos::task::spawn_local(async move {
            let api = Api::current();
            let result = match api.add_operator(&new).await {
                Ok(added) => api.enrolment(&added.id).await.map(|link| Some(link.url)),
                Err(e) => Err(e),
            };
            outcome.run(result);
        });
    };
    view! {
        <form class="inline-form" on:submit=submit>
            <label for="new-operator-email">"Email"</label>
            <input id="new-operator-email" type="email" required
                on:input=move |ev| email.set(event_target_value(&ev))/>
            <label for="new-operator-name">"Name"</label>
            <input id="new-operator-name" required
                on:input=move |ev| name.set(event_target_value(&ev))/>
            <label for="new-operator-role">"Role"</label>
            <select id="new-operator-role"
                on:change=move |ev| role.set(Role::parse(&event_target_value(&ev)).unwrap_or(Role::Viewer))>
                {Role::ALL.map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
            </select>
            <button class="button" type="submit">"Add operator"</button>
        </form>
    }
}

#[component]
fn SessionRow(session: OperatorSession, outcome: Outcome) -> impl IntoView {
    let id = StoredValue::new(session.id.clone());
    let end = move |_| {
        leptos::task::spawn_local(async move {
            outcome.run(
                Api::current()
                    .end_session(&id.get_value())
                    .await
                    .map(|_| None),
            );
        });
    };
    let current = session.current;
    view! {
        <li>
            {format!(
                "{} <{}> via {} from {}, since {}{}",
                session.name,
                session.email,
                session.via,
                session.address,
                session.created_at.format("%H:%M UTC"),
                if current { " (you)" } else { "" }
            )}
            " "
            <button class="button secondary" on:click=end>"End"</button>
        </li>
    }
}

#[component]
fn KeyRow(key: ApiKey, outcome: Outcome) -> impl IntoView {
    let id = StoredValue::new(key.id.clone());
    let revoke = move |_| {
        leptos::task::spawn_local(async move {
            outcome.run(
                Api::current()
                    .revoke_api_key(&id.get_value())
                    .await
                    .map(|_| None),
            );
        });
    };
    let scopes: Vec<&str> = key.scopes.iter().map(|s| s.as_str()).collect();
    let live = key.revoked_at.is_none();
    view! {
        <li>
            {format!(
                "{} ({}): {} on {}; {}",
                key.name,
                key.id,
                scopes.join(", "),
                events_text(&key.events),
                match (key.revoked_at, key.last_used_at) {
                    (Some(t), _) => format!("revoked {}", t.format("%Y-%m-%d")),
                    (None, Some(t)) => format!("last used {}", t.format("%Y-%m-%d %H:%M UTC")),
                    (None, None) => "never used".into(),
                }
            )}
            " "
            {live.then(|| view! { <button class="button secondary" on:click=revoke>"Revoke"</button> })}
        </li>
    }
}

#[component]
fn AddKey(outcome: Outcome) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let scopes = RwSignal::new(Vec::<Scope>::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let new = NewApiKey {
            name: name.get_untracked(),
            scopes: scopes.get_untracked(),
            events: Events::All,
            expires_in_days: None,
        };
        leptos::task::spawn_local(async move {
            outcome.run(
                Api::current()
                    .add_api_key(&new)
                    .await
                    .map(|created| Some(created.secret)),
            );
        });
    };
    view! {
        <form class="inline-form" on:submit=submit>
            <label for="new-key-name">"Key name"</label>
            <input id="new-key-name" required on:input=move |ev| name.set(event_target_value(&ev))/>
            <fieldset>
                <legend>"Scopes"</legend>
                {Scope::ALL.map(|scope| view! {
                    <label>
                        <input type="checkbox" on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            scopes.update(|list| {
                                list.retain(|s| *s != scope);
                                if on { list.push(scope); }
                            });
                        }/>
                        {scope.as_str()}
                    </label>
                }).collect_view()}
            </fieldset>
            <button class="button" type="submit">"Add key (90 days)"</button>
        </form>
    }
}

/// The audit, by person or key and by event.
#[component]
fn Audit(operators: RwSignal<Vec<OperatorAccount>>) -> impl IntoView {
    let actor = RwSignal::new(String::new());
    let event = RwSignal::new(String::new());
    let entries = RwSignal::new(Vec::<AuditEntry>::new());
    let load = move || {
        leptos::task::spawn_local(async move {
            let (a, e) = (actor.get_untracked(), event.get_untracked());
            if let Ok(list) = Api::current().audit_of(Some(&a), Some(&e)).await {
                entries.set(list);
            }
        });
    };
    Effect::new(move |_| load());
    view! {
        <h3>"Audit"</h3>
        <form class="inline-form" on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); load(); }>
            <label for="audit-actor">"Person"</label>
            <select id="audit-actor" on:change=move |ev| actor.set(event_target_value(&ev))>
                <option value="">"Everyone"</option>
                <For each=move || operators.get() key=|o| o.id.clone() let:o>
                    <option value=o.id.clone()>{o.name.clone()}</option>
                </For>
            </select>
            <label for="audit-event">"Event id"</label>
            <input id="audit-event" on:input=move |ev| event.set(event_target_value(&ev))/>
            <button class="button secondary" type="submit">"Filter"</button>
        </form>
        <ul class="audit team-audit">
            <For each=move || entries.get() key=|e| (e.at, e.actor.clone(), format!("{:?}", e.action)) let:e>
                <li>{format!(
                    "{} · {} · {}{}",
                    e.at.format("%Y-%m-%d %H:%M:%S"),
                    serde_json::to_string(&e.action).unwrap_or_default().trim_matches('"'),
                    e.actor,
                    e.event_id.map(|id| format!(" · {id}")).unwrap_or_default()
                )}</li>
            </For>
        </ul>
    }
}
