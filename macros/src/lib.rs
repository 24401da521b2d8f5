//! The `#[differentiable]` attribute of gradtape.
