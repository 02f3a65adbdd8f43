#[global_allocator]
static ALLOCATOR: canvasc_host::Allocator = canvasc_host::Allocator;

fn main() -> std::process::ExitCode {
    canvasc::cli::main()
}
