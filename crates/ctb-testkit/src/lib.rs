//! Shared pieces of the workspace's test harnesses, benches and replay (internal).
//!
//! One small seeded generator (SplitMix64) and the random chunking the streaming tests use,
//! so every harness draws the same way and no test needs a `rand` dependency; the one
//! simulated provider ([`provider_cut`]); the one way harnesses find and read their fixture
//! files ([`files`]); a generator of call-shaped replies ([`replies`]); and [`ratio`], speed
//! ratios with targets for benches.
//!
//! ```
//! use ctb_testkit::{Rng, random_chunks};
//!
//! let mut rng = Rng::new(7);
//! let text = "héllo <invoke name=\"x\">";
//! let pieces = random_chunks(text, &mut rng, 4);
//! assert_eq!(pieces.concat(), text);
//! assert!(pieces.iter().all(|p| !p.is_empty()));
//! ```

pub mod default_value;
pub mod ratio;

pub use default_value::DefaultValue;

use std::path::{Path, PathBuf};

pub mod files;
pub mod replies;

pub use files::fixtures_dir;

/// The files of `dir` whose extension is `ext`, sorted by name. A folder that cannot be read
/// is an error, so a harness never passes by finding nothing.
pub fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    Ok(files)
}

/// A file's name without its extension.
pub fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where a provider stops a reply: the output is `text[..output_end]`; the stop string
/// `stops[index]` matched there and ends at `stop_end` in the full text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopCut {
    /// End of what the provider returns (the stop string itself is not returned).
    pub output_end: usize,
    /// Which stop string matched.
    pub index: usize,
    /// End of the matched stop string in the full text.
    pub stop_end: usize,
}

/// The workspace's one simulated provider: where a reply the model would write in full is cut
/// by the request's stop list, the way Anthropic does it. The stop string completed first while
/// the text is written wins (the earliest end; on a tie the longer one, which starts earlier);
/// empty stop strings stop nothing. `None`: no stop string occurs.
///
/// ```
/// use ctb_testkit::provider_cut;
/// let stops = vec!["abcd".to_owned(), "bc".to_owned()];
/// let cut = provider_cut("xabcd", &stops).unwrap();
/// assert_eq!((cut.output_end, cut.index, cut.stop_end), (2, 1, 4));
/// ```
pub fn provider_cut(text: &str, stops: &[String]) -> Option<StopCut> {
    stops
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .filter_map(|(index, s)| {
            text.find(s.as_str()).map(|start| StopCut {
                output_end: start,
                index,
                stop_end: start + s.len(),
            })
        })
        .min_by_key(|c| (c.stop_end, c.output_end))
}

/// SplitMix64: a tiny, fast, well-mixed deterministic generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `percent / 100`.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, uniformly.
    ///
    /// # Panics
    /// When `items` is empty.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Splits `text` into pieces of 1 to `max_piece` bytes, each end moved forward to a character
/// boundary (a `&str` piece cannot hold half a character, so pieces aim inside tags and inside
/// multibyte characters and land just after them).
pub fn random_chunks<'a>(text: &'a str, rng: &mut Rng, max_piece: usize) -> Vec<&'a str> {
    let max = max_piece.max(1);
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let mut end = (pos + 1 + rng.below(max)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[pos..end]);
        pos = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_text_on_char_boundaries() {
        let text = "añb€c𝄞d <tag> end";
        let mut rng = Rng::new(1);
        for max in [1, 2, 3, 7, 100] {
            let pieces = random_chunks(text, &mut rng, max);
            assert_eq!(pieces.concat(), text);
            if max == 1 {
                assert_eq!(pieces.len(), text.chars().count());
            }
        }
    }

    #[test]
    fn fixture_files_are_found_sorted() {
        let files = files_with_extension(&fixtures_dir().join("replies"), "txt").unwrap();
        assert!(files.len() > 100);
        assert!(files.windows(2).all(|w| w[0] < w[1]));
        assert!(files_with_extension(Path::new("/no/such/folder"), "txt").is_err());
        assert_eq!(stem(Path::new("a/001_x.txt")), "001_x");
    }

    #[test]
    fn provider_cut_prefers_the_earliest_end_then_the_longer_stop() {
        let stops = vec!["cd".to_owned(), "bcd".to_owned()];
        assert_eq!(provider_cut("xabcd", &stops).map(|c| c.index), Some(1));
        assert_eq!(provider_cut("xyz", &stops), None);
        assert_eq!(provider_cut("xyz", &[String::new()]), None);
    }

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], xs[1]);
    }
}
