//! `bota-gorda`: sheds the heaviest tile.

use super::{Context, PlayFeatures, Scorer};

/// Plays the heaviest tile by the variant's tile value ("throw the fat
/// one"), so a blocked or lost hand costs as little as possible.
#[derive(Clone, Copy, Debug, Default)]
pub struct BotaGorda;

impl Scorer for BotaGorda {
    fn name(&self) -> &'static str {
        "bota-gorda"
    }
    fn score(&self, ctx: &Context<'_>, play: &PlayFeatures) -> f64 {
        ctx.value_norm(play.tile)
    }
}
