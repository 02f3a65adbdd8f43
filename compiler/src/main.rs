fn main() -> std::process::ExitCode {
    canvasc::cli::main()
}
