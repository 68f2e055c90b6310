//! Finds out, once per build, whether the Python example bot can run here,
//! so that its tests are reported as *ignored* (with the reason, in the
//! test summary) instead of passing silently on a machine without Python.
//!
//! `python_websockets`: python3 imports `websockets`; `python3`: a python3
//! runs at all. With `CAPICUA_REQUIRE_PYTHON` set (CI) both are assumed,
//! so a missing Python fails the tests instead of skipping them. The probe
//! runs again when PATH changes or a package is installed into python3's
//! site-packages.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(python3)");
    println!("cargo::rustc-check-cfg=cfg(python_websockets)");
    println!("cargo::rerun-if-env-changed=CAPICUA_REQUIRE_PYTHON");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-changed=build.rs");
    let required = std::env::var_os("CAPICUA_REQUIRE_PYTHON").is_some();
    let runs = |args: &[&str]| Command::new("python3").args(args).output().is_ok_and(|o| o.status.success());
    if required || runs(&["-V"]) {
        println!("cargo::rustc-cfg=python3");
    }
    if required || runs(&["-c", "import websockets"]) {
        println!("cargo::rustc-cfg=python_websockets");
    }
    // Installing a package changes its site-packages folder.
    if let Ok(out) = Command::new("python3")
        .args(["-c", "import site; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))"])
        .output()
    {
        for dir in String::from_utf8_lossy(&out.stdout).lines().filter(|d| std::path::Path::new(d).is_dir()) {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
}
