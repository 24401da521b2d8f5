//! PNG plots (plotters' bitmap backend): a fit against its data, and loss and accuracy per
//! epoch. Text is drawn with a font embedded in this crate (a subset of DejaVu Sans, see
//! `assets/PlotSans-LICENSE.txt`), so no system font library is needed.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::History;

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
