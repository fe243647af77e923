//! Internationalized host names without Unicode tables: Punycode (RFC 3492), and the rules of
//! IDNA 2008 that name their code points (RFC 5892's exceptions and contextual rules, RFC 5893's
//! Bidi rule with the scripts' blocks standing for their Bidi classes). A label made of code
//! points IDNA disallows for their properties alone passes: that needs the tables left out.

/// The Unicode label an `xn--` label's Punycode spells, if it decodes.
pub(super) fn decode_punycode(encoded: &str) -> Option<Vec<char>> {
    const BASE: u32 = 36;
    let (basic, deltas) = match encoded.rfind('-') {
        Some(at) => (&encoded[..at], &encoded[at + 1..]),
        None => ("", encoded),
    };
    let mut output: Vec<char> = basic.chars().collect();
    if !basic.is_ascii() {
        return None;
    }
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut digits = deltas.bytes();
    while digits.len() > 0 {
        let (old_i, mut weight, mut k) = (i, 1u32, BASE);
        loop {
            let digit = match digits.next()? {
                c @ b'a'..=b'z' => c - b'a',
                c @ b'A'..=b'Z' => c - b'A',
                c @ b'0'..=b'9' => c - b'0' + 26,
                _ => return None,
            } as u32;
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let threshold = k.saturating_sub(bias).clamp(1, 26);
            if digit < threshold {
                break;
            }
            weight = weight.checked_mul(BASE - threshold)?;
            k += BASE;
        }
        let length = output.len() as u32 + 1;
        bias = adapt(i - old_i, length, old_i == 0);
        n = n.checked_add(i / length)?;
        i %= length;
        output.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > 35 * 26 / 2 {
        delta /= 35;
        k += 36;
    }
    k + 36 * delta / (delta + 38)
}

/// Whether a Unicode label (decoded, or as written) keeps IDNA 2008's rules that name their
/// code points.
pub(super) fn is_u_label(label: &[char]) -> bool {
    let Some(first) = label.first() else { return false };
    let hyphens34 = label.len() >= 4 && label[2] == '-' && label[3] == '-';
    if hyphens34 || *first == '-' || label.last() == Some(&'-') || is_mark(*first) {
        return false;
    }
    let has = |range: std::ops::RangeInclusive<u32>| label.iter().any(|c| range.contains(&(*c as u32)));
    if has(0x0660..=0x0669) && has(0x06F0..=0x06F9) {
        return false;
    }
    label.iter().enumerate().all(|(i, c)| {
        let before = i.checked_sub(1).map(|i| label[i]);
        let after = label.get(i + 1).copied();
        match *c as u32 {
            0x00..=0x2C | 0x2E..=0x2F | 0x3A..=0x40 | 0x5B..=0x60 | 0x7B..=0x9F => false,
            0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => false,
            0x00B7 => before == Some('l') && after == Some('l'),
            0x0375 => after.is_some_and(is_greek),
            0x05F3 | 0x05F4 => before.is_some_and(is_hebrew),
            0x30FB => label.iter().any(|c| c != &'\u{30FB}' && is_kana_or_han(*c)),
            0x200D => before.is_some_and(is_virama),
            0x200C => before.is_some_and(is_virama) || (before.is_some_and(joins) && after.is_some_and(joins)),
            _ => true,
        }
    })
}

/// RFC 5893's Bidi rule over the labels of a domain that has right-to-left text.
pub(super) fn bidi_allows(labels: &[Vec<char>]) -> bool {
    if !labels.iter().flatten().any(|c| matches!(bidi(*c), Bidi::Rtl | Bidi::ArabicNumber)) {
        return true;
    }
    labels.iter().all(|label| {
        let Some(first) = label.first() else { return true };
        let last = label.iter().rev().find(|c| bidi(**c) != Bidi::Mark).map_or(Bidi::Mark, |c| bidi(*c));
        let classes = || label.iter().map(|c| bidi(*c));
        match bidi(*first) {
            Bidi::Rtl => {
                let both_digits = classes().any(|b| b == Bidi::Number) && classes().any(|b| b == Bidi::ArabicNumber);
                !both_digits && matches!(last, Bidi::Rtl | Bidi::Number | Bidi::ArabicNumber)
            }
            Bidi::Ltr => {
                classes().all(|b| !matches!(b, Bidi::Rtl | Bidi::ArabicNumber))
                    && matches!(last, Bidi::Ltr | Bidi::Number)
            }
            _ => false,
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bidi {
    Ltr,
    Rtl,
    Number,
    ArabicNumber,
    Mark,
    Neutral,
}

fn bidi(c: char) -> Bidi {
    match c as u32 {
        0x30..=0x39 | 0x06F0..=0x06F9 => Bidi::Number,
        0x0660..=0x0669 | 0x066B..=0x066C => Bidi::ArabicNumber,
        _ if is_mark(c) => Bidi::Mark,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF => Bidi::Rtl,
        0x2D | 0x2E | 0x3A => Bidi::Neutral,
        _ => Bidi::Ltr,
    }
}

/// A combining mark (Mn, Mc, Me) of the common scripts' blocks.
fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2 | 0x05C4..=0x05C5
        | 0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06DC | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8 | 0x06EA..=0x06ED | 0x0900..=0x0903 | 0x093A..=0x093C | 0x093E..=0x094F
        | 0x0951..=0x0957 | 0x0962..=0x0963 | 0x0981..=0x0983 | 0x09BC | 0x09BE..=0x09CD
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

fn is_greek(c: char) -> bool {
    matches!(c as u32, 0x0370..=0x03FF | 0x1F00..=0x1FFF)
}

fn is_hebrew(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x05FF)
}

fn is_kana_or_han(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Scripts whose letters join (Arabic, Syriac, N'Ko...): where a zero width non-joiner may
/// stand between two letters (RFC 5892 appendix A.1, its joining types approximated).
fn joins(c: char) -> bool {
    matches!(c as u32, 0x0620..=0x064A | 0x066E..=0x06D3 | 0x06FA..=0x06FF | 0x0710..=0x074F | 0x07CA..=0x07EA)
}

/// The viramas (combining class 9) of the scripts that have one.
fn is_virama(c: char) -> bool {
    matches!(
        c as u32,
        0x094D
            | 0x09CD
            | 0x0A4D
            | 0x0ACD
            | 0x0B4D
            | 0x0BCD
            | 0x0C4D
            | 0x0CCD
            | 0x0D3B
            | 0x0D3C
            | 0x0D4D
            | 0x0DCA
            | 0x0E3A
            | 0x0EBA
            | 0x0F84
            | 0x1039
            | 0x103A
            | 0x1714
            | 0x1734
            | 0x17D2
            | 0x1A60
            | 0x1B44
            | 0x1BAA
            | 0x1BAB
            | 0x1BF2
            | 0x1BF3
            | 0x2D7F
            | 0xA806
            | 0xA8C4
            | 0xA953
            | 0xA9C0
            | 0xAAF6
            | 0xABED
    )
}
