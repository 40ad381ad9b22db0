//! The way back from a failure's one-line reproducer ([`Case::reproducer`]) to the [`Case`], so
//! that `flashattn-fuzz --replay LINE` reruns exactly the case a run printed, without drawing
//! the cases before it or shrinking again.
//!
//! The line is `key=value` pairs; the values are Rust's `Debug` forms of the case's fields
//! (`Some(221)`, `Geometric { first: 0.25, ratio: 0.25 }`, `Id(24)`), which print every `f32`
//! so that it reads back to the same bits. [`parse_case`] reads them with a small parser of
//! that syntax and then maps each key onto its field.

use flashattn::{AttentionParams, DType, KernelChoice, MaskAlignment, Window};

use crate::harness::{Case, HeadVector, Inputs, Layout};

/// A `Debug` value: a word or number, a tuple `(a, b)`, a call `Name(a)` or a struct
/// `Name { field: a }`.
#[derive(Debug, PartialEq)]
enum Value {
    Word(String),
    Text(String),
    Tuple(Vec<Value>),
    Call(String, Vec<Value>),
    Struct(String, Vec<(String, Value)>),
}

struct Parser<'a> {
    rest: &'a str,
}

impl<'a> Parser<'a> {
    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected `{c}` at `{}`", preview(self.rest)))
        }
    }

    /// A run of letters, digits, `_`, `.`, `-` and `+`: names and numbers (`-inf`, `1e-5`).
    fn word(&mut self) -> Result<String, String> {
        self.skip_spaces();
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-+".contains(c)))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(format!(
                "expected a name or number at `{}`",
                preview(self.rest)
            ));
        }
        let (w, r) = self.rest.split_at(end);
        self.rest = r;
        Ok(w.to_string())
    }

    /// Values separated by commas up to `close`.
    fn list(&mut self, close: char) -> Result<Vec<Value>, String> {
        let mut items = Vec::new();
        while !self.eat(close) {
            if !items.is_empty() {
                self.expect(',')?;
            }
            items.push(self.value()?);
        }
        Ok(items)
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_spaces();
        if self.eat('(') {
            return Ok(Value::Tuple(self.list(')')?));
        }
        if self.eat('"') {
            let end = self.rest.find('"').ok_or("unterminated string")?;
            let text = self.rest[..end].to_string();
            self.rest = &self.rest[end + 1..];
            return Ok(Value::Text(text));
        }
        let name = self.word()?;
        if self.eat('(') {
            return Ok(Value::Call(name, self.list(')')?));
        }
        if self.eat('{') {
            let mut fields = Vec::new();
            while !self.eat('}') {
                if !fields.is_empty() {
                    self.expect(',')?;
                }
                let field = self.word()?;
                self.expect(':')?;
                fields.push((field, self.value()?));
            }
            return Ok(Value::Struct(name, fields));
        }
        Ok(Value::Word(name))
    }
}

/// The first 24 characters of what is left to parse, for an error message.
fn preview(s: &str) -> &str {
    &s[..s.char_indices().nth(24).map_or(s.len(), |(i, _)| i)]
}

fn number<T: std::str::FromStr>(v: &Value) -> Result<T, String> {
    match v {
        Value::Word(w) => w
            .parse()
            .map_err(|_| format!("`{w}` is not a number of this kind")),
        other => Err(format!("expected a number, got {other:?}")),
    }
}

fn option<T>(v: &Value, inner: impl Fn(&Value) -> Result<T, String>) -> Result<Option<T>, String> {
    match v {
        Value::Word(w) if w == "None" => Ok(None),
        Value::Call(name, args) if name == "Some" && args.len() == 1 => inner(&args[0]).map(Some),
        other => Err(format!("expected None or Some(..), got {other:?}")),
    }
}

/// The fields of a struct value, in the order `names` gives them.
fn fields<'v, const N: usize>(
    fields: &'v [(String, Value)],
    names: [&str; N],
) -> Result<[&'v Value; N], String> {
    let found = names
        .iter()
        .map(|name| {
            fields
                .iter()
                .find(|(f, _)| f == name)
                .map(|(_, v)| v)
                .ok_or(format!("missing field `{name}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(found.try_into().expect("one value per name"))
}

fn layout(v: &Value) -> Result<Layout, String> {
    match v {
        Value::Word(w) if w == "Bshd" => Ok(Layout::Bshd),
        Value::Word(w) if w == "Bhsd" => Ok(Layout::Bhsd),
        Value::Word(w) if w == "BatchBroadcast" => Ok(Layout::BatchBroadcast),
        Value::Struct(n, f) if n == "Padded" => {
            let [head_gap, row_gap] = fields(f, ["head_gap", "row_gap"])?;
            Ok(Layout::Padded {
                head_gap: number(head_gap)?,
                row_gap: number(row_gap)?,
            })
        }
        other => Err(format!("not a layout: {other:?}")),
    }
}

fn head_vector(v: &Value) -> Result<HeadVector, String> {
    match v {
        Value::Struct(n, f) if n == "Geometric" => {
            let [first, ratio] = fields(f, ["first", "ratio"])?;
            Ok(HeadVector::Geometric {
                first: number(first)?,
                ratio: number(ratio)?,
            })
        }
        Value::Struct(n, f) if n == "Spread" => {
            let [lo, hi] = fields(f, ["lo", "hi"])?;
            Ok(HeadVector::Spread {
                lo: number(lo)?,
                hi: number(hi)?,
            })
        }
        Value::Call(n, args) if n == "Constant" && args.len() == 1 => {
            Ok(HeadVector::Constant(number(&args[0])?))
        }
        other => Err(format!("not a head vector: {other:?}")),
    }
}

fn inputs(v: &Value) -> Result<Inputs, String> {
    match v {
        Value::Struct(n, f) if n == "Normal" => {
            let [std] = fields(f, ["std"])?;
            Ok(Inputs::Normal { std: number(std)? })
        }
        Value::Struct(n, f) if n == "LargeRows" => {
            let [std, factor] = fields(f, ["std", "factor"])?;
            Ok(Inputs::LargeRows {
                std: number(std)?,
                factor: number(factor)?,
            })
        }
        Value::Word(w) if w == "ConstantRows" => Ok(Inputs::ConstantRows),
        Value::Struct(n, f) if n == "TiedMax" => {
            let [std] = fields(f, ["std"])?;
            Ok(Inputs::TiedMax { std: number(std)? })
        }
        Value::Struct(n, f) if n == "Drift" => {
            let [per_key] = fields(f, ["per_key"])?;
            Ok(Inputs::Drift {
                per_key: number(per_key)?,
            })
        }
        other => Err(format!("not an input distribution: {other:?}")),
    }
}

fn kernel(v: &Value) -> Result<KernelChoice, String> {
    match v {
        Value::Word(w) if w == "Auto" => Ok(KernelChoice::Auto),
        Value::Call(n, args) if n == "Id" && args.len() == 1 => {
            Ok(KernelChoice::Id(number(&args[0])?))
        }
        Value::Call(n, args) if n == "Named" && args.len() == 1 => match &args[0] {
            Value::Text(name) => Ok(KernelChoice::Named(name.clone())),
            other => Err(format!("not a configuration name: {other:?}")),
        },
        other => Err(format!("not a kernel choice: {other:?}")),
    }
}

/// The case a [`Case::reproducer`] line describes. Every key must be there once, but for
/// `workspace`, which a line has only where it is true; unknown keys are an error (a line from
/// another version of the fuzzer should not half-parse).
pub fn parse_case(line: &str) -> Result<Case, String> {
    const KEYS: [&str; 23] = [
        "dtype",
        "B",
        "Sq",
        "Sk",
        "Hq",
        "Hkv",
        "D",
        "causal",
        "window",
        "alignment",
        "softcap",
        "alibi",
        "sinks",
        "scale",
        "kernel",
        "q_layout",
        "kv_layout",
        "v_layout",
        "o_layout",
        "inputs",
        "seed",
        "lse",
        "workspace",
    ];
    let mut parser = Parser { rest: line.trim() };
    let mut values: Vec<(String, Value)> = Vec::new();
    loop {
        parser.skip_spaces();
        if parser.rest.is_empty() {
            break;
        }
        let key = parser.word()?;
        parser.expect('=')?;
        if values.iter().any(|(k, _)| *k == key) {
            return Err(format!("`{key}` given twice"));
        }
        if !KEYS.contains(&key.as_str()) {
            return Err(format!("unknown key `{key}`"));
        }
        values.push((key, parser.value()?));
    }
    let get = |key: &str| -> Result<&Value, String> {
        values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .ok_or(format!("missing `{key}=`"))
    };
    let boolean = |key: &str| -> Result<bool, String> { number(get(key)?) };
    let dtype = match get("dtype")? {
        Value::Word(w) if w == "f16" => DType::F16,
        Value::Word(w) if w == "bf16" => DType::BF16,
        other => return Err(format!("not a dtype: {other:?}")),
    };
    let window = match get("window")? {
        Value::Tuple(sides) if sides.len() == 2 => {
            Window::new(option(&sides[0], number)?, option(&sides[1], number)?)
        }
        other => return Err(format!("window: expected (left, right), got {other:?}")),
    };
    let alignment = match get("alignment")? {
        Value::Word(w) if w == "BottomRight" => MaskAlignment::BottomRight,
        Value::Word(w) if w == "TopLeft" => MaskAlignment::TopLeft,
        other => return Err(format!("not an alignment: {other:?}")),
    };
    let params = AttentionParams {
        batch: number(get("B")?)?,
        seqlen_q: number(get("Sq")?)?,
        seqlen_k: number(get("Sk")?)?,
        heads_q: number(get("Hq")?)?,
        heads_kv: number(get("Hkv")?)?,
        head_dim: number(get("D")?)?,
        causal: boolean("causal")?,
        window,
        alignment,
        softcap: option(get("softcap")?, number)?,
        softmax_scale: option(get("scale")?, number)?,
        kernel: kernel(get("kernel")?)?,
    };
    Ok(Case {
        dtype,
        params,
        q_layout: layout(get("q_layout")?)?,
        kv_layout: layout(get("kv_layout")?)?,
        v_layout: option(get("v_layout")?, layout)?,
        o_layout: option(get("o_layout")?, layout)?,
        inputs: inputs(get("inputs")?)?,
        seed: number(get("seed")?)?,
        with_lse: boolean("lse")?,
        alibi: option(get("alibi")?, head_vector)?,
        sinks: option(get("sinks")?, head_vector)?,
        workspace: match get("workspace") {
            Ok(v) => number(v)?,
            Err(_) => false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_printed_line() {
        let line = "dtype=f16 B=2 Sq=414 Sk=194 Hq=6 Hkv=6 D=256 causal=false window=(None, None) \
                    alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) \
                    sinks=None scale=Some(1.8894372) kernel=Auto q_layout=Bshd kv_layout=Bshd \
                    v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=false";
        let case = parse_case(line).unwrap();
        assert_eq!(
            case.reproducer(),
            line.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert_eq!(case.params.softmax_scale, Some(1.8894372));
        assert_eq!(case.seed, 14545577712631101961);
        assert!(!case.workspace);
        let with_workspace = format!("{line} workspace=true");
        let case = parse_case(&with_workspace).unwrap();
        assert!(case.workspace);
        assert_eq!(
            case.reproducer(),
            with_workspace
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
        let named =
            parse_case(&line.replace("kernel=Auto", r#"kernel=Named("sm80_f16_d256_m64n64w4s1")"#));
        assert_eq!(
            named.unwrap().params.kernel,
            KernelChoice::Named("sm80_f16_d256_m64n64w4s1".into())
        );
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let good = Case::new(DType::BF16, AttentionParams::new(1, 7, 7, 2, 64), 3).reproducer();
        assert!(parse_case(&good).is_ok());
        for (bad, why) in [
            (good.replace("B=1", "B=one"), "number"),
            (good.replace(" seed=3", ""), "missing `seed=`"),
            (format!("{good} extra=1"), "unknown key `extra`"),
            (format!("{good} D=64"), "given twice"),
            (good.replace("kernel=Auto", "kernel=Id(x)"), "number"),
            (
                good.replace("window=(None, None)", "window=(None"),
                "expected",
            ),
        ] {
            let err = parse_case(&bad).expect_err(&bad);
            assert!(err.contains(why), "`{bad}`: {err}");
        }
    }
}
