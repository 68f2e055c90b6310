//! Token files: where a bot registered with `--register NAME` keeps its
//! player's secret token between runs.
//!
//! The server shows a token once, when the name is registered, so losing it
//! loses the name. A token file is therefore written atomically and never
//! overwritten: the bot creates a temporary file next to it *before* it
//! registers (a directory it cannot write fails before a name is taken),
//! writes the token, syncs it to disk, and links it into place only if no
//! file of that name appeared meanwhile. On Unix the file is readable by its
//! owner only (mode 0600).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A token file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// The file exists but cannot be read.
    #[error("cannot read the token file {}: {source}", path.display())]
    Read {
        /// The token file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file holds no token.
    #[error("the token file {} is empty", path.display())]
    Empty {
        /// The token file.
        path: PathBuf,
    },
    /// The file (or its temporary file) cannot be written.
    #[error("cannot write the token file {}: {source}", path.display())]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file of that name appeared while the player was registered: it is
    /// kept, and the new token stays in the temporary file.
    #[error("{} appeared meanwhile and is not overwritten; the new token is in {}", path.display(), kept.display())]
    Exists {
        /// The token file.
        path: PathBuf,
        /// The temporary file holding the new token.
        kept: PathBuf,
    },
}

/// The player name of bot `index` (from 0) of `count` registered as `name`:
/// `name` itself for a single bot, else `name-1` ... `name-count`.
pub fn numbered_name(name: &str, index: usize, count: usize) -> String {
    if count <= 1 { name.to_string() } else { format!("{name}-{}", index + 1) }
}

/// The token file of bot `index` (from 0) of `count`: `path` itself for a
/// single bot, else the same suffix as the player's name before the
/// extension (`b.token` -> `b-1.token`, `tok` -> `tok-1`).
pub fn numbered_path(path: &Path, index: usize, count: usize) -> PathBuf {
    if count <= 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{}.{}", index + 1, ext.to_string_lossy()),
        None => format!("{stem}-{}", index + 1),
    };
    path.with_file_name(name)
}

/// The token in `path` (surrounding whitespace trimmed), or `None` when
/// there is no such file.
pub fn read(path: &Path) -> Result<Option<String>, TokenFileError> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Err(TokenFileError::Empty { path: path.to_path_buf() }),
        Ok(text) => Ok(Some(text.trim().to_string())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(TokenFileError::Read { path: path.to_path_buf(), source }),
    }
}

/// A token file about to be written: its temporary file exists, the token
/// is not known yet. Dropped without [`Pending::commit`], the temporary file
/// is removed.
#[derive(Debug)]
pub struct Pending {
    path: PathBuf,
    temp: PathBuf,
    file: Option<File>,
}

impl Pending {
    /// Creates the temporary file for `path` in the same directory (so the
    /// final link never crosses file systems), readable by its owner only.
    pub fn create(path: &Path) -> Result<Pending, TokenFileError> {
        let name = path
            .file_name()
            .ok_or_else(|| write_err(path)(io::Error::new(io::ErrorKind::InvalidInput, "the path names no file")))?;
        let temp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let open = || {
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            options.open(&temp)
        };
        let file = match open() {
            // A leftover of a process with our id that died: ours to reuse.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&temp).map_err(write_err(&temp))?;
                open()
            }
            r => r,
        }
        .map_err(write_err(&temp))?;
        Ok(Pending { path: path.to_path_buf(), temp, file: Some(file) })
    }

    /// The token file this will write.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `token` and moves it into place, never over an existing file.
    /// On failure the temporary file is kept (it holds the only copy of the
    /// token) and the error names it.
    pub fn commit(mut self, token: &str) -> Result<(), TokenFileError> {
        let mut file = self.file.take().expect("a pending token file has its file until committed");
        let written = file.write_all(format!("{token}\n").as_bytes()).and_then(|()| file.sync_all());
        drop(file);
        let temp = std::mem::take(&mut self.temp);
        written.map_err(|source| TokenFileError::Write { path: temp.clone(), source })?;
        // A hard link fails when the target exists, where a rename would
        // replace it: the token file of another run is never lost.
        match std::fs::hard_link(&temp, &self.path) {
            Ok(()) => {
                let _ = std::fs::remove_file(&temp);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(TokenFileError::Exists { path: self.path.clone(), kept: temp });
            }
            // File systems without hard links: check, then rename.
            Err(_) if self.path.exists() => {
                return Err(TokenFileError::Exists { path: self.path.clone(), kept: temp });
            }
            Err(_) => std::fs::rename(&temp, &self.path)
                .map_err(|source| TokenFileError::Write { path: self.path.clone(), source })?,
        }
        // The new directory entry must survive a crash too.
        #[cfg(unix)]
        if let Some(dir) = dir_of(&self.path) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.file.take();
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// The error for a file that cannot be written.
fn write_err(path: &Path) -> impl FnOnce(io::Error) -> TokenFileError + '_ {
    move |source| TokenFileError::Write { path: path.to_path_buf(), source }
}

/// The directory holding `path` (`.` for a bare file name).
#[cfg(unix)]
fn dir_of(path: &Path) -> Option<&Path> {
    match path.parent() {
        Some(p) if p.as_os_str().is_empty() => Some(Path::new(".")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let dir = std::env::temp_dir().join(format!("capicua-token-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn several_bots_get_numbered_names_and_files() {
        assert_eq!(numbered_name("b", 0, 1), "b");
        assert_eq!(numbered_name("b", 0, 4), "b-1");
        assert_eq!(numbered_name("b", 3, 4), "b-4");
        assert_eq!(numbered_path(Path::new("b.token"), 0, 1), Path::new("b.token"));
        assert_eq!(numbered_path(Path::new("/state/b.token"), 1, 4), Path::new("/state/b-2.token"));
        assert_eq!(numbered_path(Path::new("dir/tok"), 0, 2), Path::new("dir/tok-1"));
    }

    #[test]
    fn a_token_is_written_once_privately_and_read_back_trimmed() {
        let dir = temp_dir("write");
        let path = dir.join("ana.token");
        assert!(read(&path).unwrap().is_none());
        let pending = Pending::create(&path).unwrap();
        assert!(!path.exists(), "nothing at the final path before the token is known");
        pending.commit("s3cret").unwrap();
        assert_eq!(read(&path).unwrap().as_deref(), Some("s3cret"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["ana.token"], "no temporary file left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_existing_token_file_is_never_overwritten() {
        let dir = temp_dir("keep");
        let path = dir.join("ana.token");
        let pending = Pending::create(&path).unwrap();
        std::fs::write(&path, "theirs\n").unwrap();
        let err = pending.commit("ours").unwrap_err();
        let TokenFileError::Exists { kept, .. } = &err else { panic!("{err:?}") };
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs\n");
        assert_eq!(std::fs::read_to_string(kept).unwrap(), "ours\n", "the new token is not lost");
        assert!(err.to_string().contains("not overwritten"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_abandoned_token_file_leaves_nothing_and_bad_files_say_why() {
        let dir = temp_dir("abandon");
        let path = dir.join("ana.token");
        drop(Pending::create(&path).unwrap());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::write(&path, " \n").unwrap();
        assert!(matches!(read(&path), Err(TokenFileError::Empty { .. })));
        let missing_dir = dir.join("nope").join("ana.token");
        let err = Pending::create(&missing_dir).unwrap_err();
        assert!(err.to_string().starts_with("cannot write the token file"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
