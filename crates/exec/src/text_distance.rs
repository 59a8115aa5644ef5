//! SOUNDEX and EDITDISTANCE (SQL Functions, Expressions, and Predicates, "SOUNDEX" with its
//! "Soundex Coding Guide", and "EDITDISTANCE"): how alike two names are.
//!
//! - `soundex(s)`: the first letter, then the codes of the following letters (B F P V 1;
//!   C G J K Q S X Z 2; D T 3; L 4; M N 5; R 6), vowels and Y, H, W dropped, a code equal to
//!   the one before it (letters adjacent, or separated only by H or W) written once, cut or
//!   padded with zeros to one letter and three digits. Only simple Latin letters count, case
//!   blind; a string with none gives ''.
//! - `edit_distance(a, b, costs)`: the cheapest way to turn a into b by inserting, deleting
//!   and substituting characters and transposing two adjacent ones (each used substring is
//!   edited once: the "optimal string alignment" distance), with the costs given (1 each by
//!   default).
//!
//! Invariant: SOUNDEX takes time proportional to the length; EDITDISTANCE to the product of
//! the lengths, which [`MAX_CELLS`] bounds (the caller refuses longer pairs).

/// The Soundex code of `s`.
pub(crate) fn soundex(s: &str) -> String {
    let code = |c: char| match c {
        'B' | 'F' | 'P' | 'V' => Some('1'),
        'C' | 'G' | 'J' | 'K' | 'Q' | 'S' | 'X' | 'Z' => Some('2'),
        'D' | 'T' => Some('3'),
        'L' => Some('4'),
        'M' | 'N' => Some('5'),
        'R' => Some('6'),
        _ => None,
    };
    let mut letters = s
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_uppercase());
    let Some(first) = letters.next() else {
        return String::new();
    };
    let mut out = String::from(first);
    let mut last = code(first);
    for c in letters {
        if out.len() == 4 {
            break;
        }
        match c {
            // H and W do not separate two letters of one code
            'H' | 'W' => {}
            _ => {
                let k = code(c);
                if let Some(digit) = k.filter(|_| k != last) {
                    out.push(digit);
                }
                last = k;
            }
        }
    }
    while out.len() < 4 {
        out.push('0');
    }
    out
}

/// The largest product of two lengths EDITDISTANCE compares (about a tenth of a second of
/// work): two strings of 5,000 characters.
pub(crate) const MAX_CELLS: usize = 25_000_000;

/// The costs of EDITDISTANCE's operations: insertion, deletion, substitution, transposition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Costs {
    pub(crate) insert: i64,
    pub(crate) delete: i64,
    pub(crate) substitute: i64,
    pub(crate) transpose: i64,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs {
            insert: 1,
            delete: 1,
            substitute: 1,
            transpose: 1,
        }
    }
}

/// The edit distance from `a` to `b` with `costs`.
pub(crate) fn edit_distance(a: &str, b: &str, costs: Costs) -> i64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let w = b.len() + 1;
    // three rows of the table: two back (for transpositions), one back, this one
    let mut before: Vec<i64> = vec![0; w];
    // costs are INTEGERs and lengths at most MAX_CELLS: the sums stay far inside i64, and
    // saturate if a caller ever passes more
    let mut prev: Vec<i64> = (0..w)
        .map(|j| (j as i64).saturating_mul(costs.insert))
        .collect();
    let mut row: Vec<i64> = vec![0; w];
    for i in 1..=a.len() {
        row[0] = (i as i64).saturating_mul(costs.delete);
        for j in 1..w {
            let same = a[i - 1] == b[j - 1];
            let mut best = (prev[j].saturating_add(costs.delete))
                .min(row[j - 1].saturating_add(costs.insert))
                .min(prev[j - 1].saturating_add(if same { 0 } else { costs.substitute }));
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2].saturating_add(costs.transpose));
            }
            row[j] = best;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[w - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soundex_follows_the_coding_guide() {
        for (name, code) in [
            ("Robert", "R163"),
            ("Rupert", "R163"),
            ("Ashcraft", "A261"),
            ("Tymczak", "T522"),
            ("Pfister", "P236"),
            ("Lee", "L000"),
            ("lloyd", "L300"),
            ("O'Hara", "O600"),
            ("", ""),
            ("123", ""),
        ] {
            assert_eq!(soundex(name), code, "{name}");
        }
    }

    #[test]
    fn edit_distance_counts_the_cheapest_edits() {
        let one = Costs::default();
        assert_eq!(edit_distance("kitten", "sitting", one), 3);
        assert_eq!(edit_distance("", "abc", one), 3);
        assert_eq!(edit_distance("abc", "", one), 3);
        assert_eq!(edit_distance("abc", "abc", one), 0);
        // a transposition is one edit
        assert_eq!(edit_distance("abcd", "abdc", one), 1);
        let costly = Costs {
            transpose: 5,
            ..one
        };
        assert_eq!(edit_distance("abcd", "abdc", costly), 2);
        let cheap_insert = Costs { insert: 0, ..one };
        assert_eq!(edit_distance("ac", "abc", cheap_insert), 0);
        let huge = Costs {
            delete: i64::MAX,
            ..one
        };
        // a deletion cannot be avoided here: the sum saturates, it never wraps
        assert_eq!(edit_distance("abcd", "abc", huge), i64::MAX);
        assert_eq!(edit_distance("abc", "abd", huge), 1);
    }
}
