fn main() -> std::process::ExitCode {
    crucible_cli::main()
}
