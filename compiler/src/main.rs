#[global_allocator]
static ALLOCATOR: canvasc::Allocator = canvasc::Allocator;

fn main() -> std::process::ExitCode {
    canvasc::cli::main()
}
