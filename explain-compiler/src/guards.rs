//! The guards: the places where what real writers record, or how engines compare, makes a
//! min/max decision of the kernel unsafe for a leaf, and what the scans do about each. One
//! table ([`GUARDS`]), one row a guard, each with its derivation; the explanation, the
//! diagnoses and the report read which guard fired instead of recomputing it.
//!
//! Engine semantics (docs/semantics.md): Spark and DuckDB put every NaN above all numbers;
//! DataFusion compares in Arrow's total order, where a NaN with its sign bit set sorts below
//! `-inf`; all three compare `-0.0 = 0.0`. Strings compare by code point (UTF-8 bytes).
//!
//! | guard | fires on (data column unless said) | scan (default) | scan (`--strict`) |
//! |---|---|---|---|
//! | NaN bounds | float column: `<`, `<=`, `>`, `>=`, `!=`, `= 'NaN'`, `IN (.., 'NaN')`, `NOT IN` | as written, announced | left out (TRUE) |
//! | float widened | column widened from float: any comparison | literal widened by one f32 ulp | same |
//! | decimal rounded | decimal of precision > 15: any comparison | literal widened by a double's rounding | same |
//! | string tie-breaker | string: `>`, `>=`, `=`, `IN` with a character >= U+FFFD | cut before that character | same |
//! | signed zero | float column, partition or data: a zero literal | the zero that keeps more | same |
//!
//! The full scan's rewrite of a leaf the kernel cannot expand follows the NaN guard's decision
//! and comes before the rewriting guards ([`guard_full_scan`]):
//!
//! | rewrite | on | scan |
//! |---|---|---|
//! | IN hull | `IN` of more than [`MAX_IN_LIST_EXPANSION`] values | `x >= min AND x <= max`, then widened by the guards above |
//!
//! Every rewrite replaces a leaf by a predicate that admits every row the leaf admits under
//! each engine's semantics, or by one whose min/max decision cannot drop such a row; inside a
//! negation-free tree that only keeps more files (monotonicity, see [`crate::nnf`]). The NaN
//! guard decides on the leaf as written, before any rewrite: `x = 0` is safe from NaN even
//! though its rewrite `x >= -0.0 AND x <= 0.0` is made of exposed comparisons.

use delta_kernel::expressions::Scalar;
use delta_kernel::schema::PrimitiveType;

use crate::ast::{CmpOp, ColumnRef, Literal};
use crate::coerce::{coerce, compare, decimal_text};
use crate::lower::MAX_IN_LIST_EXPANSION;
use crate::nnf::{Leaf, Nnf};
use crate::schema::{ColumnInfo, TableColumns};

/// A guard: one way a recorded bound or an engine's comparison can betray a leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Guard {
    /// Writers leave NaN (of either sign) out of min/max; Delta stats carry no NaN count.
    NanBounds,
    /// Files written before a float column was widened to double keep f32 statistics.
    FloatWidened,
    /// delta-rs writes decimal statistics through a double: above 15 significant digits they
    /// are rounded.
    DecimalRounded,
    /// Older Spark writers append U+FFFD to a truncated max after a UTF-16 comparison: with a
    /// character at or above U+FFFD at the cut, the recorded max is below the real one.
    StringTieBreaker,
    /// Engines compare `-0.0 = 0.0`; the kernel's comparisons and the recorded bounds keep the
    /// sign.
    SignedZero,
}

/// What a guard did to the leaves it fired on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    /// The leaf prunes as the kernel prunes: an engine could find a match in a dropped file
    /// (default mode only).
    Announced,
    /// Left out of the scan (`--strict`): the leaf keeps every file.
    Excluded,
    /// Rewritten (a literal widened or cut) so that no recorded bound can drop a match.
    Widened,
}

impl Effect {
    pub fn label(self) -> &'static str {
        match self {
            Effect::Announced => "announced",
            Effect::Excluded => "excluded",
            Effect::Widened => "widened",
        }
    }
}

/// A guard that fired, with the leaves (as written) it fired on.
#[derive(Clone, Debug, PartialEq)]
pub struct Hazard {
    pub guard: Guard,
    pub effect: Effect,
    pub leaves: Vec<Leaf>,
}

pub const NAN_UNGUARDED_BOUNDS: &str = "NAN_UNGUARDED_BOUNDS";
pub const NAN_STRICT_EXCLUDED: &str = "NAN_STRICT_EXCLUDED";
pub const TYPE_WIDENING_STATS: &str = "TYPE_WIDENING_STATS";
pub const DECIMAL_ROUNDED_BOUNDS: &str = "DECIMAL_ROUNDED_BOUNDS";
pub const STRING_TIE_BREAKER: &str = "STRING_TIE_BREAKER";
pub const SIGNED_ZERO_WIDENED: &str = "SIGNED_ZERO_WIDENED";

/// Every hazard code, in report order.
pub const HAZARD_CODES: [&str; 6] = [
    NAN_UNGUARDED_BOUNDS,
    NAN_STRICT_EXCLUDED,
    TYPE_WIDENING_STATS,
    DECIMAL_ROUNDED_BOUNDS,
    STRING_TIE_BREAKER,
    SIGNED_ZERO_WIDENED,
];

impl Hazard {
    /// The stable code of this hazard (docs/semantics.md, the schema).
    pub fn code(&self) -> &'static str {
        match (self.guard, self.effect) {
            (Guard::NanBounds, Effect::Excluded) => NAN_STRICT_EXCLUDED,
            (Guard::NanBounds, Effect::Announced | Effect::Widened) => NAN_UNGUARDED_BOUNDS,
            (Guard::FloatWidened, _) => TYPE_WIDENING_STATS,
            (Guard::DecimalRounded, _) => DECIMAL_ROUNDED_BOUNDS,
            (Guard::StringTieBreaker, _) => STRING_TIE_BREAKER,
            (Guard::SignedZero, _) => SIGNED_ZERO_WIDENED,
        }
    }

    /// One line for the text page and the JSON report.
    pub fn message(&self) -> String {
        let list = self
            .leaves
            .iter()
            .map(|l| format!("`{l}`"))
            .collect::<Vec<_>>()
            .join(", ");
        match (self.guard, self.effect) {
            (Guard::NanBounds, Effect::Excluded) => format!(
                "--strict left {list} out of the scan: NaN rows could satisfy it beyond the recorded bounds"
            ),
            (Guard::NanBounds, Effect::Announced | Effect::Widened) => format!(
                "{list}: a file whose matching rows are NaN can be pruned (min/max leave NaN out); --strict keeps it"
            ),
            (Guard::FloatWidened, _) => format!(
                "{list}: the column was widened from float and older files keep f32 statistics (`3.4` for 3.4000000953674316); the literal is widened by one f32 ulp"
            ),
            (Guard::DecimalRounded, _) => format!(
                "{list}: statistics of decimals above 15 digits may have been written through a double (delta-rs); the literal is widened by the rounding a double introduces"
            ),
            (Guard::StringTieBreaker, _) => format!(
                "{list}: older Spark writers may record a truncated max ending in U+FFFD below a real max that continues with a character at or above U+FFFD; the comparison is cut before that character"
            ),
            (Guard::SignedZero, _) => format!(
                "{list}: engines compare -0.0 = 0.0 while the kernel and the recorded bounds keep the sign; the zero literal is taken as both zeros"
            ),
        }
    }
}

/// Hazards gathered from many leaves and scans, each (guard, effect, leaf) once: a predicate of
/// thousands of leaves is recorded in linear time. The one place hazards are merged.
#[derive(Default)]
pub struct HazardSet {
    hazards: Vec<Hazard>,
    recorded: std::collections::HashSet<(Guard, Effect, Leaf)>,
}

impl HazardSet {
    /// That `guard` had `effect` on `leaf` (as written).
    pub fn record(&mut self, guard: Guard, effect: Effect, leaf: &Leaf) {
        if !self.recorded.insert((guard, effect, leaf.clone())) {
            return;
        }
        match self
            .hazards
            .iter_mut()
            .find(|h| h.guard == guard && h.effect == effect)
        {
            Some(h) => h.leaves.push(leaf.clone()),
            None => self.hazards.push(Hazard {
                guard,
                effect,
                leaves: vec![leaf.clone()],
            }),
        }
    }

    /// Every leaf of `hazards`, recorded.
    pub fn extend(&mut self, hazards: &[Hazard]) {
        for h in hazards {
            for leaf in &h.leaves {
                self.record(h.guard, h.effect, leaf);
            }
        }
    }

    /// The hazards in report order (by guard, then effect).
    pub fn into_sorted(mut self) -> Vec<Hazard> {
        self.hazards.sort_by_key(|h| (h.guard, h.effect));
        self.hazards
    }
}

/// What one guard does to one leaf.
enum Action {
    /// The guard does not apply.
    Pass,
    /// The leaf prunes as written; the hazard is announced.
    Announce,
    /// The leaf is left out of the scan.
    Exclude,
    /// The leaf is replaced by a predicate that cannot drop a match.
    Rewrite(Nnf),
}

/// One row of the guard table: the guard, and its decision for a leaf on a resolved column.
struct Row {
    guard: Guard,
    decide: fn(&Leaf, &ColumnInfo, bool) -> Action,
}

/// The guards, in the order they apply. NaN first: it judges the leaf as written.
const GUARDS: [Row; 5] = [
    Row {
        guard: Guard::NanBounds,
        decide: nan_bounds,
    },
    Row {
        guard: Guard::FloatWidened,
        decide: float_widened,
    },
    Row {
        guard: Guard::DecimalRounded,
        decide: decimal_rounded,
    },
    Row {
        guard: Guard::StringTieBreaker,
        decide: string_tie_breaker,
    },
    Row {
        guard: Guard::SignedZero,
        decide: signed_zero,
    },
];

/// A predicate with every guard applied, and the guards that fired.
#[derive(Clone, Debug, PartialEq)]
pub struct Guarded {
    pub predicate: Nnf,
    pub hazards: Vec<Hazard>,
}

/// Applies every guard to every leaf of `pred` (a predicate the kernel can evaluate: stripped
/// leaves are TRUE already). `strict` leaves NaN-exposed comparisons out instead of announcing.
pub fn guard(pred: &Nnf, columns: &TableColumns, strict: bool) -> Guarded {
    guard_with(pred, columns, strict, false)
}

/// [`guard`] for the full scan, where an `IN` list too long for the kernel to expand (over
/// [`MAX_IN_LIST_EXPANSION`] values) is bounded by its hull ([`in_hull`]): the NaN guard
/// decides on the list as written (a list of numbers holds no NaN, however long), then the
/// list becomes its hull, then the rewriting guards widen the hull's bounds (a float zero, a
/// widened float, a rounded decimal) as they widen any comparison. A list long or short is
/// judged alike.
pub fn guard_full_scan(pred: &Nnf, columns: &TableColumns, strict: bool) -> Guarded {
    guard_with(pred, columns, strict, true)
}

fn guard_with(pred: &Nnf, columns: &TableColumns, strict: bool, bound_lists: bool) -> Guarded {
    let mut hazards = HazardSet::default();
    let predicate = pred.map_leaves(&mut |original: &Leaf| {
        let Some(info) = original.column().and_then(|c| columns.resolve(c).ok()) else {
            return Nnf::Leaf(original.clone());
        };
        let mut current = Nnf::Leaf(original.clone());
        for (i, row) in GUARDS.iter().enumerate() {
            // After the NaN guard's decision on the leaf as written, a long list becomes its
            // hull, which the rewriting guards then widen.
            if i == 1 && bound_lists {
                current = current.map_leaves(&mut |leaf: &Leaf| {
                    in_hull(leaf, &info).unwrap_or_else(|| Nnf::Leaf(leaf.clone()))
                });
            }
            let mut fired = None;
            current =
                current.map_leaves(&mut |leaf: &Leaf| match (row.decide)(leaf, &info, strict) {
                    Action::Pass => Nnf::Leaf(leaf.clone()),
                    Action::Announce => {
                        fired = Some(Effect::Announced);
                        Nnf::Leaf(leaf.clone())
                    }
                    Action::Exclude => {
                        fired = Some(Effect::Excluded);
                        Nnf::Const(true)
                    }
                    Action::Rewrite(rewritten) => {
                        fired = Some(Effect::Widened);
                        rewritten
                    }
                });
            if let Some(effect) = fired {
                hazards.record(row.guard, effect, original);
            }
        }
        current
    });
    Guarded {
        predicate,
        hazards: hazards.into_sorted(),
    }
}

/// An `IN` list too long to expand (over [`MAX_IN_LIST_EXPANSION`] values), bounded by its hull:
/// `x IN (v1, .., vn)` -> `x >= min AND x <= max` in the engines' order ([`compare`]), which
/// admits every row the list admits. `None` (the list stays, and weakening leaves it out of
/// the scan) for a short list, a negated one, or a value that does not order against the
/// others (it does not coerce).
pub fn in_hull(leaf: &Leaf, info: &ColumnInfo) -> Option<Nnf> {
    let Leaf::In {
        column,
        list,
        negated: false,
    } = leaf
    else {
        return None;
    };
    if list.len() <= MAX_IN_LIST_EXPANSION {
        return None;
    }
    let values = list
        .iter()
        .map(|l| coerce(l, info).map(|v| (v, l)))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let (mut lo, mut hi) = (values.first()?, values.first()?);
    for v in &values[1..] {
        if compare(&v.0, &lo.0)?.is_lt() {
            lo = v;
        }
        if compare(&v.0, &hi.0)?.is_gt() {
            hi = v;
        }
    }
    Some(Nnf::and([
        leaf_cmp(column, CmpOp::GtEq, Some(lo.1.clone())),
        leaf_cmp(column, CmpOp::LtEq, Some(hi.1.clone())),
    ]))
}

/// Whether NaN rows (of either sign) can satisfy `leaf` on a float data column whatever its
/// recorded bounds say. Spark/DuckDB: NaN is above every number, so `>`, `>=`, `!=` hold for
/// it. DataFusion: a NaN with its sign bit set is below `-inf`, so `<`, `<=` hold for it too.
/// `=` and `IN` with numbers never hold for NaN, nor does `IS [NOT] NULL` decide by bounds.
pub fn nan_exposed(leaf: &Leaf, info: &ColumnInfo) -> bool {
    if info.is_partition || !info.is_float() {
        return false;
    }
    let is_nan =
        |l: &Literal| matches!(l, Literal::String(s) if s.trim().eq_ignore_ascii_case("nan"));
    match leaf {
        Leaf::Cmp {
            op: CmpOp::Gt | CmpOp::GtEq | CmpOp::Lt | CmpOp::LtEq | CmpOp::NotEq,
            ..
        } => true,
        Leaf::Cmp {
            op: CmpOp::Eq,
            literal,
            ..
        } => is_nan(literal),
        Leaf::In { negated: true, .. } => true,
        Leaf::In {
            list,
            negated: false,
            ..
        } => list.iter().any(is_nan),
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            false
        }
    }
}

fn nan_bounds(leaf: &Leaf, info: &ColumnInfo, strict: bool) -> Action {
    match (nan_exposed(leaf, info), strict) {
        (false, _) => Action::Pass,
        (true, false) => Action::Announce,
        (true, true) => Action::Exclude,
    }
}

/// A leaf's literal widened to `[lo, hi]`, both sides as literal text; `None` on a side that
/// cannot be represented in the column's type (that side then admits everything).
type Widening = (Option<Literal>, Option<Literal>);

fn leaf_cmp(column: &ColumnRef, op: CmpOp, literal: Option<Literal>) -> Nnf {
    match literal {
        Some(literal) => Nnf::Leaf(Leaf::Cmp {
            column: column.clone(),
            op,
            literal,
        }),
        None => Nnf::Const(true),
    }
}

/// Loosens a comparison whose column's recorded bounds may be off by up to the widening:
/// `x > L` -> `x > lo`, `x < L` -> `x < hi`, `x = L` -> `lo <= x <= hi`. `!=` and `NOT IN`
/// prune only when min = max = L, which a rounded bound cannot prove: they keep every file.
/// `widen` answers `None` for a literal that needs no widening.
fn loosen(leaf: &Leaf, widen: &dyn Fn(&Literal) -> Option<Widening>) -> Action {
    let eq = |column: &ColumnRef, (lo, hi): Widening| {
        Nnf::and([
            leaf_cmp(column, CmpOp::GtEq, lo),
            leaf_cmp(column, CmpOp::LtEq, hi),
        ])
    };
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => {
            let Some((lo, hi)) = widen(literal) else {
                return Action::Pass;
            };
            Action::Rewrite(match op {
                CmpOp::Gt | CmpOp::GtEq => leaf_cmp(column, *op, lo),
                CmpOp::Lt | CmpOp::LtEq => leaf_cmp(column, *op, hi),
                CmpOp::Eq => eq(column, (lo, hi)),
                CmpOp::NotEq => Nnf::Const(true),
            })
        }
        Leaf::In {
            column,
            list,
            negated: false,
        } => {
            if list.iter().all(|l| widen(l).is_none()) {
                return Action::Pass;
            }
            Action::Rewrite(Nnf::or(list.iter().map(|l| match widen(l) {
                Some(w) => eq(column, w),
                None => leaf_cmp(column, CmpOp::Eq, Some(l.clone())),
            })))
        }
        Leaf::In {
            list,
            negated: true,
            ..
        } => {
            if list.iter().all(|l| widen(l).is_none()) {
                Action::Pass
            } else {
                Action::Rewrite(Nnf::Const(true))
            }
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            Action::Pass
        }
    }
}

/// The distance between `x` (as an f32) and the next f32 away from zero; the largest finite
/// f32's distance to its predecessor beyond the f32 range.
fn f32_ulp(x: f64) -> f64 {
    let a = x.abs().min(f64::from(f32::MAX)) as f32;
    let next = a.next_up();
    f64::from(if next.is_finite() {
        next - a
    } else {
        a - a.next_down()
    })
}

fn f64_ulp(x: f64) -> f64 {
    let a = x.abs().min(f64::MAX);
    let next = a.next_up();
    if next.is_finite() {
        next - a
    } else {
        a - a.next_down()
    }
}

fn float_text(v: f64) -> Literal {
    Literal::Number(format!("{v:?}"))
}

/// Pitfall 7. A file written before the widening records its f32 bound as the shortest
/// decimal of the f32 (`3.4`), which read as a double sits within half an f32 ulp of the f32
/// value it stands for. A bound `b` with recorded `r <= L < b` has `b - r <= ulp32(b) / 2
/// <= ulp32(L)` (b lies at most one binade above L), so widening the literal by one f32 ulp of
/// its own magnitude (and one double ulp more for the subtraction's rounding) keeps every file
/// whose real bound admits the leaf.
fn float_widened(leaf: &Leaf, info: &ColumnInfo, _strict: bool) -> Action {
    if info.is_partition || !info.widened_from_float {
        return Action::Pass;
    }
    loosen(leaf, &|literal| {
        let Ok(Scalar::Double(v)) = coerce(literal, info) else {
            return None;
        };
        if !v.is_finite() {
            return None;
        }
        let w = f32_ulp(v);
        Some((
            Some(float_text((v - w).next_down())),
            Some(float_text((v + w).next_up())),
        ))
    })
}

/// Decimals of more precision than a double carries exactly (15 significant digits).
const DOUBLE_EXACT_DIGITS: u8 = 15;

/// Pitfall 23. delta-rs 1.6 writes a decimal bound as the nearest double: a recorded bound
/// `r` lies within half a double ulp of the real `b` (and the shortest decimal text of the
/// double within half an ulp more). Widening the literal by two double ulps of its magnitude,
/// rounded up to the column's scale, plus one unit of the scale (for a reader that rounds the
/// text to the scale), keeps every file whose real bound admits the leaf. Only columns of
/// precision above 15 can be rounded: below that the shortest text of the double is the
/// decimal itself.
fn decimal_rounded(leaf: &Leaf, info: &ColumnInfo, _strict: bool) -> Action {
    let Some(PrimitiveType::Decimal(dt)) = info.primitive() else {
        return Action::Pass;
    };
    if info.is_partition || dt.precision() <= DOUBLE_EXACT_DIGITS {
        return Action::Pass;
    }
    let (precision, scale) = (dt.precision(), dt.scale());
    loosen(leaf, &|literal| {
        let Ok(Scalar::Decimal(d)) = coerce(literal, info) else {
            return None;
        };
        let bits = d.bits();
        let unit = 10f64.powi(i32::from(scale));
        let magnitude = bits as f64 / unit;
        let ulps = (2.0 * f64_ulp(magnitude) * unit).ceil();
        let w = if ulps.is_finite() && ulps < 1e38 {
            ulps as i128 + 1
        } else {
            return Some((None, None));
        };
        let limit = 10i128.pow(u32::from(precision)) - 1;
        let side = |v: Option<i128>| {
            v.filter(|v| v.abs() <= limit)
                .map(|v| Literal::Number(decimal_text(v, scale)))
        };
        Some((side(bits.checked_sub(w)), side(bits.checked_add(w))))
    })
}

/// The old tie-breaker (U+FFFD) and every character it loses to in UTF-8 order.
const TIE_BREAKER: char = '\u{FFFD}';

/// Pitfall 24. An older Spark writer truncates the max to a prefix `P` and appends U+FFFD
/// when its UTF-16 comparison says U+FFFD beats the next character: a supplementary character
/// (a surrogate in UTF-16) loses there but wins in UTF-8, so the recorded max `P + U+FFFD` is
/// below a real max `P + c...`. Such a max hides a match of `x > L` / `x >= L` / `x = L` only
/// when `L` starts with `P` and continues with a character at or above U+FFFD. Cutting `L`
/// before its first such character gives `L'`, a prefix of `P`, so `L' <= P < P + U+FFFD`:
/// `x >= L'` keeps that file, and for any other file it is weaker than the leaf. `<`, `<=`,
/// `!=` read the min or both bounds equal, which the bug does not touch.
fn string_tie_breaker(leaf: &Leaf, info: &ColumnInfo, _strict: bool) -> Action {
    if info.is_partition || !info.is_string() {
        return Action::Pass;
    }
    let cut = |literal: &Literal| -> Option<String> {
        let Literal::String(s) = literal else {
            return None;
        };
        s.char_indices()
            .find(|(_, c)| *c >= TIE_BREAKER)
            .map(|(i, _)| s[..i].to_string())
    };
    let lower = |column: &ColumnRef, prefix: String| {
        leaf_cmp(column, CmpOp::GtEq, Some(Literal::String(prefix)))
    };
    match leaf {
        Leaf::Cmp {
            column,
            op: CmpOp::Gt | CmpOp::GtEq,
            literal,
        } => match cut(literal) {
            Some(prefix) => Action::Rewrite(lower(column, prefix)),
            None => Action::Pass,
        },
        Leaf::Cmp {
            column,
            op: CmpOp::Eq,
            literal,
        } => match cut(literal) {
            Some(prefix) => Action::Rewrite(Nnf::and([
                lower(column, prefix),
                leaf_cmp(column, CmpOp::LtEq, Some(literal.clone())),
            ])),
            None => Action::Pass,
        },
        Leaf::In {
            column,
            list,
            negated: false,
        } => {
            if list.iter().all(|l| cut(l).is_none()) {
                return Action::Pass;
            }
            Action::Rewrite(Nnf::or(list.iter().map(|l| match cut(l) {
                Some(prefix) => Nnf::and([
                    lower(column, prefix),
                    leaf_cmp(column, CmpOp::LtEq, Some(l.clone())),
                ]),
                None => leaf_cmp(column, CmpOp::Eq, Some(l.clone())),
            })))
        }
        Leaf::Cmp {
            op: CmpOp::Lt | CmpOp::LtEq | CmpOp::NotEq,
            ..
        }
        | Leaf::In { negated: true, .. }
        | Leaf::IsNull { .. }
        | Leaf::Bool { .. }
        | Leaf::Like { .. }
        | Leaf::Unsupported { .. } => Action::Pass,
    }
}

/// Pitfall 22. Engines compare `-0.0 = 0.0`; the kernel compares in total order (`-0.0 <
/// +0.0`) and a writer may record either zero as a bound (Parquet lets it store +0.0 for a
/// file holding -0.0). A zero literal stands for both zeros, so each comparison takes the
/// zero that keeps more, which is exact under the engines' semantics and independent of the
/// recorded sign: `x > 0` -> `x > +0.0`, `x >= 0` -> `x >= -0.0`, `x < 0` -> `x < -0.0`,
/// `x <= 0` -> `x <= +0.0`, `x = 0` -> `-0.0 <= x <= +0.0`, `x != 0` -> `x < -0.0 OR x > +0.0`;
/// in a `NOT IN` list a zero excludes no zero (DataFusion's lists compare in total order).
/// Partition columns too: the kernel's partition pruning compares `-0` with `0` in total order.
fn signed_zero(leaf: &Leaf, info: &ColumnInfo, _strict: bool) -> Action {
    if !info.is_float() {
        return Action::Pass;
    }
    let is_zero = |l: &Literal| {
        matches!(coerce(l, info), Ok(Scalar::Double(v)) if v == 0.0)
            || matches!(coerce(l, info), Ok(Scalar::Float(v)) if v == 0.0)
    };
    let neg = || Some(Literal::Number("-0.0".into()));
    let pos = || Some(Literal::Number("0.0".into()));
    let rewrite = |column: &ColumnRef, op: CmpOp| match op {
        CmpOp::Gt => leaf_cmp(column, CmpOp::Gt, pos()),
        CmpOp::GtEq => leaf_cmp(column, CmpOp::GtEq, neg()),
        CmpOp::Lt => leaf_cmp(column, CmpOp::Lt, neg()),
        CmpOp::LtEq => leaf_cmp(column, CmpOp::LtEq, pos()),
        CmpOp::Eq => Nnf::and([
            leaf_cmp(column, CmpOp::GtEq, neg()),
            leaf_cmp(column, CmpOp::LtEq, pos()),
        ]),
        CmpOp::NotEq => Nnf::or([
            leaf_cmp(column, CmpOp::Lt, neg()),
            leaf_cmp(column, CmpOp::Gt, pos()),
        ]),
    };
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } if is_zero(literal) => Action::Rewrite(rewrite(column, *op)),
        Leaf::In {
            column,
            list,
            negated,
        } if list.iter().any(is_zero) => {
            // DataFusion's IN lists compare floats in total order (unlike its `=`): there
            // `-0.0 NOT IN (0)` holds, where Spark and DuckDB say the zeros are equal. A zero
            // item of a NOT IN list therefore excludes no zero (the union of the readings);
            // of an IN list it admits both.
            let op = if *negated { CmpOp::NotEq } else { CmpOp::Eq };
            let items = list.iter().map(|l| {
                if is_zero(l) {
                    if *negated {
                        Nnf::Const(true)
                    } else {
                        rewrite(column, op)
                    }
                } else {
                    leaf_cmp(column, op, Some(l.clone()))
                }
            });
            Action::Rewrite(if *negated {
                Nnf::and(items.collect::<Vec<_>>())
            } else {
                Nnf::or(items.collect::<Vec<_>>())
            })
        }
        Leaf::Cmp { .. }
        | Leaf::In { .. }
        | Leaf::IsNull { .. }
        | Leaf::Bool { .. }
        | Leaf::Like { .. }
        | Leaf::Unsupported { .. } => Action::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_renders_at_scale() {
        for (bits, scale, text) in [
            (12345, 2, "123.45"),
            (-5, 3, "-0.005"),
            (7, 0, "7"),
            (0, 2, "0.00"),
        ] {
            assert_eq!(decimal_text(bits, scale), text, "{bits} at scale {scale}");
        }
    }

    #[test]
    fn ulps_cover_the_rounding_they_stand_for() {
        let v = 3.4000000953674316f64;
        assert!(
            (3.4 - v).abs() <= f32_ulp(3.4),
            "f32 stat 3.4 within one f32 ulp of its value"
        );
        assert!(f32_ulp(1e300) > 0.0 && f32_ulp(1e300).is_finite());
        assert!(f64_ulp(1.0) == f64::EPSILON);
        assert!(f32_ulp(0.0) > 0.0);
    }
}
