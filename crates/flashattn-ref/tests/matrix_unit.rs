//! The matrix-unit model against the device: every output of a slice of the trials the H200
//! computed in docs/benchmarks/2026-11-28-h200-accumulation.md (calls FT and FY; mma.sync and
//! wgmma; f16 and bf16 inputs, all positive and with mixed signs; f16 inputs a third subnormal,
//! in trials where aligning a subnormal at its own exponent would miss), bit for bit.
use flashattn_ref::matrix_unit::{Input, dot_accumulate};
use half::{bf16, f16};

struct Trial {
    input: Input,
    m: usize,
    n: usize,
    k: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    d: Vec<f32>,
}

fn read_trials(mut bytes: &[u8]) -> Vec<Trial> {
    fn take<'a>(bytes: &mut &'a [u8], len: usize) -> &'a [u8] {
        let (head, rest) = bytes.split_at(len);
        *bytes = rest;
        head
    }
    let halves = |s: &[u8], input: Input| -> Vec<f32> {
        s.chunks(2)
            .map(|w| {
                let bytes = w.try_into().unwrap();
                match input {
                    Input::F16 => f16::from_le_bytes(bytes).to_f32(),
                    Input::Bf16 => bf16::from_le_bytes(bytes).to_f32(),
                }
            })
            .collect()
    };
    let floats = |s: &[u8]| -> Vec<f32> {
        s.chunks(4)
            .map(|w| f32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    let mut trials = Vec::new();
    while !bytes.is_empty() {
        let header: Vec<usize> = take(&mut bytes, 16)
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()) as usize)
            .collect();
        let (m, n, k) = (header[0], header[1], header[2]);
        let input = [Input::F16, Input::Bf16][header[3]];
        trials.push(Trial {
            input,
            m,
            n,
            k,
            a: halves(take(&mut bytes, m * k * 2), input),
            b: halves(take(&mut bytes, n * k * 2), input),
            c: floats(take(&mut bytes, m * n * 4)),
            d: floats(take(&mut bytes, m * n * 4)),
        });
    }
    trials
}

#[test]
fn matches_the_h200_bit_for_bit() {
    let trials = read_trials(include_bytes!("data/matrix_unit_h200.bin"));
    assert_eq!(trials.len(), 5 * 7);
    let mut outputs = 0;
    for (t, trial) in trials.iter().enumerate() {
        let Trial { m, n, k, .. } = *trial;
        for i in 0..m {
            for j in 0..n {
                let got = dot_accumulate(
                    trial.input,
                    trial.c[i * n + j],
                    &trial.a[i * k..(i + 1) * k],
                    &trial.b[j * k..(j + 1) * k],
                );
                let want = trial.d[i * n + j];
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "trial {t} ({:?} m{m}n{n}k{k}) output [{i}, {j}]: model {got:e}, device {want:e}",
                    trial.input
                );
                outputs += 1;
            }
        }
    }
    assert_eq!(outputs, 5 * (6 * 256 + 8 * 64));
}
