//! The pictures of every page the workspace draws (the report's funnel, ranges and depth
//! histogram, the advice's ranking and layouts, the harness's bar and log-log charts): one SVG
//! writer and one escaping function.
//!
//! A picture is a list of shapes ([`rect`], [`text`], [`line`], [`circle`], [`polyline`]),
//! each with its attributes, a tooltip ([`Shape::title`]) and coloured runs of text
//! ([`Shape::span`]). Every text and every attribute value goes through [`esc`] here, so no
//! caller escapes anything; numbers are written with at most one decimal.

use std::fmt::Write as _;

/// `text` as HTML or SVG content and as an attribute value (double- or single-quoted).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate or a length: whole numbers as they are, others with one decimal.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// What a shape holds between its tags.
#[derive(Clone, Debug, PartialEq)]
enum Content {
    Text(String),
    /// A `<tspan>` of a colour.
    Span {
        fill: String,
        text: String,
    },
}

/// One element of a picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    name: &'static str,
    attributes: Vec<(&'static str, String)>,
    title: Option<String>,
    content: Vec<Content>,
}

fn shape(name: &'static str, attributes: Vec<(&'static str, String)>) -> Shape {
    Shape {
        name,
        attributes,
        title: None,
        content: Vec::new(),
    }
}

/// A rectangle at `(x, y)`, `width` by `height`.
pub fn rect(x: f64, y: f64, width: f64, height: f64) -> Shape {
    shape(
        "rect",
        vec![
            ("x", number(x)),
            ("y", number(y)),
            ("width", number(width)),
            ("height", number(height)),
        ],
    )
}

/// `content` with its baseline starting at `(x, y)`.
pub fn text(x: f64, y: f64, content: &str) -> Shape {
    let mut s = shape("text", vec![("x", number(x)), ("y", number(y))]);
    s.content.push(Content::Text(content.to_string()));
    s
}

/// A line from `(x1, y1)` to `(x2, y2)`.
pub fn line(x1: f64, y1: f64, x2: f64, y2: f64) -> Shape {
    shape(
        "line",
        vec![
            ("x1", number(x1)),
            ("y1", number(y1)),
            ("x2", number(x2)),
            ("y2", number(y2)),
        ],
    )
}

/// A circle of radius `r` at `(cx, cy)`.
pub fn circle(cx: f64, cy: f64, r: f64) -> Shape {
    shape(
        "circle",
        vec![("cx", number(cx)), ("cy", number(cy)), ("r", number(r))],
    )
}

/// An open line through `points`, unfilled.
pub fn polyline(points: &[(f64, f64)]) -> Shape {
    let points: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{},{}", number(*x), number(*y)))
        .collect();
    shape(
        "polyline",
        vec![("points", points.join(" ")), ("fill", "none".into())],
    )
}

impl Shape {
    /// Any attribute (`fill`, `stroke`, `text-anchor`, `data-stage`, ...).
    pub fn attr(mut self, name: &'static str, value: impl std::fmt::Display) -> Self {
        self.attributes.push((name, value.to_string()));
        self
    }

    pub fn class(self, class: &str) -> Self {
        self.attr("class", class)
    }

    pub fn fill(self, colour: &str) -> Self {
        self.attr("fill", colour)
    }

    /// The tooltip a browser shows over the shape.
    pub fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_string());
        self
    }

    /// A run of text in `fill` after what the shape holds (a legend's coloured square).
    pub fn span(mut self, fill: &str, text: &str) -> Self {
        self.content.push(Content::Span {
            fill: fill.to_string(),
            text: text.to_string(),
        });
        self
    }

    fn write(&self, out: &mut String) {
        let _ = write!(out, "<{}", self.name);
        for (name, value) in &self.attributes {
            let _ = write!(out, " {name}=\"{}\"", esc(value));
        }
        if self.title.is_none() && self.content.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        if let Some(title) = &self.title {
            let _ = write!(out, "<title>{}</title>", esc(title));
        }
        for c in &self.content {
            match c {
                Content::Text(t) => out.push_str(&esc(t)),
                Content::Span { fill, text } => {
                    let _ = write!(out, "<tspan fill=\"{}\">{}</tspan>", esc(fill), esc(text));
                }
            }
        }
        let _ = write!(out, "</{}>", self.name);
    }
}

/// A picture being drawn.
#[derive(Clone, Debug)]
pub struct Svg {
    attributes: Vec<(&'static str, String)>,
    shapes: Vec<Shape>,
}

impl Svg {
    /// A picture of `width` by `height` inside a page: an image with a class and a label for
    /// readers that do not see it.
    pub fn in_page(class: &str, label: &str, width: f64, height: f64) -> Svg {
        Svg {
            attributes: vec![
                ("class", class.to_string()),
                ("role", "img".into()),
                ("aria-label", label.to_string()),
                (
                    "viewBox",
                    format!("0 0 {} {}", number(width), number(height)),
                ),
                ("width", number(width)),
                ("height", number(height)),
            ],
            shapes: Vec::new(),
        }
    }

    /// A picture of `width` by `height` that is a file of its own (its namespace and font).
    pub fn file(width: f64, height: f64) -> Svg {
        Svg {
            attributes: vec![
                ("xmlns", "http://www.w3.org/2000/svg".into()),
                ("width", number(width)),
                ("height", number(height)),
                ("font-family", "sans-serif".into()),
                ("font-size", "12".into()),
            ],
            shapes: Vec::new(),
        }
    }

    pub fn push(&mut self, shape: Shape) {
        self.shapes.push(shape);
    }

    /// The picture's text, a shape a line.
    pub fn finish(self) -> String {
        let mut out = String::from("<svg");
        for (name, value) in &self.attributes {
            let _ = write!(out, " {name}=\"{}\"", esc(value));
        }
        out.push_str(">\n");
        for shape in &self.shapes {
            shape.write(&mut out);
            out.push('\n');
        }
        out.push_str("</svg>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped_once_here() {
        assert_eq!(
            esc("a<b & \"c\" 'd'"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;"
        );
        let mut svg = Svg::in_page("ranges", "ranges of \"x\"", 100.0, 20.5);
        svg.push(
            rect(1.0, 2.25, 3.0, 4.0)
                .class("range-bar")
                .attr("data-kept", true)
                .fill("#2b6cb0")
                .title("part=<1>: 0 .. 9"),
        );
        svg.push(text(0.0, 10.0, "x < 5 & y").attr("text-anchor", "end"));
        svg.push(text(0.0, 12.0, "").span("#c00", "\u{25a0} pruned"));
        svg.push(polyline(&[(0.0, 1.0), (2.5, 3.0)]).attr("stroke", "red"));
        assert_eq!(
            svg.finish(),
            "<svg class=\"ranges\" role=\"img\" aria-label=\"ranges of &quot;x&quot;\" \
             viewBox=\"0 0 100 20.5\" width=\"100\" height=\"20.5\">\n\
             <rect x=\"1\" y=\"2.2\" width=\"3\" height=\"4\" class=\"range-bar\" data-kept=\"true\" \
             fill=\"#2b6cb0\"><title>part=&lt;1&gt;: 0 .. 9</title></rect>\n\
             <text x=\"0\" y=\"10\" text-anchor=\"end\">x &lt; 5 &amp; y</text>\n\
             <text x=\"0\" y=\"12\"><tspan fill=\"#c00\">\u{25a0} pruned</tspan></text>\n\
             <polyline points=\"0,1 2.5,3\" fill=\"none\" stroke=\"red\"/>\n</svg>\n"
        );
    }

    #[test]
    fn numbers_keep_one_decimal_at_most() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(2.71), "2.7");
        assert_eq!(number(-0.25), "-0.2");
        assert_eq!(number(1e20), "100000000000000000000.0");
    }

    #[test]
    fn a_file_of_its_own_names_its_namespace() {
        let svg = Svg::file(10.0, 5.0).finish();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\""));
    }
}
