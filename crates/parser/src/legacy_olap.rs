//! Teradata's own (pre-ANSI) ordered analytical functions, written as the ANSI window
//! functions Teradata documents as their equivalents:
//!
//! | Teradata | ANSI form |
//! |---|---|
//! | `CSUM(v, s…)` | `SUM(v) OVER (ORDER BY s… ROWS UNBOUNDED PRECEDING)` |
//! | `MSUM(v, n, s…)`, `MAVG(v, n, s…)` | `SUM(v)`/`AVG(v) OVER (ORDER BY s… ROWS n-1 PRECEDING)` |
//! | `MDIFF(v, n, s…)` | `v - LAG(v, n) OVER (ORDER BY s…)` |
//! | `RANK(s…)` | `RANK() OVER (ORDER BY s…)`, each sort DESC unless it says ASC |
//! | `QUANTILE(q, s…)` | `(RANK() OVER (ORDER BY s…) - 1) * q / COUNT(*) OVER ()` |
//!
//! Two steps: `rewrite` turns the calls into the ANSI tokens before sqlparser reads them,
//! marking each window with the name [`LEGACY_WINDOW`]; `group_by_partitions` then applies
//! Teradata's rule that in a query with these functions (and no aggregate), GROUP BY does not
//! aggregate but partitions them (`PARTITION BY` the GROUP BY items), and removes the marks.
//!
//! Invariant: only a call whose name is one of these, directly followed by `(`, with the
//! argument count its form needs, is rewritten; `RANK()` (the ANSI one, empty parentheses) and
//! anything else is left to sqlparser.

use sqlparser::ast::{
    Expr, GroupByExpr, Query, Select, SelectItem, SetExpr, Value, Visit, VisitMut, Visitor,
    VisitorMut, WindowType,
};
use sqlparser::tokenizer::{Span, Token, TokenWithSpan};
use std::ops::ControlFlow;

use crate::parser::unquoted_upper;

/// The window name that marks a rewritten call until `group_by_partitions` removes it.
pub const LEGACY_WINDOW: &str = "\u{1}tdlite legacy";

/// The top-level arguments of the call whose `(` is at `open`: token ranges, and the index of
/// the `)`. `None` if the parentheses do not close.
fn arguments(toks: &[TokenWithSpan], open: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut start = open + 1;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    if i > start {
                        args.push((start, i));
                    }
                    return Some((args, i));
                }
            }
            Token::Comma if depth == 1 => {
                args.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// True if a legacy call (`CSUM(`, `RANK(`, …, not after a `.`) starts at `k`.
fn is_legacy_call(toks: &[TokenWithSpan], k: usize) -> bool {
    let after_period = k > 0 && toks[k - 1].token == Token::Period;
    !after_period
        && matches!(
            unquoted_upper(&toks[k].token).as_deref(),
            Some("CSUM" | "MSUM" | "MAVG" | "MDIFF" | "RANK" | "QUANTILE")
        )
        && toks.get(k + 1).map(|t| &t.token) == Some(&Token::LParen)
}

/// Rewrites the legacy calls in `toks` into ANSI window functions (see the module doc).
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        if !is_legacy_call(toks, i) {
            i += 1;
            continue;
        }
        let name = unquoted_upper(&toks[i].token);
        let Some((args, close)) = arguments(toks, i + 1) else {
            return;
        };
        // Teradata allows no ordered analytical function inside another one's arguments; left
        // alone, such a call is an unknown function's error (and MDIFF, which writes its value
        // twice, cannot grow the request exponentially)
        if (i + 2..close).any(|k| is_legacy_call(toks, k)) {
            i = close + 1;
            continue;
        }
        let span = toks[i].span;
        let slice = |(a, b): (usize, usize)| toks[a..b].to_vec();
        let replacement = match (name.as_deref(), args.as_slice()) {
            (Some("CSUM"), [v, sorts @ ..]) if !sorts.is_empty() => Some(window(
                "SUM",
                vec![slice(*v)],
                sorts.iter().map(|s| slice(*s)).collect(),
                Some(Frame::Unbounded),
                false,
                span,
            )),
            (Some(f @ ("MSUM" | "MAVG")), [v, n, sorts @ ..]) if !sorts.is_empty() => {
                width(&toks[n.0..n.1]).map(|n| {
                    window(
                        if f == "MSUM" { "SUM" } else { "AVG" },
                        vec![slice(*v)],
                        sorts.iter().map(|s| slice(*s)).collect(),
                        Some(Frame::Preceding(n - 1)),
                        false,
                        span,
                    )
                })
            }
            (Some("MDIFF"), [v, n, sorts @ ..]) if !sorts.is_empty() => {
                width(&toks[n.0..n.1]).map(|n| {
                    let lag = window(
                        "LAG",
                        vec![
                            slice(*v),
                            vec![at(Token::Number(n.to_string(), false), span)],
                        ],
                        sorts.iter().map(|s| slice(*s)).collect(),
                        None,
                        false,
                        span,
                    );
                    let mut out = vec![at(Token::LParen, span), at(Token::LParen, span)];
                    out.extend(slice(*v));
                    out.extend([at(Token::RParen, span), at(Token::Minus, span)]);
                    out.extend(lag);
                    out.push(at(Token::RParen, span));
                    out
                })
            }
            (Some("RANK"), sorts) if !sorts.is_empty() => Some(window(
                "RANK",
                Vec::new(),
                sorts.iter().map(|s| slice(*s)).collect(),
                None,
                true,
                span,
            )),
            (Some("QUANTILE"), [q, sorts @ ..]) if !sorts.is_empty() => {
                let rank = window(
                    "RANK",
                    Vec::new(),
                    sorts.iter().map(|s| slice(*s)).collect(),
                    None,
                    false,
                    span,
                );
                let count = window(
                    "COUNT",
                    vec![vec![at(Token::Mul, span)]],
                    Vec::new(),
                    None,
                    false,
                    span,
                );
                let mut out = vec![at(Token::LParen, span), at(Token::LParen, span)];
                out.extend(rank);
                out.extend([
                    at(Token::Minus, span),
                    at(Token::Number("1".into(), false), span),
                    at(Token::RParen, span),
                    at(Token::Mul, span),
                    at(Token::LParen, span),
                ]);
                out.extend(slice(*q));
                // the count as INTEGER: an ANSI session's COUNT is DECIMAL(15,0), whose
                // division would round where QUANTILE's truncates
                out.extend([
                    at(Token::RParen, span),
                    at(Token::Div, span),
                    at(Token::make_keyword("CAST"), span),
                    at(Token::LParen, span),
                ]);
                out.extend(count);
                out.extend([
                    at(Token::make_keyword("AS"), span),
                    at(Token::make_keyword("INTEGER"), span),
                    at(Token::RParen, span),
                    at(Token::RParen, span),
                ]);
                Some(out)
            }
            _ => None,
        };
        match replacement {
            Some(mut tokens) => {
                if is_whole_item(toks, i, close) {
                    // the heading stays the call as written (`CSUM(1,id)`), not its rewrite
                    tokens.extend(title(&toks[i..=close], span));
                }
                let n = tokens.len();
                toks.splice(i..=close, tokens);
                // the arguments may hold more legacy calls: look at them again
                i += n;
            }
            None => i += 1,
        }
    }
}

/// True if the call from `start` to `close` is a whole select item without an alias: after
/// SELECT, DISTINCT, `TOP n` or a comma, and before a comma, FROM or the end.
fn is_whole_item(toks: &[TokenWithSpan], start: usize, close: usize) -> bool {
    let before = start
        .checked_sub(1)
        .map(|b| (unquoted_upper(&toks[b].token), &toks[b].token));
    let opens = match before {
        Some((Some(w), _)) => matches!(w.as_str(), "SELECT" | "SEL" | "DISTINCT"),
        Some((None, Token::Comma)) => true,
        // `TOP n`
        Some((None, Token::Number(..))) => {
            start >= 2 && unquoted_upper(&toks[start - 2].token).as_deref() == Some("TOP")
        }
        _ => false,
    };
    let closes = match toks.get(close + 1) {
        None => true,
        Some(t) => {
            matches!(t.token, Token::Comma | Token::SemiColon)
                || unquoted_upper(&t.token).as_deref() == Some("FROM")
        }
    };
    opens && closes
}

/// `(TITLE 'the call as written')`, for the heading.
fn title(call: &[TokenWithSpan], span: Span) -> [TokenWithSpan; 4] {
    let mut text = String::new();
    let mut last_word = false;
    for t in call {
        let is_word = matches!(t.token, Token::Word(_) | Token::Number(..));
        if is_word && last_word {
            text.push(' ');
        }
        text.push_str(&t.token.to_string());
        last_word = is_word;
    }
    [
        at(Token::LParen, span),
        word("TITLE", span),
        at(Token::SingleQuotedString(text), span),
        at(Token::RParen, span),
    ]
}

/// A frame for `window`.
enum Frame {
    /// `ROWS UNBOUNDED PRECEDING`.
    Unbounded,
    /// `ROWS n PRECEDING`.
    Preceding(u64),
}

/// A moving function's width: a whole number from 1 to 4096, as Teradata allows.
fn width(toks: &[TokenWithSpan]) -> Option<u64> {
    match toks {
        [t] => match &t.token {
            Token::Number(n, _) => n.parse().ok().filter(|n| (1..=4096).contains(n)),
            _ => None,
        },
        _ => None,
    }
}

fn at(token: Token, span: Span) -> TokenWithSpan {
    TokenWithSpan { token, span }
}

fn word(w: &str, span: Span) -> TokenWithSpan {
    at(Token::make_word(w, None), span)
}

/// `f(args) OVER ("legacy" ORDER BY sorts [frame])`; with `descending`, a sort without ASC or
/// DESC gets DESC (RANK's default).
fn window(
    f: &str,
    args: Vec<Vec<TokenWithSpan>>,
    sorts: Vec<Vec<TokenWithSpan>>,
    frame: Option<Frame>,
    descending: bool,
    span: Span,
) -> Vec<TokenWithSpan> {
    let mut out = vec![word(f, span), at(Token::LParen, span)];
    for (k, a) in args.into_iter().enumerate() {
        if k > 0 {
            out.push(at(Token::Comma, span));
        }
        out.extend(a);
    }
    out.extend([
        at(Token::RParen, span),
        word("OVER", span),
        at(Token::LParen, span),
        at(Token::make_word(LEGACY_WINDOW, Some('"')), span),
    ]);
    if !sorts.is_empty() {
        out.extend([word("ORDER", span), word("BY", span)]);
        for (k, mut s) in sorts.into_iter().enumerate() {
            if k > 0 {
                out.push(at(Token::Comma, span));
            }
            let ordered = s
                .last()
                .and_then(|t| unquoted_upper(&t.token))
                .is_some_and(|w| w == "ASC" || w == "DESC");
            if descending && !ordered {
                s.push(word("DESC", span));
            }
            out.extend(s);
        }
    }
    match frame {
        Some(Frame::Unbounded) => out.extend([
            word("ROWS", span),
            word("UNBOUNDED", span),
            word("PRECEDING", span),
        ]),
        Some(Frame::Preceding(n)) => out.extend([
            word("ROWS", span),
            at(Token::Number(n.to_string(), false), span),
            word("PRECEDING", span),
        ]),
        None => {}
    }
    out.push(at(Token::RParen, span));
    out
}

/// Applies GROUP BY to the legacy windows of every query in `stmt` (see the module doc) and
/// removes their marks.
pub(crate) fn group_by_partitions<V: VisitMut>(stmt: &mut V) {
    struct Partitioner;
    impl VisitorMut for Partitioner {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
            each_select(&mut q.body);
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if let Some(spec) = legacy_spec(e) {
                spec.window_name = None;
            }
            ControlFlow::Continue(())
        }
    }
    let _ = stmt.visit(&mut Partitioner);
}

/// `partition` for every SELECT of a query body (both sides of a UNION …).
fn each_select(body: &mut SetExpr) {
    match body {
        SetExpr::Select(s) => partition(s),
        SetExpr::SetOperation { left, right, .. } => {
            each_select(left);
            each_select(right);
        }
        _ => {}
    }
}

/// The aggregate functions (as the binder knows them): a query with one of them outside a
/// window keeps its GROUP BY. exec's `bind::agg_func` is tested against this list.
pub const AGGREGATES: [&str; 18] = [
    "COUNT",
    "SUM",
    "AVG",
    "AVERAGE",
    "MIN",
    "MINIMUM",
    "MAX",
    "MAXIMUM",
    "STDDEV_SAMP",
    "STDDEV_POP",
    "VAR_SAMP",
    "VAR_POP",
    "MEDIAN",
    "PERCENTILE_CONT",
    "PERCENTILE_DISC",
    "SKEW",
    "KURTOSIS",
    "XMLAGG",
];

/// What one SELECT's own expressions (not its subqueries') call: a legacy window, an aggregate.
#[derive(Default)]
struct Looker {
    depth: usize,
    has_legacy: bool,
    has_aggregate: bool,
}

impl Visitor for Looker {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, x: &Expr) -> ControlFlow<()> {
        if let (0, Expr::Function(f)) = (self.depth, x) {
            let name = f.name.to_string().to_ascii_uppercase();
            match &f.over {
                Some(WindowType::WindowSpec(spec))
                    if spec.window_name.as_ref().map(|n| n.value.as_str())
                        == Some(LEGACY_WINDOW) =>
                {
                    self.has_legacy = true
                }
                None if AGGREGATES.contains(&name.as_str()) => self.has_aggregate = true,
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }
}

/// The window spec of a call marked as legacy.
fn legacy_spec(e: &mut Expr) -> Option<&mut sqlparser::ast::WindowSpec> {
    let Expr::Function(f) = e else { return None };
    match &mut f.over {
        Some(WindowType::WindowSpec(spec))
            if spec.window_name.as_ref().map(|n| n.value.as_str()) == Some(LEGACY_WINDOW) =>
        {
            Some(spec)
        }
        _ => None,
    }
}

/// One SELECT: with a legacy window and no aggregate outside a window, GROUP BY's items (a
/// position names a select item) become the legacy windows' PARTITION BY, and GROUP BY goes.
fn partition(s: &mut Select) {
    let GroupByExpr::Expressions(items, modifiers) = &s.group_by else {
        return;
    };
    if items.is_empty() || !modifiers.is_empty() {
        return;
    }
    let mut looker = Looker::default();
    for item in &s.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let _ = e.visit(&mut looker);
        }
    }
    for e in s.qualify.iter().chain(&s.having) {
        let _ = e.visit(&mut looker);
    }
    let Looker {
        has_legacy,
        has_aggregate,
        ..
    } = looker;
    if !has_legacy || has_aggregate {
        return;
    }
    let keys: Vec<Expr> = items
        .iter()
        .map(|k| match k {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => {
                    n.parse::<usize>()
                        .ok()
                        .and_then(|p| s.projection.get(p.wrapping_sub(1)))
                        .and_then(|item| match item {
                            SelectItem::UnnamedExpr(e)
                            | SelectItem::ExprWithAlias { expr: e, .. } => Some(e.clone()),
                            _ => None,
                        })
                        .unwrap_or_else(|| k.clone())
                }
                _ => k.clone(),
            },
            _ => k.clone(),
        })
        .collect();
    // a subquery's windows are its own: only depth 0 is this query's
    struct SetPartitions<'a>(&'a [Expr], usize);
    impl VisitorMut for SetPartitions<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
            self.1 += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
            self.1 -= 1;
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if self.1 == 0 {
                if let Some(spec) = legacy_spec(e) {
                    spec.partition_by = self.0.to_vec();
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut setter = SetPartitions(&keys, 0);
    for item in &mut s.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let _ = e.visit(&mut setter);
        }
    }
    if let Some(q) = &mut s.qualify {
        let _ = q.visit(&mut setter);
    }
    s.group_by = GroupByExpr::Expressions(Vec::new(), Vec::new());
}
