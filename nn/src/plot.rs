//! PNG plots (plotters' bitmap backend): a fit against its data, loss and accuracy per
//! epoch, and a [`Monitor`]'s gradient norms and dead units per step. Text is drawn
//! with a font embedded in this crate (a subset of DejaVu Sans, see
//! `assets/PlotSans-LICENSE.txt`), so no system font library is needed.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::History;
use crate::diagnostics::ActivationStats;
use crate::layers::Activation;
use crate::monitor::{Monitor, Record};

/// A plot could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw plot {path}: {message}")]
pub struct PlotError {
    path: String,
    message: String,
}

const FONT: &[u8] = include_bytes!("../assets/PlotSans.ttf");
const FAMILY: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a constant of this crate: failing to parse it is a build defect.
        plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("the embedded plot font is not a valid TrueType font"));
    });
}

fn plot_error(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> PlotError + '_ {
    move |e| PlotError {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The range of `values` with a margin, never empty.
fn padded_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() || !hi.is_finite() {
        return 0.0..1.0;
    }
    let margin = ((hi - lo) * 0.05).max(1e-9);
    lo - margin..hi + margin
}

/// Draws data `points` and a fitted `curve` (sorted by x) to a PNG at `path`.
///
/// ```
/// let path = std::env::temp_dir().join("gradtape-doc-fit.png");
/// let points: Vec<(f64, f64)> = (0..20).map(|i| (i as f64, 2.0 * i as f64 + 1.0)).collect();
/// gradtape_nn::plot::fit(&path, "y = 2x + 1", &points, &points, ("x", "y")).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() > 0);
/// ```
///
/// # Errors
/// If the image cannot be drawn or written.
pub fn fit(
    path: impl AsRef<Path>,
    title: &str,
    points: &[(f64, f64)],
    curve: &[(f64, f64)],
    (x_label, y_label): (&str, &str),
) -> Result<(), PlotError> {
    register_font();
    let path = path.as_ref();
    let err = plot_error(path);
    let root = BitMapBackend::new(path, (800, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let all = || points.iter().chain(curve);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FAMILY, 28))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            padded_range(all().map(|p| p.0)),
            padded_range(all().map(|p| p.1)),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style((FAMILY, 16))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(
            points
                .iter()
                .map(|&p| Circle::new(p, 3, BLUE.mix(0.6).filled())),
        )
        .map_err(|e| err(&e))?
        .label("data")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, BLUE.filled()));
    chart
        .draw_series(LineSeries::new(curve.iter().copied(), RED.stroke_width(3)))
        .map_err(|e| err(&e))?
        .label("fit")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(3)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FAMILY, 16))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// Draws the loss (left) and the accuracy (right, training and, where measured, test) per
/// epoch of `history` to a PNG at `path`.
///
/// ```
/// use gradtape_nn::{History, metrics::EpochRecord};
/// let mut history = History::default();
/// for (loss, acc) in [(0.6, 0.8), (0.3, 0.9), (0.2, 0.95)] {
///     history.push(EpochRecord { loss, accuracy: acc, test_accuracy: Some(acc - 0.01), seconds: 1.0 });
/// }
/// let path = std::env::temp_dir().join("gradtape-doc-history.png");
/// gradtape_nn::plot::history(&path, "MNIST", &history).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() > 0);
/// ```
///
/// # Errors
/// If the image cannot be drawn or written.
pub fn history(path: impl AsRef<Path>, title: &str, history: &History) -> Result<(), PlotError> {
    register_font();
    let path = path.as_ref();
    let err = plot_error(path);
    let root = BitMapBackend::new(path, (1100, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root.titled(title, (FAMILY, 26)).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(550);
    let epochs = history.epochs();
    let x_range = 1.0..(epochs.len().max(2) as f64);
    let at = |i: usize| (i + 1) as f64;

    let loss: Vec<(f64, f64)> = epochs
        .iter()
        .enumerate()
        .map(|(i, e)| (at(i), e.loss))
        .collect();
    let mut chart = ChartBuilder::on(&left)
        .caption("loss", (FAMILY, 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range.clone(), padded_range(loss.iter().map(|p| p.1)))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("training loss")
        .label_style((FAMILY, 15))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(loss.iter().copied(), RED.stroke_width(2)))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(loss.iter().map(|&p| Circle::new(p, 3, RED.filled())))
        .map_err(|e| err(&e))?;

    let train: Vec<(f64, f64)> = epochs
        .iter()
        .enumerate()
        .map(|(i, e)| (at(i), e.accuracy))
        .collect();
    let test: Vec<(f64, f64)> = epochs
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.test_accuracy.map(|a| (at(i), a)))
        .collect();
    let mut chart = ChartBuilder::on(&right)
        .caption("accuracy", (FAMILY, 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            x_range,
            padded_range(train.iter().chain(&test).map(|p| p.1)),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("accuracy")
        .label_style((FAMILY, 15))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(train.iter().copied(), BLUE.stroke_width(2)))
        .map_err(|e| err(&e))?
        .label("training")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    if !test.is_empty() {
        chart
            .draw_series(LineSeries::new(test.iter().copied(), GREEN.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label("test")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREEN.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FAMILY, 15))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// The range of the positive finite `values` on a log axis, a decade of margin each side;
/// `1e-12..1` when there is none.
fn log_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return 1e-12..1.0;
    }
    lo / 10.0..hi * 10.0
}

/// The steps of a monitor's records as an x range, never empty.
fn step_range(monitor: &Monitor) -> std::ops::Range<f64> {
    let steps = monitor.records().iter().map(|r| r.step as f64);
    let (lo, hi) = steps.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
        (lo.min(s), hi.max(s))
    });
    if !lo.is_finite() || hi <= lo {
        let lo = if lo.is_finite() { lo } else { 0.0 };
        return lo..lo + 1.0;
    }
    lo..hi
}

/// The `i`-th of `n` colours, spread over the hues.
fn hue(i: usize, n: usize) -> RGBColor {
    let (r, g, b) = HSLColor(i as f64 / n.max(1) as f64 * 0.85, 0.85, 0.42).rgb();
    RGBColor(r, g, b)
}

/// One line of a monitor plot.
struct Line {
    label: String,
    color: RGBColor,
    width: u32,
    points: Vec<(f64, f64)>,
}

/// Draws `lines`' legend down the strip `area` (plotters' legends sit inside the chart,
/// where a dozen layers would hide the lines).
fn legend(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    lines: &[Line],
    path: &Path,
) -> Result<(), PlotError> {
    let err = plot_error(path);
    for (k, line) in lines.iter().enumerate() {
        let y = 70 + 22 * k as i32;
        area.draw(&PathElement::new(
            vec![(5, y), (30, y)],
            line.color.stroke_width(line.width),
        ))
        .map_err(|e| err(&e))?;
        area.draw(&Text::new(
            line.label.clone(),
            (36, y - 8),
            (FAMILY, 15).into_font(),
        ))
        .map_err(|e| err(&e))?;
    }
    Ok(())
}

/// The layer a variable belongs to: its name up to the last `/` (`dense/kernel` →
/// `dense`), or the whole name.
fn layer_of(variable: &str) -> &str {
    variable
        .rsplit_once('/')
        .map_or(variable, |(layer, _)| layer)
}

/// Draws each layer's gradient norm (`sqrt(Σ ‖g‖²)` over its variables, grouped by the
/// name before the last `/`: `dense/kernel` and `dense/bias` make `dense`), and the global
/// norm (black), per recorded step of `monitor` to a PNG at `path`, on a log scale:
/// vanishing gradients are lines decades below the others, exploding ones lines shooting
/// up. Zero and non-finite norms have no point (a non-finite one is marked by a red cross
/// at the top); a layer all of whose gradients are `None` has no point either.
///
/// ```
/// use gradtape_nn::diagnostics::{GradientStats, Leaf};
/// use gradtape_nn::monitor::Monitor;
/// use gradtape_runtime::Tensor;
/// let mut monitor = Monitor::new();
/// for step in 0..10 {
///     let leaf = |name: &str, g: f32| Leaf {
///         name: name.into(),
///         value: Tensor::scalar(1.0_f32).into(),
///         gradient: Some(Tensor::scalar(g).into()),
///     };
///     let leaves = [leaf("early/kernel", 0.5f32.powi(step)), leaf("late/kernel", 1.0)];
///     monitor.record(step as u64, &GradientStats::from_leaves(&leaves, 0.1), &[]);
/// }
/// let path = std::env::temp_dir().join("gradtape-doc-gradient-norms.png");
/// gradtape_nn::plot::gradient_norms(&path, "gradient norms", &monitor).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() > 0);
/// ```
///
/// # Errors
/// If the image cannot be drawn or written.
pub fn gradient_norms(
    path: impl AsRef<Path>,
    title: &str,
    monitor: &Monitor,
) -> Result<(), PlotError> {
    register_font();
    let path = path.as_ref();
    let err = plot_error(path);
    let records = monitor.records();
    let mut layers: Vec<&str> = Vec::new();
    for v in records.iter().flat_map(|r| r.gradients.variables()) {
        if !layers.contains(&layer_of(&v.name)) {
            layers.push(layer_of(&v.name));
        }
    }
    // a layer's norm at a record: None when none of its variables has a gradient
    let norm_of = |r: &Record, layer: &str| {
        let squares: Vec<f64> = r
            .gradients
            .variables()
            .iter()
            .filter(|v| layer_of(&v.name) == layer)
            .filter_map(|v| v.gradient.as_ref().map(|g| g.norm * g.norm))
            .collect();
        (!squares.is_empty()).then(|| squares.iter().sum::<f64>().sqrt())
    };
    let positive = |v: f64| v.is_finite() && v > 0.0;
    let mut lines = Vec::new();
    let mut broken = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        let mut points = Vec::new();
        for r in records {
            match norm_of(r, layer) {
                Some(n) if positive(n) => points.push((r.step as f64, n)),
                Some(n) if !n.is_finite() => broken.push(r.step as f64),
                _ => {}
            }
        }
        lines.push(Line {
            label: layer.to_string(),
            color: hue(i, layers.len()),
            width: 2,
            points,
        });
    }
    lines.push(Line {
        label: "global norm".into(),
        color: BLACK,
        width: 4,
        points: records
            .iter()
            .map(|r| (r.step as f64, r.gradients.global_norm()))
            .filter(|&(_, n)| positive(n))
            .collect(),
    });
    let y_range = log_range(lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)));
    let top = y_range.end;

    let root = BitMapBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(880);
    let mut chart = ChartBuilder::on(&left)
        .caption(title, (FAMILY, 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(step_range(monitor), y_range.log_scale())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("gradient L2 norm per layer (log scale)")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .label_style((FAMILY, 15))
        .draw()
        .map_err(|e| err(&e))?;
    for line in &lines {
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                line.color.stroke_width(line.width),
            ))
            .map_err(|e| err(&e))?;
    }
    chart
        .draw_series(
            broken
                .iter()
                .map(|&s| Cross::new((s, top / 2.0), 6, RED.stroke_width(2))),
        )
        .map_err(|e| err(&e))?;
    legend(&right, &lines, path)?;
    root.present().map_err(|e| err(&e))
}

/// Draws each layer's fraction of dead units (thick: ReLU zero or sigmoid/tanh saturated
/// for the whole batch) and of flat outputs (thin, the same colour: over all examples) per
/// recorded step of `monitor` to a PNG at `path`. Layers with no flat region (linear,
/// softmax) are left out.
///
/// ```
/// use gradtape_nn::Activation;
/// use gradtape_nn::diagnostics::{ActivationStats, GradientStats};
/// use gradtape_nn::monitor::Monitor;
/// use gradtape_runtime::Tensor;
/// let mut monitor = Monitor::new();
/// for step in 0..5 {
///     let output = Tensor::from_vec(vec![0.0_f32, step as f32, 1.0, 0.0], &[2, 2]);
///     let layers = [ActivationStats::new("hidden", Activation::Relu, &output)];
///     monitor.record(step, &GradientStats::from_leaves(&[], 0.1), &layers);
/// }
/// let path = std::env::temp_dir().join("gradtape-doc-dead-units.png");
/// gradtape_nn::plot::dead_units(&path, "dead units", &monitor).unwrap();
/// assert!(std::fs::metadata(&path).unwrap().len() > 0);
/// ```
///
/// # Errors
/// If the image cannot be drawn or written.
pub fn dead_units(path: impl AsRef<Path>, title: &str, monitor: &Monitor) -> Result<(), PlotError> {
    register_font();
    let path = path.as_ref();
    let err = plot_error(path);
    let records = monitor.records();
    let mut layers: Vec<(&str, Activation)> = Vec::new();
    for a in records.iter().flat_map(|r| &r.activations) {
        if a.dead_fraction.is_some() && !layers.iter().any(|(l, _)| *l == a.layer) {
            layers.push((&a.layer, a.activation));
        }
    }
    let series = |layer: &str, pick: fn(&ActivationStats) -> Option<f64>| -> Vec<(f64, f64)> {
        records
            .iter()
            .filter_map(|r| {
                let a = r.activations.iter().find(|a| a.layer == layer)?;
                Some((r.step as f64, pick(a)?))
            })
            .collect()
    };
    let mut lines = Vec::new();
    let mut flat = Vec::new();
    for (i, (layer, activation)) in layers.iter().enumerate() {
        let color = hue(i, layers.len());
        lines.push(Line {
            label: format!("{layer} ({activation:?})"),
            color,
            width: 3,
            points: series(layer, |a| a.dead_fraction),
        });
        flat.push(Line {
            label: String::new(),
            color,
            width: 1,
            points: series(layer, |a| a.flat_fraction),
        });
    }

    let root = BitMapBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(880);
    let mut chart = ChartBuilder::on(&left)
        .caption(title, (FAMILY, 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(step_range(monitor), 0.0..1.05)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("fraction (thick: units dead for the batch; thin: flat outputs)")
        .label_style((FAMILY, 15))
        .draw()
        .map_err(|e| err(&e))?;
    for line in lines.iter().chain(&flat) {
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                line.color.stroke_width(line.width),
            ))
            .map_err(|e| err(&e))?;
    }
    legend(&right, &lines, path)?;
    root.present().map_err(|e| err(&e))
}
