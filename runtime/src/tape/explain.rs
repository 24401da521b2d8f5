//! placeholder
pub struct Explanation;
pub struct VariableNotWatched;
