fn main() -> std::process::ExitCode {
    gamedissect::cli::main()
}
