//! One verified download: stream a URL into a temporary file beside the
//! target while hashing it, check the size and sha256, then rename. A
//! failed, mismatched or cancelled download leaves nothing behind (the
//! temporary file is removed when dropped); one killed outright leaves a
//! `.FILE.*.part` that the next download of the same file removes.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sha2::{Digest, Sha256};

/// What the file must be.
#[derive(Debug, Clone)]
pub struct Expected {
    /// Bytes, when known in advance.
    pub size: Option<u64>,
    /// Lower-case hex.
    pub sha256: String,
}

#[derive(Debug)]
pub enum DownloadError {
    /// The server could not be reached or answered with an error.
    Network(String),
    /// Fewer or more bytes than expected (a truncated transfer, or another file).
    Size {
        got: u64,
        want: u64,
    },
    Checksum {
        got: String,
        want: String,
    },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Cancelled,
}

impl std::fmt::Display for DownloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Network(m) => write!(f, "{m}"),
            Self::Size { got, want } => write!(f, "received {got} bytes, expected {want}"),
            Self::Checksum { got, want } => write!(f, "sha256 is {got}, expected {want}"),
            Self::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Self::Cancelled => write!(f, "interrupted"),
        }
    }
}

/// Partial files older than this are left over from a killed download.
const STALE_PART: Duration = Duration::from_secs(600);
const CHUNK: usize = 1 << 20;

/// Whether `path` holds exactly the expected file (reads all of it).
pub fn verify(path: &Path, expected: &Expected) -> Result<bool, DownloadError> {
    let io = |error| DownloadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if expected.size.is_some_and(|s| s != len) {
        return Ok(false);
    }
    let mut file = File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()) == expected.sha256)
}

/// Downloads `url` to `dest`, verified. `cancel` is polled between chunks.
pub fn download(
    url: &str,
    dest: &Path,
    expected: &Expected,
    cancel: &AtomicBool,
) -> Result<u64, DownloadError> {
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| DownloadError::Io { path, error }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let file_name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{file_name}.");
    remove_stale_parts(dir, &prefix);

    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(30))
        .timeout_read(Duration::from_secs(120))
        .build();
    let response = agent.get(url).call().map_err(|e| match e {
        ureq::Error::Status(code, _) => DownloadError::Network(format!("HTTP {code} from {url}")),
        ureq::Error::Transport(t) => DownloadError::Network(format!("cannot fetch {url}: {t}")),
    })?;
    let offered: Option<u64> = response
        .header("content-length")
        .and_then(|v| v.trim().parse().ok());
    if let (Some(got), Some(want)) = (offered, expected.size) {
        if got != want {
            return Err(DownloadError::Size { got, want });
        }
    }
    let total = expected.size.or(offered);

    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(io(dir))?;
    let tmp_path = tmp.path().to_path_buf();
    let progress = progress_bar(total, &file_name);
    let mut reader = response.into_reader();
    let mut writer = BufWriter::with_capacity(CHUNK, tmp.as_file());
    let mut hasher = Sha256::new();
    let mut received: u64 = 0;
    let mut buf = vec![0u8; CHUNK];
    loop {
        if cancel.load(Ordering::SeqCst) {
            progress.abandon();
            return Err(DownloadError::Cancelled);
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                progress.abandon();
                return Err(DownloadError::Network(format!(
                    "the transfer from {url} broke off after {received} bytes: {e}"
                )));
            }
        };
        writer.write_all(&buf[..n]).map_err(io(&tmp_path))?;
        hasher.update(&buf[..n]);
        received += n as u64;
        progress.set_position(received);
    }
    writer.flush().map_err(io(&tmp_path))?;
    drop(writer);
    progress.finish_and_clear();
    if let Some(want) = total {
        if received != want {
            return Err(DownloadError::Size {
                got: received,
                want,
            });
        }
    }
    let got = hex::encode(hasher.finalize());
    if got != expected.sha256 {
        return Err(DownloadError::Checksum {
            got,
            want: expected.sha256.clone(),
        });
    }
    tmp.as_file().sync_all().map_err(io(&tmp_path))?;
    tmp.persist(dest).map_err(|e| DownloadError::Io {
        path: dest.to_path_buf(),
        error: e.error,
    })?;
    Ok(received)
}

/// On stderr when it is a terminal; hidden otherwise.
fn progress_bar(total: Option<u64>, name: &str) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(total, target);
    let template = if total.is_some() {
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{msg} {bytes} {bytes_per_sec}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(name.to_string());
    bar
}

/// Removes `PREFIX*.part` files in `dir` not written to for a while.
fn remove_stale_parts(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with(prefix) && name.ends_with(".part")) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > STALE_PART);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_checks_size_then_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"abc").unwrap();
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string();
        let ok = |size| {
            verify(
                &path,
                &Expected {
                    size,
                    sha256: sha.clone(),
                },
            )
            .unwrap()
        };
        assert!(ok(Some(3)));
        assert!(ok(None));
        assert!(!ok(Some(4)));
    }

    #[test]
    fn stale_parts_go_fresh_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".m.gguf.abc.part");
        let fresh = dir.path().join(".m.gguf.def.part");
        let other = dir.path().join(".n.gguf.abc.part");
        for p in [&stale, &fresh, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        let old = SystemTime::now() - Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(old)
            .unwrap();
        remove_stale_parts(dir.path(), ".m.gguf.");
        assert!(!stale.exists());
        assert!(fresh.exists());
        assert!(other.exists());
    }
}
