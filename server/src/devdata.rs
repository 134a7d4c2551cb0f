//! Development defaults for secrets: when configuration names none, a random value is
//! generated once and kept in the data folder, so restarts and several local instances agree.
//! Production sets them through the environment.

use std::{fs, io, path::Path};

use crate::ids::random_id;

/// The value kept in `dir/name`, created with 32 random bytes (base64url) if absent.
/// Returns the value and whether it was created now.
pub fn secret_file(dir: &Path, name: &str) -> io::Result<(String, bool)> {
    let path = dir.join(name);
    match fs::read_to_string(&path) {
        Ok(s) if !s.trim().is_empty() => return Ok((s.trim().to_owned(), false)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    fs::create_dir_all(dir)?;
    let value = random_id(32);
    write_private(&path, value.as_bytes())?;
    Ok((value, true))
}

/// Writes a file readable by its owner only.
pub fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    io::Write::write_all(&mut f, contents)
}
