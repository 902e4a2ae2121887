// A session is many small strings; mimalloc made parsing ~10% faster than
// glibc malloc (docs/decisions/0002-parse-throughput.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    crucible_cli::main()
}
