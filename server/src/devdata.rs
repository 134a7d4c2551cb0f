//! Files that hold secrets: the development defaults (when configuration names no secret, a
//! random value is generated once and kept in the data folder, so restarts and several local
//! instances agree) and the admission keys' folder (`tokens::keys`). Outside `--dev` a server
//! never generates one: it reads the environment or files `anteroom secrets` wrote once, since
//! instances that each made their own would refuse each other's sessions and tokens.
//!
//! Invariants: a secret file is readable and writable by its owner only (0600), in a folder
//! only its owner may enter (0700). Both are created so, and checked whenever they are read:
//! wider is refused at start, or, with `--dev` (`Strictness::Warn`), logged as a warning. A
//! generated file is created exclusively (O_EXCL) and whole, under the folder's lock, so two
//! instances starting together end with one value between them, never one each.

use std::{
    fs::{self, DirBuilder, File, OpenOptions},
    io::{self, Write},
    os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt},
    path::Path,
};

use crate::ids::random_id;

/// The widest mode of a secret file: its owner reads and writes it, nobody else anything.
const FILE_MODE: u32 = 0o600;
/// The widest mode of a folder of secrets: its owner alone lists and changes it.
const DIR_MODE: u32 = 0o700;
/// The lock file of a folder, held while a secret or key is generated in it.
const LOCK_FILE: &str = ".lock";

/// What a secret file or folder wider than its owner's gets: refused (production), or a
/// warning (`--dev`, where a checkout's folder may predate the check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    Refuse,
    Warn,
}

impl Strictness {
    /// Refuse, unless in development mode.
    pub fn for_dev(dev: bool) -> Self {
        if dev { Self::Warn } else { Self::Refuse }
    }
}

/// The value kept in `dir/name`, created with 32 random bytes (base64url) if absent.
/// Returns the value and whether it was created now (by this call, not another instance's).
pub fn secret_file(dir: &Path, name: &str, strictness: Strictness) -> io::Result<(String, bool)> {
    let path = dir.join(name);
    if let Some(value) = read_secret(&path, strictness)? {
        return Ok((value, false));
    }
    private_dir(dir, strictness)?;
    locked(dir, || {
        // Another instance may have made it while this one waited for the lock.
        if let Some(value) = read_secret(&path, strictness)? {
            return Ok((value, false));
        }
        let value = random_id(32);
        create_private(&path, value.as_bytes())?;
        Ok((value, true))
    })
}

/// The secret in `path`, or `None` when there is none (no file, or an empty one).
pub fn read_secret(path: &Path, strictness: Strictness) -> io::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(s) if !s.trim().is_empty() => {
            check_private(path, strictness)?;
            Ok(Some(s.trim().to_owned()))
        }
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Creates the folder `dir` (0700) if it is missing, and checks it when it is not.
pub fn private_dir(dir: &Path, strictness: Strictness) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)?;
    check(dir, DIR_MODE, strictness)
}

/// Checks that the file `path` and its folder are their owner's only.
pub fn check_private(path: &Path, strictness: Strictness) -> io::Result<()> {
    check(path, FILE_MODE, strictness)?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => check(dir, DIR_MODE, strictness),
        _ => check(Path::new("."), DIR_MODE, strictness),
    }
}

/// Checks that `path`'s mode grants nothing beyond `widest`.
fn check(path: &Path, widest: u32, strictness: Strictness) -> io::Result<()> {
    let mode = fs::metadata(path)?.permissions().mode() & 0o777;
    if mode & !widest == 0 {
        return Ok(());
    }
    let message = format!(
        "{} is open to other users (mode {mode:o}): it holds secrets; run `chmod {widest:o} {}`",
        path.display(),
        path.display()
    );
    match strictness {
        Strictness::Refuse => Err(io::Error::new(io::ErrorKind::PermissionDenied, message)),
        Strictness::Warn => {
            tracing::warn!("{message} (tolerated with --dev only)");
            Ok(())
        }
    }
}

/// Runs `f` holding the lock of folder `dir` (which must exist): instances that generate a
/// secret in the same folder at the same moment take turns. The lock is released when the
/// file closes, also when the process dies holding it.
pub fn locked<T>(dir: &Path, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    let lock = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(dir.join(LOCK_FILE))?;
    lock.lock()?;
    let result = f();
    lock.unlock()?;
    result
}

/// Writes a new file readable by its owner only, failing if `path` exists: a file that
/// another instance wrote is never replaced, and none is ever seen half written (a reader
/// that takes no lock may look at any moment). The contents go to a fresh file of a name of
/// their own (O_EXCL), then hard-linked to `path`, which, like O_EXCL, fails when the name
/// exists.
pub fn create_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let draft = path.with_file_name(format!(".{name}.{}", random_id(6)));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(&draft)
        .and_then(|mut f: File| {
            f.write_all(contents)?;
            f.sync_all()
        })
        .and_then(|()| fs::hard_link(&draft, path));
    // The draft goes whether or not it became `path`.
    let _ = fs::remove_file(&draft);
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_dir() -> std::path::PathBuf {
        std::env::temp_dir().join(format!("anteroom-devdata-{}", random_id(6)))
    }

    #[test]
    fn a_secret_is_generated_once_private_and_kept() {
        let dir = scratch_dir();
        let (first, created) = secret_file(&dir, "s", Strictness::Refuse).unwrap();
        assert!(created && first.len() == 43);
        let (again, created) = secret_file(&dir, "s", Strictness::Refuse).unwrap();
        assert_eq!((again.as_str(), created), (first.as_str(), false));
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("s")), 0o600);
        assert_eq!(mode(&dir), 0o700);
        assert!(create_private(&dir.join("s"), b"other").is_err(), "O_EXCL");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_secret_others_may_read_is_refused_or_with_dev_tolerated() {
        let dir = scratch_dir();
        secret_file(&dir, "s", Strictness::Refuse).unwrap();
        fs::set_permissions(dir.join("s"), fs::Permissions::from_mode(0o644)).unwrap();
        let refused = secret_file(&dir, "s", Strictness::Refuse).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::PermissionDenied);
        assert!(refused.to_string().contains("chmod 600"), "{refused}");
        assert!(secret_file(&dir, "s", Strictness::Warn).is_ok());
        fs::set_permissions(dir.join("s"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let refused = secret_file(&dir, "s", Strictness::Refuse).unwrap_err();
        assert!(refused.to_string().contains("chmod 700"), "{refused}");
        fs::remove_dir_all(dir).unwrap();
    }
}
