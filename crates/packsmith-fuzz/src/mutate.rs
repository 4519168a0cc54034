//! Structure-aware mutations of a seed: byte flips, splices between
//! seeds, duplicated tokens, the target's own keywords, deep nesting, long
//! lines, NUL bytes and invalid UTF-8. Each mutation keeps the input under
//! a size cap so one input cannot starve the run.

use crate::rng::Rng;

/// What a mutator knows of a target's language.
#[derive(Debug, Clone, Copy)]
pub struct Grammar {
    /// Keywords and fragments worth inserting (`add_subdirectory(sub)`).
    pub dict: &'static [&'static str],
    /// An opening and closing pair the language nests (`(`, `)`).
    pub open: &'static str,
    pub close: &'static str,
}

/// Bytes that end or start tokens in most of the languages read.
const INTERESTING: &[u8] = b"\0\n\r\t \"'`\\$#{}[]()<>=,:;@%^~+-*/.!?|&\x7f\xff";

/// Invalid UTF-8: a lone continuation byte, a truncated 3-byte sequence,
/// an overlong encoding, a surrogate, bytes that never occur.
const BAD_UTF8: &[&[u8]] = &[
    b"\x80",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xfe\xff",
    b"\xf4\x90\x80\x80",
];

/// Applies 1–8 random mutations to `input`; `seeds` feed splices.
pub fn mutate(
    rng: &mut Rng,
    input: &mut Vec<u8>,
    seeds: &[Vec<u8>],
    grammar: &Grammar,
    max_len: usize,
) {
    let rounds = rng.small(8);
    for _ in 0..rounds {
        match rng.below(13) {
            0 => flip_bit(rng, input),
            1 => set_interesting(rng, input),
            2 => insert_interesting(rng, input),
            3 => delete_range(rng, input),
            4 => duplicate_range(rng, input),
            5 => splice(rng, input, seeds),
            6 | 7 => insert_token(rng, input, grammar),
            8 => duplicate_token(rng, input),
            9 => nest(rng, input, grammar, max_len),
            10 => insert_bad_utf8(rng, input),
            11 => long_line(rng, input, max_len),
            _ => swap_lines(rng, input),
        }
        input.truncate(max_len);
    }
}

fn flip_bit(rng: &mut Rng, input: &mut [u8]) {
    if input.is_empty() {
        return;
    }
    let i = rng.below(input.len());
    input[i] ^= 1 << rng.below(8);
}

fn set_interesting(rng: &mut Rng, input: &mut [u8]) {
    if input.is_empty() {
        return;
    }
    let i = rng.below(input.len());
    input[i] = INTERESTING[rng.below(INTERESTING.len())];
}

fn insert_interesting(rng: &mut Rng, input: &mut Vec<u8>) {
    let at = rng.below(input.len() + 1);
    let b = INTERESTING[rng.below(INTERESTING.len())];
    let n = rng.small(16);
    input.splice(at..at, std::iter::repeat_n(b, n));
}

fn delete_range(rng: &mut Rng, input: &mut Vec<u8>) {
    if input.is_empty() {
        return;
    }
    let at = rng.below(input.len());
    let len = rng.small(input.len() - at);
    input.drain(at..at + len);
}

fn duplicate_range(rng: &mut Rng, input: &mut Vec<u8>) {
    if input.is_empty() {
        return;
    }
    let at = rng.below(input.len());
    let len = rng.small((input.len() - at).min(4096));
    let piece = input[at..at + len].to_vec();
    let to = rng.below(input.len() + 1);
    input.splice(to..to, piece);
}

/// Takes a piece of another seed (a whole line range, usually) and puts
/// it into this input: a splice across files of the same language.
fn splice(rng: &mut Rng, input: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    let Some(other) = rng.pick(seeds) else {
        return;
    };
    if other.is_empty() {
        return;
    }
    let from = rng.below(other.len());
    let len = rng.small((other.len() - from).min(8192));
    let at = rng.below(input.len() + 1);
    input.splice(at..at, other[from..from + len].iter().copied());
}

fn insert_token(rng: &mut Rng, input: &mut Vec<u8>, grammar: &Grammar) {
    let Some(tok) = rng.pick(grammar.dict) else {
        return;
    };
    // At a line start half of the time: keywords mostly begin statements.
    let at = if rng.one_in(2) {
        line_start(input, rng.below(input.len() + 1))
    } else {
        rng.below(input.len() + 1)
    };
    let mut piece = tok.as_bytes().to_vec();
    if rng.one_in(2) {
        piece.push(b'\n');
    }
    input.splice(at..at, piece);
}

/// Repeats one token (a run of word bytes, or one punctuation byte) many
/// times in place.
fn duplicate_token(rng: &mut Rng, input: &mut Vec<u8>) {
    if input.is_empty() {
        return;
    }
    let at = rng.below(input.len());
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let (mut s, mut e) = (at, at + 1);
    if word(input[at]) {
        while s > 0 && word(input[s - 1]) {
            s -= 1;
        }
        while e < input.len() && word(input[e]) {
            e += 1;
        }
    }
    let tok = input[s..e].to_vec();
    let times = rng.small(1024);
    let mut piece = Vec::with_capacity(tok.len() * times);
    for _ in 0..times {
        piece.extend_from_slice(&tok);
    }
    input.splice(e..e, piece);
}

/// Deep nesting: many openers, closed or not.
fn nest(rng: &mut Rng, input: &mut Vec<u8>, grammar: &Grammar, max_len: usize) {
    let depth = rng.small(max_len / (grammar.open.len() + grammar.close.len()).max(1) / 4);
    let at = rng.below(input.len() + 1);
    let mut piece = grammar.open.repeat(depth).into_bytes();
    if rng.one_in(2) {
        piece.extend(grammar.close.repeat(depth).into_bytes());
    }
    input.splice(at..at, piece);
}

fn insert_bad_utf8(rng: &mut Rng, input: &mut Vec<u8>) {
    let at = rng.below(input.len() + 1);
    let piece = BAD_UTF8[rng.below(BAD_UTF8.len())];
    input.splice(at..at, piece.iter().copied());
}

/// One long line of a repeated byte, up to a quarter of the size cap.
fn long_line(rng: &mut Rng, input: &mut Vec<u8>, max_len: usize) {
    let len = rng.small(max_len / 4);
    let b = if rng.one_in(2) {
        b'a'
    } else {
        INTERESTING[rng.below(INTERESTING.len())]
    };
    let at = rng.below(input.len() + 1);
    input.splice(at..at, std::iter::repeat_n(b, len));
}

fn swap_lines(rng: &mut Rng, input: &mut Vec<u8>) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            input
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|i| *i < input.len())
        .collect();
    if starts.len() < 2 {
        return;
    }
    let a = rng.below(starts.len());
    let end = starts.get(a + 1).copied().unwrap_or(input.len());
    let line = input[starts[a]..end].to_vec();
    input.drain(starts[a]..end);
    let to = line_start(input, rng.below(input.len() + 1));
    input.splice(to..to, line);
}

fn line_start(input: &[u8], at: usize) -> usize {
    input[..at.min(input.len())]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Grammar = Grammar {
        dict: &["project(x)", "add_subdirectory(sub)"],
        open: "(",
        close: ")",
    };

    #[test]
    fn mutations_are_reproducible_and_capped() {
        let seeds = vec![b"project(demo)\nfind_package(ZLIB)\n".to_vec()];
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..200)
                .map(|_| {
                    let mut input = seeds[0].clone();
                    mutate(&mut rng, &mut input, &seeds, &G, 4096);
                    input
                })
                .collect::<Vec<_>>()
        };
        let a = run(3);
        assert_eq!(a, run(3));
        assert_ne!(a, run(4));
        assert!(a.iter().all(|i| i.len() <= 4096));
        // The mutators do change things, and sometimes break UTF-8.
        assert!(a.iter().filter(|i| **i != seeds[0]).count() > 150);
        assert!(a.iter().any(|i| std::str::from_utf8(i).is_err()));
    }
}
