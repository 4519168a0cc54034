//! The cumulative-success plot (success rate by attempt, one line per
//! configuration) as PNG and SVG. Text is drawn with a font that ships in
//! a crate (`epaint_default_fonts`), so no system fonts or fontconfig are
//! needed.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{BenchError, Result};

/// One line: a configuration's success rate (0–1) after attempt 1..=K.
pub struct Series<'a> {
    pub name: &'a str,
    pub rates: &'a [f64],
}

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

/// A palette that stays distinguishable in print (Okabe–Ito).
const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    series: &[Series],
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let k = series
        .iter()
        .map(|s| s.rates.len())
        .max()
        .unwrap_or(1)
        .max(1) as u32;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 26))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0.5f64..(k as f64 + 0.5), 0f64..100f64)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("attempt")
        .y_desc("tasks solved (%)")
        .x_labels((k as usize).min(20))
        .x_label_formatter(&|x| format!("{}", x.round() as i64))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points: Vec<(f64, f64)> = s
            .rates
            .iter()
            .enumerate()
            .map(|(j, r)| ((j + 1) as f64, r * 100.0))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))
            .map_err(|e| e.to_string())?
            .label(s.name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
            });
        // Different markers too, so overlapping lines stay readable.
        let drawn = match i % 3 {
            0 => chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled()))),
            1 => chart.draw_series(
                points
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 7, color.filled())),
            ),
            _ => chart.draw_series(
                points
                    .iter()
                    .map(|&p| Cross::new(p, 6, color.stroke_width(2))),
            ),
        };
        drawn.map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Writes `<stem>.png` and `<stem>.svg`.
pub fn cumulative_success(dir: &Path, stem: &str, title: &str, series: &[Series]) -> Result<()> {
    register_font();
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    let fail = |p: &Path, e: String| {
        BenchError::environment(format!("could not draw {}: {e}", p.display()))
    };
    // Draw to temporary names, then rename: a crash leaves no half image.
    let png_tmp = dir.join(format!(".{stem}.tmp.png"));
    let svg_tmp = dir.join(format!(".{stem}.tmp.svg"));
    draw(
        BitMapBackend::new(&png_tmp, (960, 600)).into_drawing_area(),
        title,
        series,
    )
    .map_err(|e| fail(&png, e))?;
    draw(
        SVGBackend::new(&svg_tmp, (960, 600)).into_drawing_area(),
        title,
        series,
    )
    .map_err(|e| fail(&svg, e))?;
    std::fs::rename(&png_tmp, &png).map_err(|e| BenchError::io("write", &png, e))?;
    std::fs::rename(&svg_tmp, &svg).map_err(|e| BenchError::io("write", &svg, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_png_and_an_svg_with_text() {
        let dir = tempfile::tempdir().unwrap();
        let a = [0.2, 0.4, 0.5];
        let b = [0.1, 0.1];
        cumulative_success(
            dir.path(),
            "cum",
            "Cumulative success",
            &[
                Series {
                    name: "packsmith",
                    rates: &a,
                },
                Series {
                    name: "zero-shot",
                    rates: &b,
                },
            ],
        )
        .unwrap();
        let png = std::fs::read(dir.path().join("cum.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert!(png.len() > 5000, "{}", png.len());
        let svg = std::fs::read_to_string(dir.path().join("cum.svg")).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("packsmith") && svg.contains("zero-shot"));
        assert!(svg.contains("attempt"));
    }
}
