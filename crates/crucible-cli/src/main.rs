// A session is many small strings; mimalloc made parsing ~10% faster than
// glibc malloc (docs/decisions/0002-parse-throughput.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // No transparent huge pages for this process: a run lives a second or
    // less and touches each page of a few hundred MB once, so a huge page
    // only costs (2 MB zeroed at the first touch, and the kernel's
    // compaction to find one); at 100,000 sessions that was a third of
    // `cru site`'s and the usage views' time (docs/performance.md).
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    crucible_cli::main()
}
