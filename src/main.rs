//! The `retro` binary: the command line (`retro::cli`) over the built-in games.

fn main() {
    retro::cli::main::<retro::game::Builtin>()
}
