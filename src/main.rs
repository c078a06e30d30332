fn main() {
    let code = match retro::cli::run() {
        Ok(code) => code,
        // Whoever read our output has stopped reading (`| head`): end quietly.
        Err(err) if err.is_broken_pipe() => 0,
        Err(err) => {
            eprintln!("error: {err}");
            err.exit_code()
        }
    };
    std::process::exit(code);
}
