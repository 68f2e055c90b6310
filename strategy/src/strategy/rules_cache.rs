//! The rules a search's imagined games share.

use std::sync::Arc;

use capicua_engine::Rules;

use crate::seat_view::SeatView;

/// The rules of the games a search imagines: cloned from the view once and
/// shared by every imagined game, cloned again only when the view's
/// variant changes (a strategy may be reused at another table).
#[derive(Debug, Default)]
pub(crate) struct RulesCache(Option<Arc<Rules>>);

impl RulesCache {
    /// The rules of `view`'s game.
    pub(crate) fn of(&mut self, view: &dyn SeatView) -> Arc<Rules> {
        match &self.0 {
            Some(r) if r.variant() == view.rules().variant() => r.clone(),
            _ => {
                let r = Arc::new(view.rules().clone());
                self.0 = Some(r.clone());
                r
            }
        }
    }
}
