//! The report's charts: inline SVG drawn by plotters' SVG backend.
//!
//! plotters is built without its `ttf` feature, so it measures text with its built-in estimate
//! (no system font is read at build or run time); the SVG holds `<text>` elements that the
//! browser sets in its own sans-serif font. Colours of text and axes come from the page's CSS
//! (`currentColor`), so a chart reads in light and dark themes alike. Every chart is handed a
//! bounded number of points by its caller.

use std::ops::Range;

use plotters::prelude::*;

/// Chart size in CSS pixels: two fit side by side on a laptop screen.
const WIDTH: u32 = 620;
const HEIGHT: u32 = 300;

/// Tableau 10: distinct on white and on a dark background.
const PALETTE: [(u8, u8, u8); 10] = [
    (78, 121, 167),
    (242, 142, 43),
    (225, 87, 89),
    (118, 183, 178),
    (89, 161, 79),
    (237, 201, 72),
    (176, 122, 161),
    (255, 157, 167),
    (156, 117, 95),
    (186, 176, 172),
];

/// The colour of series `i`, as plotters and as CSS.
pub fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

pub fn css_color(i: usize) -> String {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One named series of (x, y) points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// What a line chart shows beside its lines.
#[derive(Default)]
pub struct Axes {
    pub x_desc: &'static str,
    pub y_desc: &'static str,
    /// Units of x per unit of y on screen (longitude degrees are shorter than latitude ones);
    /// `Some` keeps the aspect so a map is not stretched.
    pub aspect: Option<f64>,
    /// A scale bar: its length in x units and its label.
    pub scale: Option<(f64, String)>,
}

/// Series of at most this many points get a mark at each point.
const MARKED: usize = 40;

type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Renders with `draw`, then makes the SVG fit inline: no namespace URL (an inline `<svg>` in
/// HTML needs none), and text and axes in the page's colour.
fn render(draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Drawn) -> String {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(root)
    };
    if let Err(e) = drawn {
        return format!(
            "<p class=\"muted\">chart not drawn: {}</p>",
            super::markup::escape(&e.to_string())
        );
    }
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace("<svg ", "<svg class=\"chart\" ")
        .replace("fill=\"#000000\"", "fill=\"currentColor\"")
        .replace("stroke=\"#000000\"", "stroke=\"currentColor\"")
}

/// A finite, non-empty range around the values, with a margin.
fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> Range<f64> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.04
    } else {
        lo.abs().max(1.0) * 0.5
    };
    if from_zero && lo == 0.0 {
        return 0.0..hi + pad;
    }
    lo - pad..hi + pad
}

/// Widens one of the ranges so that `aspect` x units take as much screen as one y unit.
fn keep_aspect(x: &mut Range<f64>, y: &mut Range<f64>, aspect: f64) {
    // The plotting area, less the label areas of `mesh`.
    let (w, h) = (f64::from(WIDTH - 80), f64::from(HEIGHT - 50));
    let (dx, dy) = (x.end - x.start, y.end - y.start);
    let want_dx = dy * aspect * w / h;
    if want_dx > dx {
        let grow = (want_dx - dx) / 2.0;
        *x = x.start - grow..x.end + grow;
    } else {
        let grow = (dx / (aspect * w / h) - dy) / 2.0;
        *y = y.start - grow..y.end + grow;
    }
}

/// Axis numbers for an axis spanning `span`: large ones shortened (1.5k, 2M), small ones with
/// the decimals that tell neighbouring ticks apart (a track's latitudes differ in the fourth).
fn ticks(span: f64) -> impl Fn(&f64) -> String {
    let decimals = (-(span / 8.0).log10()).ceil().clamp(0.0, 6.0) as usize;
    move |v: &f64| {
        let a = v.abs();
        if a >= 1e6 {
            format!("{:.1}M", v / 1e6)
        } else if a >= 1e4 && decimals == 0 {
            format!("{:.0}k", v / 1e3)
        } else {
            format!("{v:.decimals$}")
        }
    }
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// How the y axis is labelled: how many labels, and their text.
struct YLabels<'a> {
    count: usize,
    text: &'a dyn Fn(&f64) -> String,
}

fn mesh(chart: &mut Chart<'_, '_>, x: &Range<f64>, desc: (&str, &str), y: YLabels<'_>) -> Drawn {
    let xf = ticks(x.end - x.start);
    let grid = RGBColor(128, 128, 128);
    chart
        .configure_mesh()
        .axis_style(grid)
        .bold_line_style(grid.mix(0.25))
        .light_line_style(grid.mix(0.08))
        .label_style(("sans-serif", 12).into_font().color(&BLACK))
        .axis_desc_style(("sans-serif", 12).into_font().color(&BLACK))
        .x_labels(8)
        .y_labels(y.count)
        .x_label_formatter(&xf)
        .y_label_formatter(y.text)
        .x_desc(desc.0)
        .y_desc(desc.1)
        .draw()?;
    Ok(())
}

/// A chart of numbers on both axes, its mesh drawn: six y labels with as many decimals as the
/// range needs.
fn numbered<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    (x, y): (&Range<f64>, &Range<f64>),
    desc: (&str, &str),
) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(root)
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(x.clone(), y.clone())?;
    let yf = ticks(y.end - y.start);
    mesh(
        &mut chart,
        x,
        desc,
        YLabels {
            count: 6,
            text: &yf,
        },
    )?;
    Ok(chart)
}

/// Layers stacked on each other over shared x values (the I/O graph).
pub fn stacked(x: &[f64], layers: &[Series], x_desc: &'static str, y_desc: &'static str) -> String {
    let mut tops = vec![0.0f64; x.len()];
    let mut bands = Vec::with_capacity(layers.len());
    for l in layers {
        let low = tops.clone();
        for (t, (_, y)) in tops.iter_mut().zip(&l.points) {
            *t += if y.is_finite() { *y } else { 0.0 };
        }
        bands.push((low, tops.clone()));
    }
    let xr = range(x.iter().copied(), false);
    let yr = range(tops.iter().copied(), true);
    render(|root| {
        let mut chart = numbered(&root, (&xr, &yr), (x_desc, y_desc))?;
        for (i, (low, high)) in bands.iter().enumerate() {
            let mut outline: Vec<(f64, f64)> =
                x.iter().copied().zip(high.iter().copied()).collect();
            outline.extend(x.iter().copied().zip(low.iter().copied()).rev());
            chart.draw_series(std::iter::once(Polygon::new(
                outline,
                color(i).mix(0.85).filled(),
            )))?;
        }
        root.present()?;
        Ok(())
    })
}

/// Lines, one a series; a series' points farther apart than `gap` (respawns, teleports) are not
/// joined.
pub fn lines(series: &[Series], axes: &Axes, gap: Option<f64>) -> String {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let mut xr = range(all().map(|p| p.0), false);
    let mut yr = range(all().map(|p| p.1), axes.aspect.is_none());
    if let Some(a) = axes.aspect {
        keep_aspect(&mut xr, &mut yr, a);
    }
    render(|root| {
        let mut chart = numbered(&root, (&xr, &yr), (axes.x_desc, axes.y_desc))?;
        for (i, s) in series.iter().enumerate() {
            for part in split(&s.points, gap, axes.aspect.unwrap_or(1.0)) {
                chart.draw_series(LineSeries::new(
                    part.iter().copied(),
                    color(i).stroke_width(2),
                ))?;
            }
            // A line of one point draws nothing: a short series gets a mark at each point.
            if s.points.len() <= MARKED {
                let style = color(i).filled();
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, style)))?;
            }
        }
        if let Some((len, label)) = &axes.scale {
            let (x0, y0) = (
                xr.start + (xr.end - xr.start) * 0.04,
                yr.start + (yr.end - yr.start) * 0.06,
            );
            let bar = vec![(x0, y0), (x0 + len, y0)];
            chart.draw_series(std::iter::once(PathElement::new(
                bar,
                BLACK.stroke_width(3),
            )))?;
            let y1 = y0 + (yr.end - yr.start) * 0.03;
            let text = Text::new(
                label.clone(),
                (x0, y1),
                ("sans-serif", 12).into_font().color(&BLACK),
            );
            chart.draw_series(std::iter::once(text))?;
        }
        root.present()?;
        Ok(())
    })
}

/// Runs of points with no step longer than `gap` (x scaled by `aspect` to y's units).
fn split(points: &[(f64, f64)], gap: Option<f64>, aspect: f64) -> Vec<&[(f64, f64)]> {
    let Some(gap) = gap else {
        return vec![points];
    };
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..points.len() {
        let (a, b) = (points[i - 1], points[i]);
        if ((b.0 - a.0) / aspect).hypot(b.1 - a.1) > gap {
            parts.push(&points[start..i]);
            start = i;
        }
    }
    parts.push(&points[start..]);
    parts
}

/// Events as marks on a time axis, one row a kind.
pub fn timeline(marks: &[(f64, usize)], rows: &[String], x_end: f64) -> String {
    let xr = range(marks.iter().map(|m| m.0).chain([0.0, x_end]), false);
    let height = rows.len().max(1) as f64;
    render(|root| {
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(110)
            .build_cartesian_2d(xr.clone(), -0.5..height - 0.5)?;
        let name = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 0.01 && i >= 0.0 {
                rows.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let count = rows.len().max(1) * 2 + 1;
        mesh(
            &mut chart,
            &xr,
            ("seconds", ""),
            YLabels { count, text: &name },
        )?;
        chart.draw_series(marks.iter().map(|&(t, row)| {
            let y = row as f64;
            PathElement::new(vec![(t, y - 0.3), (t, y + 0.3)], color(row).stroke_width(2))
        }))?;
        root.present()?;
        Ok(())
    })
}
