//! What each admin route needs: one [`Permission`] per route (`admin::routes` pairs them), and
//! who has it. Invariants: a role has every permission of the roles below it; a person of
//! role `viewer` or `operator` acts only on the events of their account (an `admin` on all);
//! a key acts only within its scopes and events (one limited to some events makes no new
//! event and reads only their audit), and no key manages operators, sessions or
//! keys (that takes a person); the break-glass token may do everything.

use app::wire::{Role, Scope};

/// What one admin route needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    /// Anyone signed in, any key: who am I, signing out.
    SignedIn,
    /// An event's panel: stats, its nights kept, its room's audit.
    ReadEvent,
    /// An event's room controls: pause, the rate, the opening, keeping a night.
    ControlRoom,
    /// New events and their lists of eligible accounts.
    ManageEvents,
    /// An event's payments (buyer ids and amounts).
    ReadPayments,
    /// The whole audit.
    ReadAudit,
    /// Operators, their sessions and the API keys.
    ManageOperators,
    /// Telling an event's room that a buyer handed over to the ticketer's site is done
    /// (`POST /api/events/{id}/admissions/done`, server to server).
    ReportDone,
}

impl Permission {
    pub const ALL: [Permission; 8] = [
        Permission::SignedIn,
        Permission::ReadEvent,
        Permission::ControlRoom,
        Permission::ManageEvents,
        Permission::ReadPayments,
        Permission::ReadAudit,
        Permission::ManageOperators,
        Permission::ReportDone,
    ];

    /// Whether, on a route that names no event, it reaches every event (making one): then only
    /// a credential on all events has it.
    pub fn spans_events(self) -> bool {
        self == Permission::ManageEvents
    }

    /// The least role that has it.
    pub fn role(self) -> Role {
        match self {
            Permission::SignedIn | Permission::ReadEvent => Role::Viewer,
            Permission::ControlRoom | Permission::ReportDone => Role::Operator,
            Permission::ManageEvents
            | Permission::ReadPayments
            | Permission::ReadAudit
            | Permission::ManageOperators => Role::Admin,
        }
    }

    /// The key scope that grants it (`None`: no key does, except for [`Permission::SignedIn`],
    /// which every key has).
    pub fn scope(self) -> Option<Scope> {
        match self {
            Permission::SignedIn | Permission::ManageOperators => None,
            Permission::ReadEvent => Some(Scope::StatsRead),
            Permission::ControlRoom => Some(Scope::RoomsWrite),
            Permission::ManageEvents => Some(Scope::EventsWrite),
            Permission::ReadPayments => Some(Scope::PaymentsRead),
            Permission::ReadAudit => Some(Scope::AuditRead),
            Permission::ReportDone => Some(Scope::AdmissionsDone),
        }
    }

    /// Whether a person of `role` has it.
    pub fn granted_to_role(self, role: Role) -> bool {
        role >= self.role()
    }

    /// Whether a key with `scopes` has it.
    pub fn granted_to_scopes(self, scopes: &[Scope]) -> bool {
        match self.scope() {
            Some(scope) => scopes.contains(&scope),
            None => self == Permission::SignedIn,
        }
    }

    /// The docs' word for it (docs/operating.md, "Operators").
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::SignedIn => "signed in",
            Permission::ReadEvent => "read event",
            Permission::ControlRoom => "control room",
            Permission::ManageEvents => "manage events",
            Permission::ReadPayments => "read payments",
            Permission::ReadAudit => "read audit",
            Permission::ManageOperators => "manage operators",
            Permission::ReportDone => "report done",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_has_what_the_ones_below_it_have() {
        for p in Permission::ALL {
            let granted: Vec<bool> = Role::ALL.iter().map(|r| p.granted_to_role(*r)).collect();
            assert!(granted.windows(2).all(|w| w[0] <= w[1]), "{p:?}");
            assert!(p.granted_to_role(Role::Admin));
        }
        assert!(!Permission::ControlRoom.granted_to_role(Role::Viewer));
        assert!(Permission::ControlRoom.granted_to_role(Role::Operator));
        assert!(!Permission::ReadPayments.granted_to_role(Role::Operator));
    }

    #[test]
    fn no_key_manages_operators() {
        assert!(!Permission::ManageOperators.granted_to_scopes(&Scope::ALL));
        assert!(Permission::SignedIn.granted_to_scopes(&[]));
        assert!(Permission::ReadEvent.granted_to_scopes(&[Scope::StatsRead]));
        assert!(!Permission::ControlRoom.granted_to_scopes(&[Scope::StatsRead]));
    }
}
