//! Man pages, completions and the command reference of docs/cli.md,
//! generated from the clap command tree.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap_complete::Shell;

/// Every generated file: its path under the workspace root and its bytes.
/// docs/cli.md keeps its hand-written part, read from `root`.
pub fn generate(root: &Path) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    let cli_md = PathBuf::from("docs/cli.md");
    let current = std::fs::read_to_string(root.join(&cli_md))
        .with_context(|| format!("reading {}", cli_md.display()))?;
    files.push((cli_md, crate::cli_reference::page(&current)?.into_bytes()));
    let cmd = crucible_cli::command();
    man_pages(&cmd, "cru", &mut files)?;
    for (shell, name) in [
        (Shell::Bash, "cru.bash"),
        (Shell::Zsh, "_cru"),
        (Shell::Fish, "cru.fish"),
    ] {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut crucible_cli::command(), "cru", &mut out);
        files.push((PathBuf::from("docs/completions").join(name), out));
    }
    Ok(files)
}

fn man_pages(
    cmd: &clap::Command,
    name: &str,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
) -> anyhow::Result<()> {
    let cmd = cmd
        .clone()
        .name(name.to_owned())
        .bin_name(name.replace('-', " "));
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    files.push((PathBuf::from("docs/man").join(format!("{name}.1")), out));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        man_pages(sub, &format!("{name}-{}", sub.get_name()), files)?;
    }
    Ok(())
}

pub fn run(root: &Path, check: bool) -> anyhow::Result<()> {
    let files = generate(root)?;
    let mut stale = Vec::new();
    for (rel, bytes) in &files {
        let path = root.join(rel);
        let current = std::fs::read(&path).ok();
        if current.as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        if check {
            stale.push(rel.display().to_string());
        } else {
            std::fs::create_dir_all(path.parent().expect("generated files are in folders"))?;
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", rel.display());
        }
    }
    if !stale.is_empty() {
        bail!(
            "generated docs are out of date: {}\nrun `cargo xtask docs` and commit the result",
            stale.join(", ")
        );
    }
    if check {
        println!("{} generated files are up to date", files.len());
    }
    Ok(())
}
