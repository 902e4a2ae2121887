//! The files a shell command line reads and writes: redirections, and the
//! file arguments of commands whose meaning is well known (the table in
//! `docs/codify.md`). Only files named on the line count: `cargo build`
//! writes `target/`, but no step reads that by name.

use super::shell_lex::{Direction, Simple, lex};
use super::{Access, FileAccess, as_path, patch};

/// Commands whose file arguments are read.
const READING: &[&str] = &[
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "nl",
    "wc",
    "bat",
    "diff",
    "cmp",
    "sort",
    "uniq",
    "jq",
    "yq",
    "source",
    ".",
    "python",
    "python3",
    "node",
    "ruby",
    "pytest",
    "stat",
    "file",
    "md5sum",
    "sha256sum",
    "xxd",
    "hexdump",
    "od",
    "strings",
    "tac",
    "cut",
    "column",
];

/// Commands whose file arguments are written (`rm`: the file is gone, a
/// new version of it as far as later steps are concerned).
const WRITING: &[&str] = &["tee", "touch", "rm", "truncate", "shred"];

/// Words before a command that run it: `sudo cat f` reads f.
const WRAPPERS: &[&str] = &[
    "sudo", "time", "env", "nohup", "command", "exec", "nice", "timeout", "stdbuf",
];

/// Shells whose `-c SCRIPT` is itself a command line.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "fish"];

/// The files `line` reads and writes, in order, once each.
pub(super) fn accesses(line: &str) -> Vec<FileAccess> {
    let mut out = Accesses::default();
    read_line(line, &mut out, 0);
    out.0
}

#[derive(Default)]
struct Accesses(Vec<FileAccess>);

impl Accesses {
    fn push(&mut self, word: &str, access: Access) {
        let Some(path) = as_path(word) else {
            return;
        };
        if !self.0.iter().any(|a| a.path == path && a.access == access) {
            self.0.push(FileAccess { path, access });
        }
    }

    fn read(&mut self, word: &str) {
        self.push(word, Access::Read);
    }

    fn write(&mut self, word: &str) {
        self.push(word, Access::Write);
    }

    fn edit(&mut self, word: &str) {
        self.read(word);
        self.write(word);
    }
}

fn read_line(line: &str, out: &mut Accesses, depth: usize) {
    let lexed = lex(line);
    for c in &lexed.commands {
        for (d, f) in &c.redirects {
            if f.starts_with("/dev/") {
                continue;
            }
            match d {
                Direction::In => out.read(f),
                Direction::Out => out.write(f),
            }
        }
        command(c, out, depth);
    }
    // `apply_patch <<'PATCH'` (Codex through a shell): the patch is the
    // here-document.
    for body in &lexed.heredocs {
        if patch::is_patch(body) {
            patch_accesses(body, out);
        }
    }
}

fn patch_accesses(text: &str, out: &mut Accesses) {
    for p in patch::paths(text) {
        if p.change != patch::Change::Add {
            out.read(&p.path);
        }
        out.write(&p.path);
    }
}

/// The words of a simple command after assignments (`X=1 cmd`) and
/// wrappers (`sudo cmd`).
fn command_words(c: &Simple) -> &[String] {
    let mut w = c.words.as_slice();
    while let Some((first, rest)) = w.split_first() {
        let assignment = first.contains('=') && !first.starts_with('-') && !first.starts_with('=');
        let wrapper = WRAPPERS.contains(&first.as_str());
        if !(assignment || wrapper) {
            break;
        }
        w = rest;
        // `timeout 10 cmd`, `nice -n 5 cmd`: the wrapper's own arguments.
        while w
            .first()
            .is_some_and(|a| a.starts_with('-') || a.starts_with(|c: char| c.is_ascii_digit()))
            && w.len() > 1
        {
            w = &w[1..];
        }
    }
    w
}

fn command(c: &Simple, out: &mut Accesses, depth: usize) {
    let words = command_words(c);
    let Some((cmd, args)) = words.split_first() else {
        return;
    };
    let cmd = cmd.rsplit('/').next().unwrap_or(cmd);
    let positional: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    output_options(args, out);
    match cmd {
        s if SHELLS.contains(&s) => shell_command(args, out, depth),
        "sed" => sed(args, out),
        "perl"
            if args
                .iter()
                .any(|a| a.starts_with("-i") || a.starts_with("-pi")) =>
        {
            positional.iter().skip(1).for_each(|p| out.edit(p));
        }
        "grep" | "rg" | "ag" | "egrep" | "fgrep" => grep(args, out),
        "awk" | "gawk" => positional.iter().skip(1).for_each(|p| out.read(p)),
        "cp" | "mv" | "install" | "rsync" => {
            if let Some((target, sources)) = positional.split_last() {
                for s in sources {
                    out.read(s);
                }
                out.write(target);
            }
        }
        "git" => git(args, out),
        "patch" => {
            // `patch [options] [file [patchfile]]`, `-i patchfile`.
            let mut it = args.iter();
            while let Some(a) = it.next() {
                if a == "-i"
                    && let Some(p) = it.next()
                {
                    out.read(p);
                }
            }
            if let Some(file) = positional.first() {
                out.edit(file);
            }
            positional.iter().skip(1).for_each(|p| out.read(p));
        }
        "apply_patch" | "applypatch" => {
            for a in args {
                patch_accesses(a, out);
            }
        }
        c if WRITING.contains(&c) => positional.iter().for_each(|p| out.write(p)),
        c if READING.contains(&c) => positional.iter().for_each(|p| out.read(p)),
        _ => {}
    }
}

/// `-o FILE`, `--output FILE`, `--output=FILE` (compilers, curl, pandoc):
/// a file the command writes, named on the line.
fn output_options(args: &[String], out: &mut Accesses) {
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        if let Some(f) = a.strip_prefix("--output=") {
            out.write(f);
        } else if (a == "-o" || a == "--output")
            && let Some(f) = it.next()
        {
            out.write(f);
        }
    }
}

/// `sh -c 'script'`, `bash -lc "script"`: the script's own accesses; `bash
/// script.sh`: the script is read.
fn shell_command(args: &[String], out: &mut Accesses, depth: usize) {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') && !a.starts_with("--") && a.contains('c') {
            if let Some(script) = it.next()
                && depth < 4
            {
                read_line(script, out, depth + 1);
            }
            return;
        }
        if !a.starts_with('-') {
            out.read(a);
            return;
        }
    }
}

/// `sed -i SCRIPT FILE...` edits the files; without `-i` it reads them.
/// The script is the first word that is not an option, unless `-e`/`-f`
/// gave it.
fn sed(args: &[String], out: &mut Accesses) {
    let mut in_place = false;
    let mut script_given = false;
    let mut files: Vec<&str> = Vec::new();
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-e" | "--expression" => {
                script_given = true;
                it.next();
            }
            "-f" | "--file" => {
                script_given = true;
                if let Some(f) = it.next() {
                    out.read(f);
                }
            }
            // macOS `sed -i '' ...`: the empty word is the backup suffix.
            "-i" if it.peek().is_some_and(|n| n.is_empty()) => {
                in_place = true;
                it.next();
            }
            o if o.starts_with("--in-place") => in_place = true,
            o if o.starts_with('-') && !o.starts_with("--") => {
                in_place |= o[1..].contains('i');
            }
            w if !script_given => script_given = !w.is_empty(),
            w => files.push(w),
        }
    }
    for f in files {
        if in_place {
            out.edit(f);
        } else {
            out.read(f);
        }
    }
}

/// `grep [options] PATTERN FILE...`; with `-e`/`-f` the pattern is given
/// by the option and every positional word is a file.
fn grep(args: &[String], out: &mut Accesses) {
    let mut pattern_given = false;
    let mut files: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-e" | "--regexp" => {
                pattern_given = true;
                it.next();
            }
            "-f" | "--file" => {
                pattern_given = true;
                if let Some(f) = it.next() {
                    out.read(f);
                }
            }
            // Options that take a value: the value is no file to read.
            "-g" | "--glob" | "-t" | "--type" | "-A" | "-B" | "-C" | "-m" | "--max-count" => {
                it.next();
            }
            o if o.starts_with('-') => {}
            _ if !pattern_given => pattern_given = true,
            w => files.push(w),
        }
    }
    for f in files {
        out.read(f);
    }
}

/// `git add/diff/show FILE` read, `git checkout/restore FILE` write,
/// `git apply PATCH` reads the patch, `git rm FILE` writes, `git mv A B`.
fn git(args: &[String], out: &mut Accesses) {
    let positional: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some((sub, rest)) = positional.split_first() else {
        return;
    };
    match *sub {
        "add" | "diff" | "apply" | "blame" | "log" | "show" => {
            for p in rest {
                out.read(p);
            }
        }
        "checkout" | "restore" | "rm" => rest.iter().for_each(|p| out.write(p)),
        "mv" => {
            if let Some((target, sources)) = rest.split_last() {
                for s in sources {
                    out.read(s);
                }
                out.write(target);
            }
        }
        _ => {}
    }
}
